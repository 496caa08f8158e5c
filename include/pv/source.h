/*
 * source.h - finding and reading the source files a profile names, inside fixed folders only.
 *
 * A profile names its source files as they were on the machine that recorded it: absolute paths,
 * paths relative to some build folder, file:// URLs. A viewer shows them, but a profile may come
 * from anywhere, so a name must never reach a file outside the folders the user allowed (the
 * profile's folder, --source-root): no "..", no symbolic link below such a folder, nothing
 * resolved from the working directory, regular files only.
 */
#ifndef PV_SOURCE_H
#define PV_SOURCE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Opens the file a profile names `name`, looked up beneath the folders roots[0 .. nroots):
 *   - a file:// URL is its path;
 *   - an absolute path that lies beneath a root (textually) is that file;
 *   - otherwise the name's trailing components, longest first ("/build/proj/src/a.c" tries
 *     "build/proj/src/a.c", "proj/src/a.c", "src/a.c", "a.c") beneath each root in turn, so a
 *     tree that moved or was built elsewhere is found.
 * Each step below a root is opened relative to the previous one without following symbolic
 * links; "." is skipped and a ".." or an empty component is never used. Only a regular file of
 * at most max bytes is returned. Returns an open read-only descriptor (the caller closes it), or
 * -1 when no root holds the file. Costs at most (components x roots) failed opens.
 */
int pv_source_open(const char *name, const char *const *roots, uint32_t nroots, size_t max);

/*
 * pv_source_open, then reads the file: its bytes as they are now, at most the size it had when
 * opened (so a file that reports size 0 and reads more, like /proc's, gives nothing). *data is a
 * NUL-terminated malloc'ed copy to free(). Returns 0, or -1 (not found, not readable, too big,
 * out of memory).
 */
int pv_source_read(const char *name, const char *const *roots, uint32_t nroots, size_t max,
		   char **data, size_t *len);

/*
 * The folder a profile's source files are looked up beneath by default: the folder of the
 * profile's file, or the profile itself when it is a folder (a database with its src/ copies),
 * resolved to an absolute path into dir (len bytes). Returns 1, or 0 when it cannot be resolved
 * (or does not fit).
 */
int pv_source_profile_root(const char *profile_path, char *dir, size_t len);

#endif
