/* pprof.c - placeholder: the pprof importer (pprof profile.proto, gzip or plain). */
#include "import/importer.h"

static int probe(const struct pv_input *in)
{
	(void)in;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	(void)b;
	return pv_error_set(err, PV_EFORMAT, "%s: the pprof importer is not written yet", in->name);
}

const struct importer importer_pprof = {
	.name = "pprof",
	.description = "pprof profile.proto, gzip or plain",
	.probe = probe,
	.import = import,
};
