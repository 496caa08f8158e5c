/*
 * say.h - the command line's messages on standard error: "profview: KIND: message", one line.
 * Control bytes of the message (a file name with a newline or an escape sequence, text from a
 * file) are written as escapes, so no message forges a second line or reaches the terminal.
 */
#ifndef PV_CLI_SAY_H
#define PV_CLI_SAY_H

/* kind: "error", "warning", "note". */
void cli_say(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
