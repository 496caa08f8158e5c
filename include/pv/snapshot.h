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

/*
 * A snapshot whose sample rows other processes write (`profview merge` under MPI: each rank
 * writes its own contexts' rows, doc/merge.md). p holds every table but the samples (its
 * threads' sample ranges already those of the file); rows says how many sample rows the file
 * has and which sample columns. pv_snapshot_parts_begin writes the rest to a temporary file
 * beside path (pv_snapshot_parts_file), leaving each sample column's section as a hole at
 * pv_snapshot_parts_offset (section id: 51 stack, 52 time_ns, 53 label_set, 54 event_delay_ns,
 * 90 addr, 128 weight of metric index); once every writer has written and closed it,
 * pv_snapshot_parts_finish checksums the holes' bytes, completes the header and renames the
 * file over path: the bytes pv_snapshot_write writes for the whole profile.
 */
enum { PV_SNAP_TIME = 1, PV_SNAP_LABEL_SET = 2, PV_SNAP_EVENT_DELAY = 4, PV_SNAP_ADDR = 8 };
struct pv_snapshot_rows {
	uint32_t rows;	       /* samples.len of the file */
	unsigned cols;	       /* PV_SNAP_*: the optional sample columns the file has */
	const uint8_t *weight; /* per metric of p: 1 when the file has its weight column */
};
struct pv_snapshot_parts;
int pv_snapshot_parts_begin(const struct pv_profile *p, const struct pv_snapshot_rows *rows,
			    const char *path, struct pv_snapshot_parts **out, struct pv_error *err);
const char *pv_snapshot_parts_file(const struct pv_snapshot_parts *sp);
/* The offset of the hole of section id (index: the metric of a weight), 0 when there is none. */
uint64_t pv_snapshot_parts_offset(const struct pv_snapshot_parts *sp, uint32_t id, uint32_t index);
int pv_snapshot_parts_finish(struct pv_snapshot_parts *sp, struct pv_error *err);
/* Frees sp; a file not finished is removed. */
void pv_snapshot_parts_free(struct pv_snapshot_parts *sp);

#endif
