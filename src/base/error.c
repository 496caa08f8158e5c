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

int pv_error_set(struct pv_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		memset(err, 0, sizeof(*err));
		err->code = code;
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}
