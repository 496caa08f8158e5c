/*
 * merge.h - many profiles as one, each of their threads an execution context (doc/merge.md).
 *
 * A merge reads its inputs in a fixed order and adds each to one profile: strings, categories,
 * modules, sources, functions, frames, stacks, metrics, labels and label sets are interned by
 * content (the same function of two inputs is one row), so every view and the per-context plots
 * (pv/contexts.h) see one table; each thread of each input becomes a thread (an execution
 * context) of its own, named by a pattern over the input's file name and the thread; samples
 * and markers follow their threads. Every table is the ordered union of the inputs' tables:
 * rows in the order in which the inputs, read one after the other, first name them.
 *
 * That order is associative, which is what a parallel merge needs: adding the merge of inputs
 * [a, b) and then the merge of [b, c) (pv_merge_add_partial) gives the same profile, byte for
 * byte once written, as adding inputs a .. c - 1 one by one. So MPI ranks merge disjoint,
 * consecutive shares of the inputs and reduce their partial merges in any tree that keeps
 * the shares in order.
 */
#ifndef PV_MERGE_H
#define PV_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "pv/profile.h"

struct pv_merge_opts {
	const char *format; /* every input read as this importer; NULL: each probed */
	/*
	 * POSIX extended regular expression matched against each input's file name (its last
	 * path component); its groups are {1} .. {9} in context_name. NULL: none. An input whose
	 * name does not match is an error.
	 */
	const char *context_regex;
	/* context_regex is matched against the path as given, not the file name (its groups too) */
	bool regex_on_path;
	/*
	 * The name of each context: text with placeholders {0} .. {9} (the regex's match and
	 * groups), {file} (the file name), {dir} (the name of the folder that holds it, "." for
	 * a path without one), {path} (as given), {thread} (the thread's own name,
	 * "#K" for its index in the input when it has none), {process}, {pid}, {tid} (empty when
	 * unknown) and {input} (the input's index in the whole list, from 0). NULL: "{file}" for an
	 * input of one thread, "{file} {thread}" for the threads of an input of several.
	 */
	const char *context_name;
	/* Called with each lossy step that the merged profile cannot hold (may be NULL). */
	void (*note)(void *ctx, const char *msg);
	void *note_ctx;
};

struct pv_merge;

/*
 * A new, empty merge. Checks the options: returns 0, PV_EINVAL (err: a regex that does not
 * compile, a placeholder that is unknown or names a group the regex does not have) or
 * PV_ENOMEM.
 */
int pv_merge_new(const struct pv_merge_opts *o, struct pv_merge **out, struct pv_error *err);
void pv_merge_free(struct pv_merge *m);

/*
 * Imports path (a file or a profile folder) and adds it as input number index of the whole list.
 * Returns 0 or the import's error (err names the file), PV_EINVAL when its name does not match
 * the regex, PV_ENOMEM, PV_ELIMIT (a table past 2^32 - 2 rows).
 */
int pv_merge_add_file(struct pv_merge *m, const char *path, uint64_t index, struct pv_error *err);
/* The same for a profile already imported from path. */
int pv_merge_add_profile(struct pv_merge *m, const struct pv_profile *p, const char *path,
			 uint64_t index, struct pv_error *err);
/*
 * Adds a partial merge (the profile pv_merge_finish made of the inputs that follow those added
 * so far): its threads keep their names. Returns 0, PV_ENOMEM or PV_ELIMIT.
 */
int pv_merge_add_partial(struct pv_merge *m, const struct pv_profile *part, struct pv_error *err);
/*
 * What a profile's rows are in the merge it was added to: its stack, metric and label set
 * number i is the merge's stack[i], metric[i], lset[i] (pv_merge_map_free frees them).
 */
struct pv_merge_map {
	uint32_t *stack, *metric, *lset;
	uint32_t nstack, nmetric, nlset;
};
/*
 * Adds a partial merge (as pv_merge_add_partial) without its sample rows: its threads are
 * contexts without samples, its tables (the dictionaries the rows point into) are merged, and
 * *map says where its rows go (what `profview merge` under MPI sends up its tree, each rank
 * writing its own rows into the file). Returns 0, PV_ENOMEM or PV_ELIMIT.
 */
int pv_merge_add_dictionary(struct pv_merge *m, const struct pv_profile *part,
			    struct pv_merge_map *map, struct pv_error *err);
void pv_merge_map_free(struct pv_merge_map *map);
/* How many inputs and partials were added. */
uint64_t pv_merge_count(const struct pv_merge *m);

/*
 * Counts n inputs left out (profview merge --skip-bad: inputs that could not be read): the
 * finished merge says how many in its diagnostics (info's lossy list).
 */
void pv_merge_skipped(struct pv_merge *m, uint64_t n);

/*
 * The merged profile (the caller frees it; the merge is then empty and only to be freed).
 * Sample columns are in one canonical form: a weight column where every sample weighs 1, a
 * label column where no sample has a label and an event delay column without a delay are
 * dropped. Context names are made unique: the second context named x becomes "x #2", the third
 * "x #3" (a note says how many); the inputs left out (pv_merge_skipped) are a diagnostic.
 * Returns 0, PV_ENOMEM, PV_ELIMIT, or PV_EPARSE when the result breaks an invariant.
 */
int pv_merge_finish(struct pv_merge *m, struct pv_profile **out, struct pv_error *err);
/*
 * The same for a partial merge, to be added to another (pv_merge_add_partial): names kept as
 * they are and no diagnostic added, both being decided on the whole result.
 */
int pv_merge_finish_partial(struct pv_merge *m, struct pv_profile **out, struct pv_error *err);

/*
 * The inputs that the arguments name, in order: a file as it is; "@LIST" the paths that file
 * lists, one a line (blank lines and lines starting with '#' skipped); a folder that holds a
 * profile database (HPCToolkit's) as it is, any other folder the files and folders in it,
 * recursively, in byte order of their names, names starting with '.' skipped.
 * *paths (an array of *n strings) is freed with pv_merge_inputs_free. Returns 0, PV_EIO (err:
 * the path that cannot be read) or PV_ENOMEM.
 */
int pv_merge_inputs(char *const *args, int nargs, char ***paths, uint64_t *n, struct pv_error *err);
/*
 * The same; with keep, a path that cannot be read (missing, a folder that cannot be opened) is
 * listed as it is, for its import to fail (profview merge --skip-bad): an @LIST that cannot be
 * read is still an error.
 */
int pv_merge_inputs_keep(char *const *args, int nargs, bool keep, char ***paths, uint64_t *n,
			 struct pv_error *err);
void pv_merge_inputs_free(char **paths, uint64_t n);

#endif
