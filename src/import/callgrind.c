/* callgrind.c - placeholder: the callgrind importer (callgrind and cachegrind output). */
#include "import/importer.h"

static int probe(const struct pv_input *in)
{
	(void)in;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	(void)b;
	return pv_error_set(err, PV_EFORMAT, "%s: the callgrind importer is not written yet", in->name);
}

const struct importer importer_callgrind = {
	.name = "callgrind",
	.description = "callgrind and cachegrind output",
	.probe = probe,
	.import = import,
};
