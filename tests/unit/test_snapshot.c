/*
 * Snapshots (doc/snapshot.md): a profile written and opened again is the same profile, its
 * columns in the file's mapping; a snapshot cut at any byte, with any byte flipped, of another
 * version, or crafted with valid checksums around a bad index, fails with one line naming the
 * byte; the cache opens a file from its snapshot until the file changes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/hash.h"
#include "model/builder.h"
#include "pv/import.h"
#include "pv/profile.h"
#include "pv/snapshot.h"
#include "t.h"
#include "tp.h"

static char tmpdir[64];

static void remove_tmpdir(void)
{
	char cmd[128];
	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	tmpdir[0] = 0;
}

/* A path in this run's temporary folder (removed at exit), in a static buffer. */
static const char *tmp(const char *name)
{
	static char path[128];
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/pv-snapshot-XXXXXX");
		if (!mkdtemp(tmpdir))
			return "/nonexistent";
		atexit(remove_tmpdir);
	}
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

static struct pv_profile *import(const char *path)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_file(path, NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return NULL;
	}
	return p;
}

/* The snapshot of path, written to tmp(name) and read back into memory. */
static unsigned char *snapshot_bytes(const char *path, const char *name, size_t *len)
{
	struct pv_profile *p = import(path);
	struct pv_error err;
	if (!p)
		return NULL;
	int rc = pv_snapshot_write(p, tmp(name), NULL, &err);
	pv_profile_free(p);
	if (rc) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return NULL;
	}
	return (unsigned char *)t_read_file(tmp(name), len);
}

static int inside(const struct pv_profile *p, const void *col)
{
	const char *c = col, *b = p->storage.base;
	return c && b && c >= b && c < b + p->storage.len;
}

static int same_col(const void *a, const void *b, size_t n)
{
	return (!a && !b) || (a && b && memcmp(a, b, n) == 0);
}

/* A callgrind file (function costs and a call graph) and a Firefox one (markers, categories,
 * event delays) come back column for column, the columns in the mapping. */
static void round_trip(const char *path)
{
	struct pv_profile *a = import(path);
	struct pv_error err;
	T_TRUE(a != NULL);
	if (!a)
		return;
	T_EQ_INT(pv_snapshot_write(a, tmp("rt.pvs"), NULL, &err), 0);
	struct pv_profile *b = NULL;
	T_EQ_INT(pv_import_file(tmp("rt.pvs"), NULL, &b, &err), 0);
	if (!b) {
		pv_profile_free(a);
		return;
	}
	T_EQ_STR(pv_str(b, b->meta.format), pv_str(a, a->meta.format));
	T_EQ_INT(b->meta.interval_ns, a->meta.interval_ns);
	T_EQ_INT(b->strings.len, a->strings.len);
	for (uint32_t i = 0; i < a->strings.len; i++)
		if (strcmp(pv_str(a, i), pv_str(b, i)) != 0)
			t_fail(__FILE__, __LINE__, "string %u differs", i);
	T_EQ_INT(b->samples.len, a->samples.len);
	T_TRUE(same_col(a->samples.stack, b->samples.stack, a->samples.len * 4));
	T_TRUE(same_col(a->samples.time_ns, b->samples.time_ns, a->samples.len * 8));
	T_TRUE(same_col(a->samples.event_delay_ns, b->samples.event_delay_ns, a->samples.len * 8));
	for (uint32_t m = 0; m < a->metrics.len; m++)
		T_TRUE(same_col(a->samples.weight[m], b->samples.weight[m], a->samples.len * 8));
	T_EQ_INT(b->stacks.len, a->stacks.len);
	T_TRUE(same_col(a->stacks.prefix, b->stacks.prefix, a->stacks.len * 4));
	T_TRUE(same_col(a->frames.addr, b->frames.addr, a->frames.len * 8));
	T_EQ_INT(b->markers.len, a->markers.len);
	T_TRUE(same_col(a->markers.payload, b->markers.payload, a->markers.len * 4));
	T_EQ_INT(b->diags.len, a->diags.len);
	T_TRUE(same_col(a->diags.count, b->diags.count, a->diags.len * 8));
	T_EQ_INT(b->callgraph.nr_edges, a->callgraph.nr_edges);
	T_TRUE(same_col(a->callgraph.calls, b->callgraph.calls, a->callgraph.nr_edges * 8));
	T_TRUE((a->func_costs.self == NULL) == (b->func_costs.self == NULL));
	for (uint32_t m = 0; a->func_costs.self && m < a->metrics.len; m++)
		T_TRUE(same_col(a->func_costs.total[m], b->func_costs.total[m], a->funcs.len * 8));
	/* not copied: the columns are the file's bytes */
	T_TRUE(b->storage.base != NULL);
	T_TRUE(inside(b, b->samples.stack) || !b->samples.len);
	T_TRUE(inside(b, b->strings.size));
	T_TRUE(inside(b, pv_str(b, b->strings.len - 1)));
	pv_profile_free(a);
	pv_profile_free(b);
}

