/*
 * hpctoolkit_xml.c - HPCToolkit databases before format 4: experiment.xml (stub).
 */
#include <string.h>

#include "import/hpctoolkit.h"
#include "import/importer.h"

static int probe(const struct pv_input *in)
{
	(void)in;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	(void)b;
	return pv_error_set(err, PV_EFORMAT, "%s: not yet", in->name);
}

int hpc_xml_file(const char *kind, const void *buf, size_t len, struct pv_error *err)
{
	(void)kind;
	(void)buf;
	(void)len;
	(void)err;
	return 0;
}

const struct importer importer_hpctoolkit_xml = {
    .name = "hpctoolkit-xml",
    .description = "HPCToolkit database before format 4 (experiment.xml and its side files)",
    .probe = probe,
    .import = import,
    .dir_entry = "experiment.xml",
};
