/*
 * tp.h - the helpers every unit test shares to read a profile and look into it: load a file or a
 * text (imported and validated), check an import error, sum a metric, name a stack, find a
 * function or a diagnostic, and a reproducible random stream for the cut-and-mutate tests.
 * A helper that finds something wrong fails the calling test at the caller's file and line.
 */
#ifndef PV_TEST_TP_H
#define PV_TEST_TP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pv/error.h"
#include "pv/import.h"
#include "pv/profile.h"

/*
 * A profile file imported (format NULL: probed) and validated. An import error fails the test
 * and gives NULL; an invalid profile fails the test and is returned all the same. With expect,
 * the profile must have been read as that format.
 */
struct pv_profile *tp_load_at(const char *file, int line, const char *path, const char *format,
			      const char *expect);
#define t_load(path)		    tp_load_at(__FILE__, __LINE__, (path), NULL, NULL)
#define t_load_format(path, format) tp_load_at(__FILE__, __LINE__, (path), (format), NULL)
#define t_load_as(path, expect)	    tp_load_at(__FILE__, __LINE__, (path), NULL, (expect))
/* A file of tests/data (rel: its path there), imported as t_load does. */
#define t_load_data(rel) tp_load_at(__FILE__, __LINE__, t_data(rel), NULL, NULL)

/*
 * text[0..len) imported as a file called name (format NULL: probed). Returns 0 with *p a valid
 * profile, or the import's error code with *p NULL and err set; an invalid profile fails the
 * test, is freed and gives -100.
 */
int tp_import_text_at(const char *file, int line, const char *name, const char *text, size_t len,
		      const char *format, struct pv_profile **p, struct pv_error *err);
#define t_import_text(name, text, len, format, p, err) \
	tp_import_text_at(__FILE__, __LINE__, (name), (text), (len), (format), (p), (err))
/* The same for a NUL-terminated text. */
#define t_import_str(name, text, format, p, err) \
	tp_import_text_at(__FILE__, __LINE__, (name), (text), strlen(text), (format), (p), (err))

/*
 * text[0..len) imported as a file called name (format NULL: probed) and validated; with expect,
 * it must have been read as that format. A failure fails the test and gives NULL. t_load_text
 * and t_load_text_format take a NUL-terminated text.
 */
struct pv_profile *tp_load_mem_at(const char *file, int line, const char *name, const char *text,
				  size_t len, const char *format, const char *expect);
#define t_load_mem(name, text, len) \
	tp_load_mem_at(__FILE__, __LINE__, (name), (text), (len), NULL, NULL)
#define t_load_text(name, text, expect) \
	tp_load_mem_at(__FILE__, __LINE__, (name), (text), strlen(text), NULL, (expect))
#define t_load_text_format(name, text, format) \
	tp_load_mem_at(__FILE__, __LINE__, (name), (text), strlen(text), (format), NULL)

/*
 * The import of text (NUL-terminated) must fail with code and one line of message holding want;
 * the message is returned in err (NULL: not wanted).
 */
void tp_expect_error_at(const char *file, int line, const char *name, const char *text,
			const char *format, int code, const char *want, struct pv_error *err);
#define t_expect_error(name, text, format, code, want, err) \
	tp_expect_error_at(__FILE__, __LINE__, (name), (text), (format), (code), (want), (err))

/*
 * A damaged input (cut or mutated): it imports to a valid profile whose markers derive (or say
 * why not), or fails with one line that names the file and leaves no profile. Returns the
 * import's code (the profile is freed).
 */
int tp_check_damaged_at(const char *file, int line, const char *name, const char *buf, size_t len,
			const char *format);
#define t_check_damaged(name, buf, len, format) \
	tp_check_damaged_at(__FILE__, __LINE__, (name), (buf), (len), (format))

/*
 * The cut-and-mutate test of one recording: about `cuts` evenly spaced prefixes of buf, each
 * imported under every one of formats, then `mutations` copies with one to three bytes replaced
 * by bytes of junk, imported under mutate_format; each checked by t_check_damaged.
 */
struct t_damage {
	const char *const *formats;
	size_t nr_formats;
	size_t cuts;
	const char *mutate_format;
	int mutations;
	const char *junk;
	uint64_t *rng; /* the file's t_rng state */
};
void tp_damage_at(const char *file, int line, const char *name, const char *buf, size_t len,
		  const struct t_damage *d);