T_TEST(snapshot_round_trip)
{
	round_trip(t_data("callgrind/gzip.callgrind"));
	round_trip(t_corpus("firefox/generated-processed-v70-marker-table.json"));
	round_trip(t_data("perf/inline-dwarf.perf.txt.gz"));
}

/* Opens the first n bytes of a snapshot from memory: 0, or the error's code with err set. */
static int open_bytes(const unsigned char *b, size_t n, struct pv_error *err)
{
	struct pv_profile *p = NULL;
	pv_error_clear(err);
	int rc = pv_import_memory("s.pvs", b, n, NULL, &p, err);
	pv_profile_free(p);
	return rc;
}

/* The first cut bytes of a snapshot fail with the byte named; an empty input is said empty. */
static void expect_cut(const unsigned char *b, size_t cut, int line)
{
	struct pv_error err;
	int rc = open_bytes(b, cut, &err);
	if (cut == 0 ? strcmp(err.msg, "s.pvs: is empty (a profile was expected)") != 0
		     : rc != PV_EPARSE || !strstr(err.msg, "s.pvs: byte ") ||
			   (cut < 64 && !strstr(err.msg, "snapshot cut short: ")))
		t_fail(__FILE__, line, "cut at %zu: %d %s", cut, rc, err.msg);
}

/* The byte offsets where the header, the section table and each section start and end. */
static size_t boundaries(const unsigned char *b, size_t len, size_t *out, size_t cap)
{
	size_t n = 0;
	uint32_t nr;
	memcpy(&nr, b + 24, 4);
	out[n++] = 0;
	out[n++] = 8;
	out[n++] = 64;
	for (uint32_t i = 0; i < nr && n + 3 < cap; i++) {
		uint64_t off, size;
		memcpy(&off, b + 64 + i * 32 + 8, 8);
		memcpy(&size, b + 64 + i * 32 + 16, 8);
		out[n++] = 64 + (size_t)(i + 1) * 32;
		out[n++] = (size_t)off;
		out[n++] = (size_t)(off + size);
	}
	out[n++] = len;
	return n;
}

T_TEST(snapshot_cut_at_every_boundary)
{
	size_t len;
	unsigned char *b = snapshot_bytes(t_data("callgrind/gzip.callgrind"), "cut.pvs", &len);
	T_TRUE(b != NULL);
	if (!b)
		return;
	struct pv_error err;
	T_EQ_INT(open_bytes(b, len, &err), 0);
	size_t at[1024];
	size_t n = boundaries(b, len, at, 1024);
	T_TRUE(n > 100); /* a callgrind profile has more than 30 sections */
	for (size_t i = 0; i < n; i++) {
		for (int d = -1; d <= 1; d++) {
			size_t cut = at[i] + (size_t)d;
			if (at[i] == 0 && d < 0)
				continue;
			if (cut < len)
				expect_cut(b, cut, __LINE__);
		}
	}
	/* the message says what was expected */
	open_bytes(b, len - 1, &err);
	T_CONTAINS(err.msg, "snapshot cut short");
	free(b);
}

