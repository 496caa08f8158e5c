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

size_t pv_control_escape(const char *s, size_t n, char esc[8], size_t *len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	if (!n)
		return 0;
	if (u[0] >= 0x20 && u[0] != 0x7f &&
	    !(u[0] == 0xc2 && n > 1 && u[1] >= 0x80 && u[1] < 0xa0)) /* C1 in UTF-8 */
		return 0;
	if (u[0] == 0xc2) {
		*len = 2;
		memcpy(esc, "\\u0080", 7);
		esc[4] = hex[u[1] >> 4];
		esc[5] = hex[u[1] & 15];
		esc[6] = 0;
		return 6;
	}
	*len = 1;
	esc[0] = '\\';
	esc[2] = 0;
	switch (u[0]) {
	case '\n': esc[1] = 'n'; return 2;
	case '\r': esc[1] = 'r'; return 2;
	case '\t': esc[1] = 't'; return 2;
	}
	esc[1] = 'x';
	esc[2] = hex[u[0] >> 4];
	esc[3] = hex[u[0] & 15];
	esc[4] = 0;
	return 4;
}

size_t pv_escape_controls(char *dst, size_t cap, const char *src)
{
	size_t o = 0, n = strlen(src);
	for (size_t i = 0; i < n && o + 1 < cap;) {
		char esc[8];
		size_t len = 1, k = pv_control_escape(src + i, n - i, esc, &len);
		if (!k) {
			dst[o++] = src[i++];
			continue;
		}
		if (o + k + 1 > cap)
			break;
		memcpy(dst + o, esc, k);
		o += k;
		i += len;
	}
	if (cap)
		dst[o] = 0;
	return o;
}

const char *pv_escaped(char *buf, size_t cap, const char *s)
{
	if (!s)
		return "";
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++) {
		char esc[8];
		size_t len;
		if (pv_control_escape(s + i, n - i, esc, &len)) {
			pv_escape_controls(buf, cap, s);
			return buf;
		}
	}
	return s;
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
