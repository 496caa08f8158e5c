/*
 * snapshot.h - the model as a file that opens without parsing (doc/snapshot.md).
 *
 * A snapshot (".pvs") holds every table of a profile as the columns of struct pv_profile, each
 * one section of the file, with a checksum per section and a version. Opening one is an import
 * like any other (pv/import.h probes it by its first bytes): the file is mapped read-only, each
 * section's checksum and every invariant of the model (pv_profile_validate) are checked, and
 * the profile's columns point into the mapping (struct pv_storage) instead of being copied. A
 * damaged, cut short or other-version snapshot fails with one line naming the byte offset and
 * what was expected, never more.
 */
#ifndef PV_SNAPSHOT_H
#define PV_SNAPSHOT_H

#include <stdint.h>

#include "pv/profile.h"

/* The file a snapshot was made from (what the cache of pv/import.h keys it by). */
struct pv_snapshot_source {
	const char *path;   /* as resolved (realpath) */
	const char *format; /* the importer name it was read with when one was forced, "" probed */
	uint64_t size;
	int64_t mtime_ns;
};

/*
 * Writes p as a snapshot at path, through a temporary file in the same folder renamed over path
 * (a reader sees the old file or the whole new one). src may be NULL (no source recorded).
 * Returns 0, PV_EIO (err: the path and why) or PV_ENOMEM.
 */
int pv_snapshot_write(const struct pv_profile *p, const char *path,
		      const struct pv_snapshot_source *src, struct pv_error *err);

/*
 * The snapshot of p as bytes in memory (*buf, the caller frees it with free()), the same bytes
 * pv_snapshot_write writes without a source (what `profview merge` sends between its MPI
 * ranks; pv_import_memory opens them). Returns 0 or PV_ENOMEM.
 */
int pv_snapshot_write_memory(const struct pv_profile *p, void **buf, size_t *len,
			     struct pv_error *err);

#endif