T_TEST(snapshot_cut_at_every_byte_and_flipped)
{
	size_t len;
	unsigned char *b = snapshot_bytes(t_data("collapsed/recursion.txt"), "flip.pvs", &len);
	T_TRUE(b != NULL);
	if (!b)
		return;
	struct pv_error err;
	/* every length short of the whole */
	for (size_t cut = 0; cut < len; cut++)
		expect_cut(b, cut, __LINE__);
	/* every byte flipped: found (the checksums, and the padding between sections is zeros) */
	for (size_t i = 0; i < len; i++) {
		b[i] ^= 0x20;
		int rc = open_bytes(b, len, &err);
		b[i] ^= 0x20;
		if (i < 8 && rc == PV_EFORMAT) /* no longer a snapshot's magic */
			continue;
		if (rc >= 0 || !strstr(err.msg, "s.pvs: byte "))
			t_fail(__FILE__, __LINE__, "byte %zu flipped: %d %s", i, rc, err.msg);
	}
	/* a damaged section is named, at its offset */
	uint64_t off;
	memcpy(&off, b + 64 + 8, 8); /* the first section of the table */
	b[off] ^= 1;
	open_bytes(b, len, &err);
	T_CONTAINS(err.msg, "damaged (");
	T_CONTAINS(err.msg, "checksum does not match");
	b[off] ^= 1;
	free(b);
}

