/* chrome.c - placeholder: the chrome importer (Chrome trace events (array or object form) and V8 .cpuprofile). */
#include "import/importer.h"

static int probe(const struct pv_input *in)
{
	(void)in;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	(void)b;
	return pv_error_set(err, PV_EFORMAT, "%s: the chrome importer is not written yet", in->name);
}

const struct importer importer_chrome = {
	.name = "chrome",
	.description = "Chrome trace events (array or object form) and V8 .cpuprofile",
	.probe = probe,
	.import = import,
};
