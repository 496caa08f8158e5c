/*
 * output.h - whole-file replacement for the writers of pv/output.h's rule (a snapshot, a cache
 * entry): a new temporary file beside the path, renamed over it once complete.
 */
#ifndef PV_BASE_OUTPUT_H
#define PV_BASE_OUTPUT_H

#include "pv/output.h"

/*
 * Creates PATH.tmp-XXXXXX (a fresh random name, O_EXCL, 0666 less the umask) after
 * pv_output_check(path): *fd open for writing, *tmp its name (pv_free). Returns 0, PV_EIO (err
 * names path) or PV_ENOMEM.
 */
int output_temp(const char *path, int *fd, char **tmp, struct pv_error *err);
/* Renames tmp over path once path is checked again (pv_output_check); tmp removed on failure.
 * 0 or PV_EIO with err naming path. */
int output_replace(const char *tmp, const char *path, struct pv_error *err);

#endif