T_TEST(snapshot_other_version_and_crafted)
{
	size_t len;
	unsigned char *b = snapshot_bytes(t_data("collapsed/recursion.txt"), "ver.pvs", &len);
	T_TRUE(b != NULL);
	if (!b)
		return;
	struct pv_error err;
	uint32_t cur, v = 1; /* the version written (doc/snapshot.md), then an old one */
	memcpy(&cur, b + 8, 4);
	T_TRUE(cur >= 6);
	memcpy(b + 8, &v, 4);
	T_EQ_INT(open_bytes(b, len, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "s.pvs: byte 8: snapshot version 1 (written by profview ");
	char ver[64];
	snprintf(ver, sizeof(ver), "this profview reads version %u", cur);
	T_CONTAINS(err.msg, ver);
	memcpy(b + 8, &cur, 4);
	T_EQ_INT(open_bytes(b, len, &err), 0);

	/* a stack's frame out of range, every checksum made valid again: the model's check */
	uint32_t nr;
	memcpy(&nr, b + 24, 4);
	int found = 0;
	for (uint32_t i = 0; i < nr; i++) {
		unsigned char *e = b + 64 + i * 32;
		uint32_t id;
		uint64_t off, size;
		memcpy(&id, e, 4);
		memcpy(&off, e + 8, 8);
		memcpy(&size, e + 16, 8);
		if (id != 40 || size < 4) /* stacks.frame (doc/snapshot.md) */
			continue;
		uint32_t bad = 1000;
		memcpy(b + off, &bad, 4);
		uint64_t h = hash_bytes(b + off, (size_t)size);
		memcpy(e + 24, &h, 8);
		found = 1;
	}
	T_TRUE(found);
	t_snapshot_reseal(b);
	T_EQ_INT(open_bytes(b, len, &err), PV_EPARSE);
	T_EQ_STR(err.msg, "s.pvs: snapshot breaks an invariant of the model (damaged, or not "
			  "written by profview): stacks[0].frame: 1000 out of range");

	/* the call graph's metric count huge (a fuzzer's find: freeing the profile walked it):
	 * the meta section is the table's first entry (id 1), its word 19 that count */
	free(b);
	b = snapshot_bytes(t_data("collapsed/recursion.txt"), "ver.pvs", &len);
	T_TRUE(b != NULL);
	if (!b)
		return;
	uint64_t meta_off, meta_size, huge = (uint64_t)1 << 30;
	memcpy(&meta_off, b + 64 + 8, 8);
	memcpy(&meta_size, b + 64 + 16, 8);
	memcpy(b + meta_off + 19 * 8, &huge, 8);
	uint64_t mh = hash_bytes(b + meta_off, (size_t)meta_size);
	memcpy(b + 64 + 24, &mh, 8);
	t_snapshot_reseal(b);
	T_EQ_INT(open_bytes(b, len, &err), PV_EPARSE);
	char want[160];
	snprintf(want, sizeof(want),
		 "s.pvs: byte %llu: snapshot callgraph.metrics: 1073741824, 0 or the 1 metrics "
		 "expected",
		 (unsigned long long)(meta_off + 19 * 8));
	T_EQ_STR(err.msg, want);

	/* a section past the end of the file, checksums valid */
	uint64_t off = (uint64_t)len;
	memcpy(b + 64 + 8, &off, 8);
	t_snapshot_reseal(b);
	T_EQ_INT(open_bytes(b, len, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "s.pvs: byte 72: snapshot section meta: bytes [");
	T_CONTAINS(err.msg, "are not inside the file's data");
	free(b);
}

/* Sets path's modification time to t seconds. */
static void set_mtime(const char *path, time_t t)
{
	struct timespec ts[2] = {{t, 0}, {t, 0}};
	utimensat(AT_FDCWD, path, ts, 0);
}

T_TEST(snapshot_cache)
{
	char src[128];
	snprintf(src, sizeof(src), "%s", tmp("profile.txt"));
	FILE *f = fopen(src, "w");
	T_TRUE(f != NULL);
	if (!f)
		return;
	fputs("main;work 3\nmain 1\n", f);
	fclose(f);
	set_mtime(src, 1000000000);
	char dir[128];
	snprintf(dir, sizeof(dir), "%s", tmp("cache"));
	struct pv_import_opts o = {0};
	struct pv_error err, note;
	T_EQ_INT(pv_import_set_option(&o, "cache", dir, &err), 0);
	T_EQ_INT(pv_import_set_option(&o, "depth", "3", &err), 1);
	T_EQ_INT(pv_import_set_option(&o, "cache", "", &err), PV_EINVAL);
	T_EQ_STR(err.msg, "--cache takes a folder, not an empty value");
	struct pv_profile *p = NULL;
	/* first: imported, the entry written */
	T_EQ_INT(pv_import_open(src, &o, &p, &err, &note), 0);
	T_EQ_STR(note.msg, "");
	T_TRUE(p && p->storage.base == NULL);
	T_EQ_INT(p ? p->samples.len : 0, 2);
	pv_profile_free(p);
	/* again: from the snapshot */
	p = NULL;
	T_EQ_INT(pv_import_open(src, &o, &p, &err, &note), 0);
	T_TRUE(p && p->storage.base != NULL);
	T_EQ_STR(p ? pv_str(p, p->meta.format) : "", "collapsed");
	pv_profile_free(p);
	/* the file changed (same size, another time): imported again */
	f = fopen(src, "w");
	fputs("main;rest 3\nmain 1\n", f);
	fclose(f);
	set_mtime(src, 1000000001);
	p = NULL;
	T_EQ_INT(pv_import_open(src, &o, &p, &err, &note), 0);
	T_TRUE(p && p->storage.base == NULL);
	T_TRUE(p && pv_str(p, p->funcs.name[1])[0] == 'r');
	pv_profile_free(p);
	/* a damaged entry: said in the note, the file imported again, the entry written over */
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "for e in %s/*.pvs; do printf 'XXXXXXXX' | dd of=\"$e\" bs=1 "
		 "seek=300 conv=notrunc 2>/dev/null; done",
		 dir);
	T_EQ_INT(system(cmd), 0);
	p = NULL;
	T_EQ_INT(pv_import_open(src, &o, &p, &err, &note), 0);
	T_TRUE(p && p->storage.base == NULL);
	T_CONTAINS(note.msg, "cache: ");
	T_CONTAINS(note.msg, "damaged");
	T_CONTAINS(note.msg, "(imported again)");
	pv_profile_free(p);
	p = NULL;
	T_EQ_INT(pv_import_open(src, &o, &p, &err, &note), 0);
	T_TRUE(p && p->storage.base != NULL);
	T_EQ_STR(note.msg, "");
	pv_profile_free(p);
	/* a cache folder that cannot be made: the profile all the same, and a note */
	o.cache_dir = "/proc/no-such-folder";
	p = NULL;
	T_EQ_INT(pv_import_open(src, &o, &p, &err, &note), 0);
	T_TRUE(p != NULL);
	T_CONTAINS(note.msg, "cache: /proc/no-such-folder: cannot make the folder");
	pv_profile_free(p);
}

/*
 * A section of 1 MiB or more is checksummed on the helper thread the open leaves running: the
 * open succeeds, pv_profile_check says the damage, and so does every command (exit 2, one line).
 */
T_TEST(snapshot_big_section_checked_after_open)
{
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
	pv_thread_ix t = builder_thread(&b, builder_cstr(&b, "main"), 1, 1, 0);
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	pv_stack_ix st = builder_stack(
	    &b, PV_NONE,
	    builder_func_frame(&b, builder_func(&b, builder_cstr(&b, "f"), PV_NONE, PV_NONE, 0)));
	enum { N = 200000 }; /* 1.6 MB of times */
	for (uint32_t i = 0; i < N; i++)
		builder_sample(&b, t, st, (int64_t)i * 1000, NULL);
	struct pv_profile *p = NULL;
	T_EQ_INT(builder_finish(&b, &p), 0);
	struct pv_error err;
	char path[128];
	snprintf(path, sizeof(path), "%s", tmp("big.pvs"));
	T_EQ_INT(pv_snapshot_write(p, path, NULL, &err), 0);
	pv_profile_free(p);
	size_t len;
	unsigned char *bytes = (unsigned char *)t_read_file(path, &len);
	T_TRUE(bytes != NULL);
	if (!bytes)
		return;
	/* the time column's last byte */
	uint32_t nr;
	memcpy(&nr, bytes + 24, 4);
	uint64_t off = 0, size = 0;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t id;
		memcpy(&id, bytes + 64 + i * 32, 4);
		if (id == 52) { /* samples.time_ns (doc/snapshot.md) */
			memcpy(&off, bytes + 64 + i * 32 + 8, 8);
			memcpy(&size, bytes + 64 + i * 32 + 16, 8);
		}
	}
	T_EQ_U64(size, (uint64_t)N * 8);
	bytes[off + size - 1] ^= 1;
	FILE *f = fopen(path, "wb");
	T_TRUE(f && fwrite(bytes, 1, len, f) == len);
	if (f)
		fclose(f);
	free(bytes);
	p = NULL;
	T_EQ_INT(pv_import_file(path, NULL, &p, &err), 0); /* every index is right */
	T_TRUE(p != NULL);
	if (!p)
		return;
	char want[256];
	snprintf(want, sizeof(want),
		 "%s: byte %llu: snapshot section samples.time_ns[0] damaged (1600000 bytes: their "
		 "checksum does not match)",
		 path, (unsigned long long)off);
	T_EQ_INT(pv_profile_check(p, &err), PV_EPARSE);
	T_EQ_STR(err.msg, want);
	T_EQ_INT(pv_profile_check(p, &err), PV_EPARSE); /* asked again: the same */
	T_EQ_STR(err.msg, want);
	pv_profile_free(p);
}

