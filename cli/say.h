/*
 * say.h - the command line's messages on standard error: "profview: KIND: message", one line.
 * Control bytes of the message (a file name with a newline or an escape sequence, text from a
 * file) are written as escapes, so no message forges a second line or reaches the terminal.
 */
#ifndef PV_CLI_SAY_H
#define PV_CLI_SAY_H

/* kind: "error", "warning", "note". */
void cli_say(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct pv_import_opts;
struct pv_profile;
struct pv_error;
/*
 * Opens path as every command does: the import options (--format, --cache), a warning of the
 * cache said; with verify, a snapshot's checksums waited for as well (a command that computes
 * first calls pv_profile_check itself before it prints). 0, or the error code with err set.
 */
int cli_open(const char *path, const struct pv_import_opts *o, int verify, struct pv_profile **out,
	     struct pv_error *err);

#endif
