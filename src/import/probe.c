/*
 * The probe helpers every importer's probe uses: the bottom layer of src/import (it calls no
 * importer; the registry and the importers call it).
 */
#include <string.h>

#include "import/importer.h"

int probe_has(const struct pv_input *in, size_t n, const char *s)
{
	if (n > in->len)
		n = in->len;
	return memmem(in->data, n, s, strlen(s)) != NULL;
}

int input_ends_mid_line(const struct pv_input *in)
{
	return in->len && in->data[in->len - 1] != '\n';
}

char probe_first_char(const struct pv_input *in)
{
	for (size_t i = 0; i < in->len; i++) {
		char c = in->data[i];
		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			return c;
	}
	return 0;
}