/* Writes rows [lo, hi) of the elt-byte sample column col at off of the file fd. */
static void write_slice(int fd, const void *col, size_t elt, uint32_t lo, uint32_t hi, uint64_t off)
{
	size_t n = (size_t)(hi - lo) * elt;
	T_TRUE(pwrite(fd, (const char *)col + (size_t)lo * elt, n, (off_t)(off + lo * elt)) ==
	       (ssize_t)n);
}

/*
 * A snapshot whose sample columns two writers fill (profview merge under MPI, doc/merge.md):
 * each writes its slice of rows into the holes, in any order; the file is byte for byte the one
 * pv_snapshot_write makes, and it opens with every checksum right.
 */
static void parts_equal_whole(const char *path)
{
	struct pv_profile *p = import(path);
	if (!p)
		return;
	struct pv_error err;
	T_EQ_INT(pv_snapshot_write(p, tmp("whole.pvs"), NULL, &err), 0);
	/* the tables without the rows, the threads' ranges kept */
	struct pv_samples s = p->samples;
	uint8_t weight[64] = {0};
	for (uint32_t k = 0; s.weight && k < p->metrics.len && k < 64; k++)
		weight[k] = s.weight[k] != NULL;
	struct pv_snapshot_rows rows = {
	    .rows = s.len,
	    .cols = (s.time_ns ? PV_SNAP_TIME : 0u) | (s.label_set ? PV_SNAP_LABEL_SET : 0u) |
		    (s.event_delay_ns ? PV_SNAP_EVENT_DELAY : 0u) | (s.addr ? PV_SNAP_ADDR : 0u),
	    .weight = weight};
	p->samples.len = 0;
	struct pv_snapshot_parts *sp = NULL;
	T_EQ_INT(pv_snapshot_parts_begin(p, &rows, tmp("parts.pvs"), &sp, &err), 0);
	p->samples.len = s.len;
	if (!sp) {
		pv_profile_free(p);
		return;
	}
	T_EQ_U64(pv_snapshot_parts_offset(sp, 55, 0), 0); /* not a hole */
	int fd = open(pv_snapshot_parts_file(sp), O_WRONLY);
	T_TRUE(fd >= 0);
	uint32_t half = s.len / 3;
	for (int part = 1; fd >= 0 && part >= 0; part--) { /* the second slice first */
		uint32_t lo = part ? half : 0, hi = part ? s.len : half;
		write_slice(fd, s.stack, 4, lo, hi, pv_snapshot_parts_offset(sp, 51, 0));
		if (s.time_ns)
			write_slice(fd, s.time_ns, 8, lo, hi, pv_snapshot_parts_offset(sp, 52, 0));
		if (s.label_set)
			write_slice(fd, s.label_set, 4, lo, hi,
				    pv_snapshot_parts_offset(sp, 53, 0));
		if (s.event_delay_ns)
			write_slice(fd, s.event_delay_ns, 8, lo, hi,
				    pv_snapshot_parts_offset(sp, 54, 0));
		if (s.addr)
			write_slice(fd, s.addr, 8, lo, hi, pv_snapshot_parts_offset(sp, 90, 0));
		for (uint32_t k = 0; k < p->metrics.len && k < 64; k++)
			if (weight[k])
				write_slice(fd, s.weight[k], 8, lo, hi,
					    pv_snapshot_parts_offset(sp, 128, k));
	}
	if (fd >= 0)
		close(fd);
	T_EQ_INT(pv_snapshot_parts_finish(sp, &err), 0);
	pv_snapshot_parts_free(sp);
	pv_profile_free(p);
	size_t la = 0, lb = 0;
	char *a = t_read_file(tmp("whole.pvs"), &la), *b = t_read_file(tmp("parts.pvs"), &lb);
	T_EQ_U64(lb, la);
	T_TRUE(a && b && la == lb && memcmp(a, b, la) == 0);
	free(a);
	free(b);
	struct pv_profile *q = NULL;
	T_EQ_INT(pv_import_file(tmp("parts.pvs"), NULL, &q, &err), 0);
	T_EQ_INT(q ? pv_profile_check(q, &err) : -1, 0);
	pv_profile_free(q);
}

T_TEST(snapshot_written_in_parts)
{
	parts_equal_whole(t_data("perf/inline-dwarf.perf.txt.gz"));
	parts_equal_whole(t_corpus("firefox/generated-processed-v70-marker-table.json"));
	parts_equal_whole(t_data("callgrind/gzip.callgrind"));
}
