/*
 * output.h - the one rule for the files profview writes: `export -o`, `snapshot -o`, `merge -o`
 * and the --cache entries (pv_snapshot_write).
 *
 * The path must name a regular file or nothing yet: a character or block device, a FIFO, a
 * socket, a folder or a symbolic link (to anything) is refused with one line naming the path
 * ("/dev/full: a character device, not a regular file: not written"), so a command run as root
 * never writes into /dev/full or replaces it, and a link planted in a shared folder never sends
 * the output elsewhere. Errors name the output path and the system's reason
 * ("out.pvs: cannot write: No space left on device"). New files get 0666 less the umask, as
 * the kernel applies it (the umask is never changed, so threads see no window of umask 0).
 */
#ifndef PV_OUTPUT_H
#define PV_OUTPUT_H

#include <stdio.h>

#include "pv/error.h"

/*
 * 0 when path names a regular file, or nothing in a folder that exists and may be written into
 * (so a command checks its output before its work); else PV_EIO with err saying what it names.
 */
int pv_output_check(const char *path, struct pv_error *err);

/*
 * path opened for writing from its start (created, or truncated when a regular file), after
 * pv_output_check, without following a symbolic link or blocking on a FIFO put there since (what
 * was opened is checked again). NULL with err (PV_EIO) when refused or failed.
 */
FILE *pv_output_open(const char *path, struct pv_error *err);

#endif
