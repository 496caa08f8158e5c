#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pv/error.h"

const char *pv_strerror(int code)
{
	switch (code) {
	case PV_OK: return "success";
	case PV_ENOMEM: return "out of memory";
	case PV_EIO: return "cannot read input";
	case PV_EFORMAT: return "unsupported format";
	case PV_EPARSE: return "malformed input";
	case PV_ELIMIT: return "input past a limit";
	case PV_EINVAL: return "invalid argument";
	}
	return "unknown error";
}

void pv_error_clear(struct pv_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

size_t pv_escape_controls(char *dst, size_t cap, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (const unsigned char *s = (const unsigned char *)src; *s && o + 1 < cap; s++) {
		if (*s >= 0x20 && *s != 0x7f) {
			dst[o++] = (char)*s;
			continue;
		}
		char esc[5] = {'\\', 0, 0, 0, 0};
		switch (*s) {
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			esc[1] = 'x';
			esc[2] = hex[*s >> 4];
			esc[3] = hex[*s & 15];
		}
		size_t n = strlen(esc);
		if (o + n + 1 > cap)
			break;
		memcpy(dst + o, esc, n);
		o += n;
	}
	if (cap)
		dst[o] = 0;
	return o;
}

int pv_error_set(struct pv_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		memset(err, 0, sizeof(*err));
		err->code = code;
		char raw[sizeof(err->msg)];
		vsnprintf(raw, sizeof(raw), fmt, ap);
		va_end(ap);
		/* one line, whatever a file name or a file's bytes hold: no control byte reaches a
		 * terminal or forges a second line */
		pv_escape_controls(err->msg, sizeof(err->msg), raw);
	}
	return code;
}
