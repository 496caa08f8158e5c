/*
 * import.h - reading profiles.
 *
 * One registry of importers; each has a probe that looks at the first bytes of the (decoded)
 * input, so callers need not name the format. Gzip and UTF-16 inputs are decoded first.
 * The returned profile is owned by the caller (pv_profile_free).
 */
#ifndef PV_IMPORT_H
#define PV_IMPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/profile.h"

/*
 * Reads path ("-" = standard input) into *out. format is an importer name, or NULL to probe.
 * Returns 0; PV_EIO (cannot read), PV_EFORMAT (no importer recognises it, or an unsupported
 * version), PV_EPARSE (malformed: err has the line/column or byte offset), PV_ELIMIT, PV_ENOMEM,
 * PV_EINVAL (unknown format name). On failure *out is untouched.
 */
int pv_import_file(const char *path, const char *format, struct pv_profile **out,
		   struct pv_error *err);
/*
 * Progress of one import, readable from another thread while it runs (a server shows it).
 * phase: PV_PROGRESS_READING (loading or inflating the file), _PARSING (done of total bytes
 * of the decoded input parsed), _FINISHING (building the model's tables), _DONE.
 */
enum { PV_PROGRESS_READING = 0, PV_PROGRESS_PARSING, PV_PROGRESS_FINISHING, PV_PROGRESS_DONE };
struct pv_progress {
	_Atomic uint64_t done;
	_Atomic uint64_t total;
	_Atomic int phase;
};
/* pv_import_file, reporting to prog (may be NULL) as it goes. */
int pv_import_file_progress(const char *path, const char *format, struct pv_progress *prog,
			    struct pv_profile **out, struct pv_error *err);
/* The same over a memory buffer (copied); name is used in messages. */
int pv_import_memory(const char *name, const void *buf, size_t len, const char *format,
		     struct pv_profile **out, struct pv_error *err);

/*
 * An import with options, as the command line and the server take them:
 *   format     an importer name, NULL to probe (--format NAME);
 *   cache_dir  NULL, or a folder of snapshots (pv/snapshot.h) of the files imported (--cache
 *              DIR): a regular file whose snapshot there was made from the same path, size,
 *              modification time and format opens from it; any other is imported and its
 *              snapshot written there for the next time;
 *   progress   as for pv_import_file_progress (may be NULL).
 * The cache never changes the profile: a cache entry that is damaged, of another version or
 * cannot be written is passed over, with one line in note (note->msg "" when all went well;
 * note may be NULL). Returns what pv_import_file_progress returns.
 */
#define PV_SYMBOL_DIRS 16
struct pv_import_opts {
	const char *format;
	const char *cache_dir;
	struct pv_progress *progress;
	/*
	 * Names for the addresses of formats that hold them (perf.data, doc/perf-data.md): folders
	 * searched first for the binaries (--symbols DIR, repeatable), or none named at all
	 * (--no-symbols). Either one bypasses cache_dir (a snapshot keeps the names it was made
	 * with).
	 */
	const char *symbol_dirs[PV_SYMBOL_DIRS];
	uint32_t nr_symbol_dirs;
	bool no_symbols;
	/* The kernel's symbols from this vmlinux only (--vmlinux FILE, perf's -k), used when its
	 * build id is the recorded kernel's; bypasses cache_dir as the above. */
	const char *vmlinux;
	/*
	 * The caller reads no calling context, only what a call-graph format states (the top of
	 * its whole profile, eng_graph_top: the graph's nodes and the exact costs per function):
	 * its importer (callgrind) may leave out the contexts it would estimate, and the profile
	 * then has no samples, and the graph's edges once they gave the exact costs. Ignored with
	 * cache_dir (a snapshot keeps the whole profile).
	 */
	bool no_contexts;
};
int pv_import_open(const char *path, const struct pv_import_opts *o, struct pv_profile **out,
		   struct pv_error *err, struct pv_error *note);
/*
 * Sets one import option by its command-line name without "--" ("format", "cache", "symbols",
 * "vmlinux", "no-symbols" whose value is ignored) from its
 * text, the one place both the CLI and the server read them. Returns 0, PV_EINVAL with err
 * ("--format: unknown format ..."), or 1 when name is not an import option. The value is
 * borrowed, not copied.
 */
int pv_import_set_option(struct pv_import_opts *o, const char *name, const char *value,
			 struct pv_error *err);

/*
 * Whether p's threads are parts of one program whose costs add up to the whole: an HPCToolkit
 * database's execution contexts, callgrind's parts of one run, pprof, a merge (doc/merge.md) —
 * decided by its format's importer and by meta.one_program. A viewer then opens on all of
 * them summed, as hpcviewer does; else (independent threads and processes: Firefox, Chrome,
 * perf) on the busiest thread, as the Firefox Profiler does (pv_profile_info's open_thread).
 */
bool pv_profile_one_program(const struct pv_profile *p);

/* The registry, in probe order. */
size_t pv_importer_count(void);
const char *pv_importer_name(size_t i);
const char *pv_importer_description(size_t i);

#endif
