/* speedscope.c - placeholder: the speedscope importer (speedscope JSON (sampled and evented profiles)). */
#include "import/importer.h"

static int probe(const struct pv_input *in)
{
	(void)in;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	(void)b;
	return pv_error_set(err, PV_EFORMAT, "%s: the speedscope importer is not written yet", in->name);
}

const struct importer importer_speedscope = {
	.name = "speedscope",
	.description = "speedscope JSON (sampled and evented profiles)",
	.probe = probe,
	.import = import,
};
