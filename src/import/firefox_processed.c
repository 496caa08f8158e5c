/* firefox_processed.c - placeholder, filled in by the Firefox importer work. */
#include "import/importer.h"

static int probe(const struct pv_input *in)
{
	(void)in;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	(void)b;
	return pv_error_set(err, PV_EFORMAT, "%s: not implemented yet", in->name);
}

const struct importer importer_firefox_processed = {
	.name = "firefox-processed",
	.description = "Firefox Profiler",
	.probe = probe,
	.import = import,
};
