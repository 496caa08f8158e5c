/*
 * firefox.h - what the two Firefox importers share (firefox_gecko.c reads the profile Firefox
 * writes, firefox_processed.c the one the Firefox Profiler saves): reading a marker schema's
 * string-index fields, and a JSON reader over text an importer captured from its input. The
 * script URL rule both use (with Chrome's and speedscope's) is script_url.h.
 */
#ifndef PV_IMPORT_FIREFOX_H
#define PV_IMPORT_FIREFOX_H

#include <stddef.h>

#include "base/vec.h"
#include "import/json.h"
#include "model/builder.h"

/*
 * A JSON reader sj over text[0..len) that an importer captured from its input (so valid JSON),
 * errors naming the input name into err; sin holds its input. json_release(sj) when done.
 */
void ff_sub_json(struct json *sj, struct pv_input *sin, struct pv_error *err, const char *name,
		 const char *text, size_t len);

/* A string or key token's decoded text interned into *out; 0 or the reader's error. */
int ff_tok_str(struct pv_builder *b, struct json *j, const struct json_tok *t, pv_str_ix *out);

/*
 * One marker schema read from its captured JSON text: its name into *name (0 when it has none)
 * and into keys (pv_str_ix, emptied first) the keys of its fields whose format is a
 * string-table index (unique-string, flow-id, terminating-flow-id), as the Firefox Profiler
 * resolves them. Old Gecko schemas list the fields under "data", newer ones under "fields".
 * Returns 0, or PV_ENOMEM / the reader's error set in err (named name).
 */
int ff_schema_string_keys(struct pv_builder *b, const char *name, const char *text, size_t len,
			  struct pv_error *err, pv_str_ix *schema, struct vec *keys);

/*
 * Sets metric m's weights of the builder's sample rows [first, first + n) to w[k * stride] (w
 * NULL: all to v). A metric without a column gets one only when some weight is not 1.
 */
void ff_set_weights(struct pv_builder *b, pv_metric_ix m, uint32_t first, uint32_t n,
		    const int64_t *w, size_t stride, int64_t v);

#endif
