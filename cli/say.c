#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "pv/error.h"
#include "pv/import.h"
#include "pv/profile.h"
#include "say.h"

void cli_say(const char *kind, const char *fmt, ...)
{
	char raw[4096], safe[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	pv_escape_controls(safe, sizeof(safe), raw);
	fprintf(stderr, "profview: %s: %s\n", kind, safe);
}

int cli_open(const char *path, const struct pv_import_opts *o, int verify, struct pv_profile **out,
	     struct pv_error *err)
{
	struct pv_error note;
	pv_error_clear(&note);
	int rc = pv_import_open(path, o, out, err, &note);
	if (note.msg[0])
		cli_say("warning", "%s", note.msg);
	if (!rc && verify && (rc = pv_profile_check(*out, err))) {
		pv_profile_free(*out);
		*out = NULL;
	}
	return rc;
}

__attribute__((format(printf, 2, 0))) static int vfail_usage(const char *cmd, const char *fmt,
							     va_list ap)
{
	char msg[2048];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	cli_say("error", "%s (see 'profview %s%s--help')", msg, cmd ? cmd : "", cmd ? " " : "");
	return EXIT_INPUT;
}

int cli_fail_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vfail_usage(NULL, fmt, ap);
	va_end(ap);
	return rc;
}

int cli_fail_usage_of(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vfail_usage(cmd, fmt, ap);
	va_end(ap);
	return rc;
}

int cli_lib_error(const char *path, int rc, const char *msg)
{
	cli_say("error", "%s: %s", path, msg);
	return rc == PV_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
}
