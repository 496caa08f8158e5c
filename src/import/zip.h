/*
 * zip.h - zip archives as containers of profiles (libzip): a zip of one profile opens as that
 * profile (speedscope's zipped V8 logs), a zip of an Instruments .trace bundle goes to the
 * Instruments bundle reader, which reads the bundle's members by name. Damage is reported at
 * its byte in the archive (the end record, the central directory, the member's local header).
 */
#ifndef PV_IMPORT_ZIP_H
#define PV_IMPORT_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/file.h"

struct zipc;

/* Whether in's bytes start as a zip archive does (a member's header or an empty archive). */
bool zipc_is(const struct pv_input *in);
/* Opens the archive in in's bytes (kept, not copied). 0, or PV_EPARSE / PV_ENOMEM with err. */
int zipc_open(const struct pv_input *in, struct zipc **out, struct pv_error *err);
void zipc_close(struct zipc *z);
/* The number of members (files and folders) and the name of member i. */
size_t zipc_count(const struct zipc *z);
const char *zipc_name(const struct zipc *z, size_t i);
/* Whether member i is a file of the archive's own (not a folder, not macOS's __MACOSX/ or ._
 * resource forks, not .DS_Store). */
bool zipc_is_content(const struct zipc *z, size_t i);
/* The index of the member named name, or -1. */
int64_t zipc_find(const struct zipc *z, const char *name);
/*
 * The uncompressed bytes of member i (to pv_free; a NUL past them), or PV_EPARSE (damage, at
 * the member's header) / PV_ELIMIT / PV_ENOMEM with err.
 */
int zipc_read(struct zipc *z, size_t i, char **data, size_t *len, struct pv_error *err);
/* Fails with "NAME: byte N: WHAT" at member i's local header (its place in the archive). */
int zipc_fail(const struct zipc *z, size_t i, struct pv_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/*
 * A member that is a zlib stream (as an Instruments bundle's stores are) inflated in place of
 * its bytes (*data, *len replaced; its first byte is 0x78 and it inflates whole), as speedscope
 * reads them; other bytes are left as they are. 0 or PV_ENOMEM.
 */
int zipc_maybe_inflate(char **data, size_t *len);

/*
 * The bundle folder of an Instruments .trace in z ("NAME.trace/", to pv_free), or NULL when it
 * holds none (its form.template is what makes one).
 */
char *zipc_trace_bundle(const struct zipc *z);

/*
 * The one profile of the zip in in: 0 with *inner its member as a new input (named
 * "ZIP:MEMBER"; to input_close, then pv_free), 1 when the zip holds an Instruments .trace bundle
 * (its importer reads in itself), else an error saying what the zip holds.
 */
int zipc_unwrap(struct pv_input *in, struct pv_input **inner, struct pv_error *err);

#endif
