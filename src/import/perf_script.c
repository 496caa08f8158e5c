/* perf_script.c - placeholder: the perf-script importer (Linux perf script text (perf script, simpleperf report-sample)). */
#include "import/importer.h"

static int probe(const struct pv_input *in)
{
	(void)in;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	(void)b;
	return pv_error_set(err, PV_EFORMAT, "%s: the perf-script importer is not written yet", in->name);
}

const struct importer importer_perf_script = {
	.name = "perf-script",
	.description = "Linux perf script text (perf script, simpleperf report-sample)",
	.probe = probe,
	.import = import,
};
