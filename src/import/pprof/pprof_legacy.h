/*
 * pprof_legacy.h - the legacy pprof importer's state and what its two files share:
 * pprof_legacy.c (errors, text helpers, memory maps, binary CPU profiles, probe, the model) and
 * pprof_legacy_text.c (the text profiles). Internal to the importer: shared functions start
 * with lp_.
 */
#ifndef PV_IMPORT_PPROF_LEGACY_H
#define PV_IMPORT_PPROF_LEGACY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"
#include "base/vec.h"
#include "import/importer.h"

#define MAX_VALUES     4
#define MAX_ATTRS      64
#define MAX_SUBST_LINE ((size_t)1 << 20)
#define LOC_NO_MAP     UINT32_MAX
#define LOC_FAKE_MAP   (UINT32_MAX - 1)

enum adjust { ADJUST_NONE, ADJUST_CALLERS, ADJUST_ALL };

enum family {
	FAM_NONE = 0,
	FAM_CPU,
	FAM_JAVA_CPU,
	FAM_HEAP,
	FAM_COUNT,
	FAM_THREAD,
	FAM_CONTENTION,
	FAM_JAVA_HEAP,
	FAM_JAVA_CONTENTION,
};

struct lmap {
	uint64_t start, limit, offset;
	pv_str_ix file; /* 0 = none */
};

struct lloc {
	uint64_t addr;
	uint32_t map;	   /* row of maps, LOC_FAKE_MAP or LOC_NO_MAP */
	pv_str_ix name;	   /* Java: the symbol's function, 0 when not symbolized */
	pv_str_ix file;	   /* Java: its file, 0 when none */
	uint32_t line;	   /* Java: its line, 0 when none */
	uint32_t seen;	   /* referenced by a sample after the CPU fixes */
	pv_frame_ix frame; /* PV_NONE until made */
};

struct lsample {
	int64_t v[MAX_VALUES];
	uint32_t first, n; /* leaf-first location rows in lp.stk */
	int64_t bytes;	   /* heap: the block size label */
	uint8_t has_bytes;
};

struct lp {
	struct pv_input *in;
	struct pv_builder *b;
	struct pv_error *err;
	enum family fam;
	const char *version; /* meta.format_version */
	unsigned nvals;
	const char *type[MAX_VALUES], *unit[MAX_VALUES];
	const char *period_type, *period_unit;
	int64_t period, duration_ns;
	struct vec samples; /* struct lsample */
	struct vec locs;    /* struct lloc */
	struct vec stk;	    /* uint32_t location rows */
	struct vec maps;    /* struct lmap */
	struct u64map addr_map;
	/* text cursor */
	const char *p, *end;
	char *subst; /* a memory map line after $attr substitution */
	size_t subst_cap;
	struct {
		const char *key, *val; /* NUL-terminated, interned */
		size_t klen, vlen;
	} attrs[MAX_ATTRS];
	unsigned nr_attrs;
	/* the import report */
	uint64_t sig_frames, dup_leaves, no_trailer, map_nonexec, map_unknown, map_attrs_dropped;
	uint64_t skipped_lines, same_as_prev, threads, fake_locs, unsym_java, discarded;
	uint64_t unknown_attrs, line_range, heap_unsampled, hugepage, rebased, split_maps;
	uint64_t merged_maps;
	const char *unknown_attr_example;
	int heap_sampling; /* the heap was unsampled at rate period */
	int64_t heap_rate;
};

/* ---------------------------------------------------------------- heap */

/* "heap profile: A: B [C: D] @ WHAT" */
struct lp_heap_header {
	const char *n[4][2];
	const char *what, *what_end; /* heap[_a-z0-9]*, growthz, fragmentationz */
	const char *rate, *rate_end;
};

/* ---- pprof_legacy.c ---- */

int lp_text_error(struct lp *t, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int lp_oom(struct lp *t);
int lp_next_line(const char **p, const char *end, const char **s, const char **e);
void lp_trim(const char **s, const char **e);
int lp_blank_or_comment(const char *s, const char *e);
int lp_first_text_line(const char **p, const char *end, const char **s, const char **e);
int lp_map_trigger(const char *s, const char *e);
int lp_parse_dec(const char *s, const char *e, int64_t *out);
int lp_parse_int0(const char *s, const char *e, int64_t *out);
int lp_parse_hex(const char *s, const char *e, uint64_t *out);
const char *lp_hex_run(const char *s, const char *e);
const char *lp_digit_run(const char *s, const char *e);
struct lsample *lp_new_sample(struct lp *t);
int lp_scan_addrs(struct lp *t, const char *s, const char *e, enum adjust adjust, uint32_t *n);
const char *lp_addr_span_end(const char *s, const char *e);
bool lp_ws(char c);
int lp_additional_sections(struct lp *t, const char *s, const char *e, int have_line);
void lp_drop_dup_leaves(struct lp *t);

/* pprof_legacy_common.c: what only the binary reader and the model use besides the above */
int lp_is_space(char c);
int lp_push_addr(struct lp *t, uint64_t addr);
int lp_parse_maps(struct lp *t, const char *p, const char *end);
int lp_assign_mappings(struct lp *t, const uint32_t *order, uint32_t nr);

/* ---- pprof_legacy_text.c ---- */

int lp_heap_header(const char *s, const char *e, struct lp_heap_header *h);
int lp_parse_heap(struct lp *t);
int lp_parse_count(struct lp *t);
int lp_thread_start(const char *s, const char *e);
int lp_parse_thread(struct lp *t);
int lp_parse_contention(struct lp *t);
int lp_parse_java(struct lp *t, int heap);
int lp_parse_java_symbols(struct lp *t, const char *p, const char *end);

#endif
