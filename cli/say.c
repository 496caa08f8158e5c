#include <stdarg.h>
#include <stdio.h>

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
