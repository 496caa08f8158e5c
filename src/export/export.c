/*
 * export.c - the exporters' registry: one row per format (its name and its writer), and
 * pv_export_write over it. The writers sit below (firefox.c, speedscope.c, ...), the helpers they
 * share at the bottom (common.c); nothing here is called back.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "export/internal.h"

typedef int export_fn(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
		      struct pv_lossy *lossy, struct pv_error *err);

/* one exporter a line, in the order of enum pv_export_format */
// clang-format off
static const struct exporter {
	const char *name;
	export_fn *write;
} exporters[PV_EXPORT_NR] = {
	[PV_EXPORT_FIREFOX] = {"firefox", pv__export_firefox},
	[PV_EXPORT_SPEEDSCOPE] = {"speedscope", pv__export_speedscope},
	[PV_EXPORT_PPROF] = {"pprof", pv__export_pprof},
	[PV_EXPORT_COLLAPSED] = {"collapsed", pv__export_collapsed},
	[PV_EXPORT_SVG] = {"svg", pv__export_svg},
};
// clang-format on

const char *pv_export_format_name(enum pv_export_format f)
{
	return (unsigned)f < PV_EXPORT_NR ? exporters[f].name : "?";
}

int pv_export_format_parse(const char *s, enum pv_export_format *out)
{
	for (int f = 0; f < PV_EXPORT_NR; f++)
		if (strcmp(s, exporters[f].name) == 0) {
			*out = (enum pv_export_format)f;
			return 0;
		}
	return PV_EINVAL;
}

int pv_export_write(FILE *out, const struct pv_profile *p, enum pv_export_format f,
		    const struct pv_export_opts *opts, struct pv_lossy *lossy, struct pv_error *err)
{
	struct pv_export_opts def = {.metric = PV_NONE};
	if ((unsigned)f >= PV_EXPORT_NR)
		return pv_error_set(err, PV_EINVAL, "no export format %d", (int)f);
	return exporters[f].write(out, p, opts ? opts : &def, lossy, err);
}