#define t_damage(name, buf, len, d) tp_damage_at(__FILE__, __LINE__, (name), (buf), (len), (d))

/*
 * The import of text[0..len) with its k-th allocation failing, for k = 1, 2, ... up to max:
 * each failure must say "out of memory" and leave no profile (ASan finds what leaks); the first
 * import that succeeds ends the sweep, and its profile is returned validated (NULL when none
 * did by max, which fails the test). *failed counts the imports that failed.
 */
struct pv_profile *tp_import_oom_at(const char *file, int line, const char *name, const char *text,
				    size_t len, const char *format, uint64_t max, int *failed);
#define t_import_oom(name, text, len, format, max, failed) \
	tp_import_oom_at(__FILE__, __LINE__, (name), (text), (len), (format), (max), (failed))

/* Metric m summed over every sample. */
int64_t t_total(const struct pv_profile *p, pv_metric_ix m);
/* The same for the metric named metric; -1 when the profile has none. */
int64_t t_total_named(const struct pv_profile *p, const char *metric);
/* The function names of stack s, root first, joined by sep, into buf (cut to n bytes). */
void t_stack_path(const struct pv_profile *p, pv_stack_ix s, const char *sep, char *buf, size_t n);
/* The first function named name, PV_NONE when none. */
pv_func_ix t_find_func(const struct pv_profile *p, const char *name);
/* The function name of sample i's leaf frame ("" for an empty stack). */
const char *t_leaf_name(const struct pv_profile *p, uint32_t i);
/* The first diagnostic whose text holds needle (its count in *count), NULL when none. */
const char *t_diag(const struct pv_profile *p, const char *needle, uint64_t *count);
/* The count of the first diagnostic whose text holds needle, 0 when none. */
uint64_t t_diag_count(const struct pv_profile *p, const char *needle);
/*
 * Whether the JSON texts a and b hold the same values: the same tokens in the same order (keys
 * and strings compared decoded, numbers as written), whatever the spaces and line breaks. A text
 * that is not JSON is compared byte for byte. T_JSON_EQ checks it, printing both on a mismatch.
 */
bool t_json_same(const char *a, const char *b);
#define T_JSON_EQ(got, want)                                                                    \
	do {                                                                                    \
		const char *g_ = (got), *w_ = (want);                                           \
		if (!g_ || !w_ || !t_json_same(g_, w_))                                         \
			t_fail(__FILE__, __LINE__, "%s == %s (as JSON):\n  got  %s\n  want %s", \
			       #got, #want, g_ ? g_ : "(null)", w_ ? w_ : "(null)");            \
	} while (0)
/* s (a JSON text) without the spaces and line breaks between its tokens, in place; returns s. */
char *t_json_compact(char *s);
/* Whether JSON text json holds fragment, both compacted: a layout-free substring check. */
bool t_json_has(const char *json, const char *fragment);
#define T_JSON_HAS(json, fragment)                                                             \
	do {                                                                                   \
		const char *j_ = (json), *f_ = (fragment);                                     \
		if (!j_ || !t_json_has(j_, f_))                                                \
			t_fail(__FILE__, __LINE__, "%s holds %s (as JSON): \"%s\"", #json, f_, \
			       j_ ? j_ : "(null)");                                            \
	} while (0)
/* The next value of a splitmix64 stream (*state its state: same seed, same stream). */
uint64_t t_rng(uint64_t *state);

/*
 * The list of p at line granularity (`top --by line`: one row per (function, line), what the
 * source pane sums), centered on center (a scope, NULL: none), default metric. A failure
 * fails the test and gives NULL; pv_view_free the view.
 */
struct pv_view;
struct pv_view *tp_line_view_at(const char *file, int line, const struct pv_profile *p,
				const char *center);
#define t_line_view(p, center) tp_line_view_at(__FILE__, __LINE__, (p), (center))

/*
 * A snapshot's header and section table checksums made valid again after an edit of the table
 * (doc/snapshot.md), as a crafted file would have them.
 */
void t_snapshot_reseal(unsigned char *b);
/*
 * Sets the 64-bit word k of the first section of id to v and makes its checksum and the header's
 * valid again; false when the snapshot has no such section or it is shorter.
 */
bool t_snapshot_set_word(unsigned char *b, uint32_t id, uint32_t k, int64_t v);

#endif
