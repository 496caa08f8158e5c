#include <stdarg.h>
#include <stdio.h>

#include "pv/error.h"
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
