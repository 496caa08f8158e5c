/*
 * firefox.c - what the two Firefox importers share (firefox.h).
 */
#include <string.h>

#include "import/firefox/firefox.h"

void ff_sub_json(struct json *sj, struct pv_input *sin, struct pv_error *err, const char *name,
		 const char *text, size_t len)
{
	memset(sin, 0, sizeof(*sin));
	sin->name = name;
	sin->data = text;
	sin->len = len;
	json_init(sj, sin, err);
}

int ff_tok_str(struct pv_builder *b, struct json *j, const struct json_tok *t, pv_str_ix *out)
{
	const char *s;
	size_t n;
	int rc = json_str(j, t, &s, &n);
	if (rc)
		return rc;
	*out = builder_str(b, s, n);
	return 0;
}

int ff_schema_string_keys(struct pv_builder *b, const char *name, const char *text, size_t len,
			  struct pv_error *err, pv_str_ix *schema, struct vec *keys)
{
	struct pv_input sin;
	struct json sj;
	struct json_tok o, k, v;
	ff_sub_json(&sj, &sin, err, name, text, len);
	int rc = json_next(&sj, &o);
	*schema = 0;
	keys->len = 0;
	for (;;) {
		if (rc || (rc = json_next_member(&sj, &k, &v)) || k.kind != JSON_KEY)
			break;
		if (json_is(&k, "name") && v.kind == JSON_STRING) {
			rc = ff_tok_str(b, &sj, &v, schema);
			continue;
		}
		if (!(json_is(&k, "data") || json_is(&k, "fields")) || v.kind != JSON_ARRAY) {
			rc = json_skip(&sj, &v);
			continue;
		}
		for (;;) {
			struct json_tok f, fk, fv;
			if ((rc = json_next(&sj, &f)) || f.kind == JSON_END)
				break;
			if (f.kind != JSON_OBJECT) {
				if ((rc = json_skip(&sj, &f)))
					break;
				continue;
			}
			pv_str_ix key = 0;
			bool str_ix = false;
			for (;;) {
				if ((rc = json_next_member(&sj, &fk, &fv)) || fk.kind != JSON_KEY)
					break;
				if (json_is(&fk, "key") && fv.kind == JSON_STRING)
					rc = ff_tok_str(b, &sj, &fv, &key);
				else if (json_is(&fk, "format") && fv.kind == JSON_STRING)
					str_ix = json_is(&fv, "unique-string") ||
						 json_is(&fv, "flow-id") ||
						 json_is(&fv, "terminating-flow-id");
				else
					rc = json_skip(&sj, &fv);
				if (rc)
					break;
			}
			if (rc)
				break;
			if (str_ix && key) {
				pv_str_ix *e = vec_push(keys, sizeof(*e));
				if (!e) {
					rc =
					    pv_error_set(err, PV_ENOMEM, "%s: out of memory", name);
					break;
				}
				*e = key;
			}
		}
	}
	json_release(&sj);
	return rc;
}

void ff_set_weights(struct pv_builder *b, pv_metric_ix m, uint32_t first, uint32_t n,
		    const int64_t *w, size_t stride, int64_t v)
{
	if (!b->p->samples.weight[m]) {
		/* no column yet: every sample weighs 1 until one does not */
		uint32_t k = 0;
		while (w && k < n && w[k * stride] == 1)
			k++;
		if (w ? k == n : v == 1)
			return;
	}
	int64_t *col = builder_samples_weight(b, m);
	for (uint32_t k = 0; col && k < n; k++)
		col[first + k] = w ? w[k * stride] : v;
}
