/*
 * import.h - reading profiles.
 *
 * One registry of importers; each has a probe that looks at the first bytes of the (decoded)
 * input, so callers need not name the format. Gzip and UTF-16 inputs are decoded first.
 * The returned profile is owned by the caller (pv_profile_free).
 */
#ifndef PV_IMPORT_H
#define PV_IMPORT_H

#include <stddef.h>

#include "pv/profile.h"

/*
 * Reads path ("-" = standard input) into *out. format is an importer name, or NULL to probe.
 * Returns 0; PV_EIO (cannot read), PV_EFORMAT (no importer recognises it, or an unsupported
 * version), PV_EPARSE (malformed: err has the line/column or byte offset), PV_ELIMIT, PV_ENOMEM,
 * PV_EINVAL (unknown format name). On failure *out is untouched.
 */
int pv_import_file(const char *path, const char *format, struct pv_profile **out,
		   struct pv_error *err);
/* The same over a memory buffer (copied); name is used in messages. */
int pv_import_memory(const char *name, const void *buf, size_t len, const char *format,
		     struct pv_profile **out, struct pv_error *err);

/* The registry, in probe order. */
size_t pv_importer_count(void);
const char *pv_importer_name(size_t i);
const char *pv_importer_description(size_t i);

#endif
