/*
 * fuzz_bplist.c - the fuzz target of the binary property lists and NSKeyedArchiver archives of
 * Instruments .trace bundles (src/import/instruments/bplist.h), read alone: the bundle's zip
 * checks its members' CRCs, so fuzzing the bundle itself rarely reaches the plist reader.
 *
 * Every object of the list is decoded, every element of its arrays and dicts referred to, every
 * string converted, and, when the list is a keyed archive, every $objects entry dereferenced and
 * its class asked. A call may fail, but a failure must leave an error with its text (bad, why):
 * anything else aborts. replay.c replays fuzz/corpus/bplist/ in `make test`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "import/instruments/bplist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bounds the work of one input: lists can claim 2^64 objects and elements. */
#define FUZZ_CAP 4096

/* A failure without its text aborts. */
static void said(const struct bplist *bp, const char *what)
{
	if (bp->bad && bp->why[0])
		return;
	fprintf(stderr, "fuzz: %s failed without a message\n", what);
	abort();
}

static void walk_list(struct bplist *bp)
{
	for (uint64_t ix = 0; ix < bp->nobj && ix < FUZZ_CAP; ix++) {
		struct bp_obj o;
		if (!bp_get(bp, ix, &o)) {
			said(bp, "bp_get");
			bp->bad = false;
			continue;
		}
		if (o.kind != BP_ARRAY && o.kind != BP_DICT)
			continue;
		uint64_t n = o.kind == BP_DICT ? 2 * o.n : o.n;
		for (uint64_t i = 0; i < n && i < FUZZ_CAP; i++) {
			uint64_t ref;
			if (!bp_ref(bp, &o, i, &ref)) {
				said(bp, "bp_ref");
				bp->bad = false;
			}
		}
	}
}

static void walk_archive(struct karchive *ka)
{
	for (uint64_t i = 0; i < ka->objects.n && i < FUZZ_CAP; i++) {
		struct bp_obj o, items, keys, values;
		if (!ka_elem(ka, &ka->objects, i, &o))
			continue;
		char cls[128];
		ka_class(ka, &o, cls, sizeof(cls));
		bool nomem = false;
		char *s = ka_string(ka, &o, &nomem);
		pv_free(s);
		uint64_t u;
		(void)ka_int(ka, &o, &u);
		if (ka_array(ka, &o, &items))
			for (uint64_t j = 0; j < items.n && j < 64; j++) {
				struct bp_obj e;
				(void)ka_elem(ka, &items, j, &e);
			}
		if (ka_dict(ka, &o, &keys, &values))
			for (uint64_t j = 0; j < keys.n && j < 64; j++) {
				struct bp_obj k;
				if (ka_elem(ka, &keys, j, &k))
					(void)ka_string_is(ka, &k, "NS.string");
				(void)ka_elem(ka, &values, j, &k);
			}
		struct bp_obj f;
		if (ka_field(ka, &o, "NS.string", &f))
			(void)ka_deref(ka, &f, &f);
		ka->bp.bad = false;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bplist bp;
	if (!bp_open(&bp, data, size)) {
		said(&bp, "bp_open");
		return 0;
	}
	walk_list(&bp);
	struct karchive ka;
	if (!ka_open(&ka, data, size)) {
		said(&ka.bp, "ka_open");
		return 0;
	}
	walk_archive(&ka);
	return 0;
}
