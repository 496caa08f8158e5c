#include "export/internal.h"
int pv__export_svg(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
		       struct pv_lossy *lossy, struct pv_error *err)
{
	(void)out; (void)p; (void)o; (void)lossy;
	return pv_error_set(err, PV_EINVAL, "not yet");
}
