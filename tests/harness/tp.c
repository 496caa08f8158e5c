/*
 * tp.c - the unit tests' shared profile helpers (tp.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/text.h"
#include "import/json.h"
#include "pv/marker.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"

struct pv_profile *tp_load_at(const char *file, int line, const char *path, const char *format,
			      const char *expect)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (pv_import_file(path, format, &p, &err)) {
		t_fail(file, line, "%s: %s", path, err.msg);
		return NULL;
	}
	if (pv_profile_validate(p, &err))
		t_fail(file, line, "%s: invalid: %s", path, err.msg);
	if (expect && strcmp(pv_str(p, p->meta.format), expect) != 0)
		t_fail(file, line, "%s read as %s, expected %s", path, pv_str(p, p->meta.format),
		       expect);
	return p;
}

int tp_import_text_at(const char *file, int line, const char *name, const char *text, size_t len,
		      const char *format, struct pv_profile **p, struct pv_error *err)
{
	pv_error_clear(err);
	*p = NULL;
	int rc = pv_import_memory(name, text, len, format, p, err);
	if (!rc && pv_profile_validate(*p, err)) {
		t_fail(file, line, "%s: invalid profile: %s", name, err->msg);
		pv_profile_free(*p);
		*p = NULL;
		return -100;
	}
	return rc;
}

struct pv_profile *tp_load_mem_at(const char *file, int line, const char *name, const char *text,
				  size_t len, const char *format, const char *expect)
{
	struct pv_profile *p;
	struct pv_error err;
	if (tp_import_text_at(file, line, name, text, len, format, &p, &err)) {
		t_fail(file, line, "%s: %s", name, err.msg);
		return NULL;
	}
	if (expect && strcmp(pv_str(p, p->meta.format), expect) != 0) {
		t_fail(file, line, "%s read as %s, expected %s", name, pv_str(p, p->meta.format),
		       expect);
	}
	return p;
}

void tp_expect_error_at(const char *file, int line, const char *name, const char *text,
			const char *format, int code, const char *want, struct pv_error *err)
{
	struct pv_profile *p;
	struct pv_error own;
	if (!err)
		err = &own;
	int rc = tp_import_text_at(file, line, name, text, strlen(text), format, &p, err);
	if (rc == 0) {
		pv_profile_free(p);
		t_fail(file, line, "imported, expected code %d '%s' for %.70s", code, want, text);
		return;
	}
	if (rc != code)
		t_fail(file, line, "expected code %d, got %d (%s) for %.70s", code, rc, err->msg,
		       text);
	if (!strstr(err->msg, want))
		t_fail(file, line, "message '%s', expected it to hold '%s'", err->msg, want);
	if (strchr(err->msg, '\n'))
		t_fail(file, line, "message '%s' is more than one line", err->msg);
}

int tp_check_damaged_at(const char *file, int line, const char *name, const char *buf, size_t len,
			const char *format)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_import_memory(name, buf, len, format, &p, &err);
	if (rc == 0) {
		if (pv_profile_validate(p, &err))
			t_fail(file, line, "%s (%zu bytes, %s): invalid profile: %s", name, len,
			       format ? format : "probed", err.msg);
		/* its markers derive, or the failure says what (an error status and a message) */
		struct pv_markers *ms = NULL;
		pv_error_clear(&err);
		int mrc = pv_markers_derive(p, &ms, &err);
		if (mrc && (mrc > 0 || !err.msg[0]))
			t_fail(file, line, "%s (%zu bytes): markers: status %d, '%s'", name, len,
			       mrc, err.msg);
		pv_markers_free(ms);
		pv_profile_free(p);
		return 0;
	}
	if (!err.msg[0] || !strstr(err.msg, name))
		t_fail(file, line, "%s (%zu bytes): error without the file name: '%s'", name, len,
		       err.msg);
	if (strchr(err.msg, '\n'))
		t_fail(file, line, "%s: error on more than one line: '%s'", name, err.msg);
	if (p)
		t_fail(file, line, "%s: output set on failure", name);
	return rc;
}

void tp_damage_at(const char *file, int line, const char *name, const char *buf, size_t len,
		  const struct t_damage *d)
{
	size_t step = len / d->cuts + 1;
	for (size_t cut = 0; cut < len; cut += step)
		for (size_t f = 0; f < d->nr_formats; f++)
			tp_check_damaged_at(file, line, name, buf, cut, d->formats[f]);
	char *m = len ? malloc(len) : NULL;
	size_t nj = strlen(d->junk);
	for (int k = 0; k < d->mutations && m; k++) {
		memcpy(m, buf, len);
		int nmut = 1 + (int)(t_rng(d->rng) % 3);
		for (int j = 0; j < nmut; j++)
			m[t_rng(d->rng) % len] = d->junk[t_rng(d->rng) % nj];
		tp_check_damaged_at(file, line, name, m, len, d->mutate_format);
	}
	free(m);
}

struct pv_profile *tp_import_oom_at(const char *file, int line, const char *name, const char *text,
				    size_t len, const char *format, uint64_t max, int *failed)
{
	*failed = 0;
	for (uint64_t k = 1; k < max; k++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		pv_alloc_fail_after(k);
		int rc = pv_import_memory(name, text, len, format, &p, &err);
		pv_alloc_fail_after(0);
		if (rc == 0) {
			if (pv_profile_validate(p, &err))
				t_fail(file, line, "%s: invalid after %d failures: %s", name,
				       *failed, err.msg);
			return p;
		}
		(*failed)++;
		if (!strstr(err.msg, "out of memory"))
			t_fail(file, line, "allocation %llu failing: '%s'", (unsigned long long)k,
			       err.msg);
		if (p)
			t_fail(file, line, "allocation %llu failing: a profile all the same",
			       (unsigned long long)k);
	}
	t_fail(file, line, "%s: no import succeeded in %llu tries", name, (unsigned long long)max);
	return NULL;
}

int64_t t_total(const struct pv_profile *p, pv_metric_ix m)
{
	int64_t s = 0;
	for (uint32_t i = 0; i < p->samples.len; i++)
		s += pv_sample_weight(p, m, i);
	return s;
}

int64_t t_total_named(const struct pv_profile *p, const char *metric)
{
	pv_metric_ix m = pv_metric_find(p, metric);
	return m == PV_NONE ? -1 : t_total(p, m);
}

void t_stack_path(const struct pv_profile *p, pv_stack_ix s, const char *sep, char *buf, size_t n)
{
	const char *parts[256];
	int k = 0;
	for (; s != PV_NONE && k < 256; s = p->stacks.prefix[s])
		parts[k++] = pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[s]]]);
	buf[0] = 0;
	while (k-- > 0) {
		text_append(buf, n, parts[k]);
		if (k)
			text_append(buf, n, sep);
	}
}

pv_func_ix t_find_func(const struct pv_profile *p, const char *name)
{
	for (uint32_t f = 0; f < p->funcs.len; f++)
		if (strcmp(pv_str(p, p->funcs.name[f]), name) == 0)
			return f;
	return PV_NONE;
}

const char *t_leaf_name(const struct pv_profile *p, uint32_t i)
{
	pv_stack_ix st = p->samples.stack[i];
	if (st == PV_NONE)
		return "";
	return pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[st]]]);
}

const char *t_diag(const struct pv_profile *p, const char *needle, uint64_t *count)
{
	for (uint32_t i = 0; i < p->diags.len; i++) {
		if (strstr(pv_str(p, p->diags.msg[i]), needle)) {
			if (count)
				*count = p->diags.count[i];
			return pv_str(p, p->diags.msg[i]);
		}
	}
	return NULL;
}

uint64_t t_diag_count(const struct pv_profile *p, const char *needle)
{
	uint64_t n = 0;
	return t_diag(p, needle, &n) ? n : 0;
}

uint64_t t_rng(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

bool t_json_same(const char *a, const char *b)
{
	struct pv_input ia = {0}, ib = {0};
	struct pv_error ea, eb;
	struct json ja, jb;
	ia.name = "got";
	ia.data = a;
	ia.len = strlen(a);
	ib.name = "want";
	ib.data = b;
	ib.len = strlen(b);
	json_init(&ja, &ia, &ea);
	json_init(&jb, &ib, &eb);
	bool same = true, json = true;
	for (;;) {
		struct json_tok x, y;
		if (json_next(&ja, &x) || json_next(&jb, &y)) {
			json = false;
			break;
		}
		if (x.kind != y.kind) {
			same = false;
			break;
		}
		if (x.kind == JSON_EOF)
			break;
		if (x.kind == JSON_KEY || x.kind == JSON_STRING) {
			const char *s;
			size_t n;
			if (json_str(&ja, &x, &s, &n)) {
				json = false;
				break;
			}
			/* json_str's text lasts until ja's next json_str: b's goes in jb's scratch
			 */
			const char *u;
			size_t m;
			if (json_str(&jb, &y, &u, &m)) {
				json = false;
				break;
			}
			if (n != m || memcmp(s, u, n) != 0) {
				same = false;
				break;
			}
		} else if (x.kind == JSON_NUMBER &&
			   (x.len != y.len || memcmp(x.s, y.s, x.len) != 0)) {
			same = false;
			break;
		}
	}
	json_release(&ja);
	json_release(&jb);
	return json ? same : strcmp(a, b) == 0;
}

char *t_json_compact(char *s)
{
	char *o = s;
	bool str = false;
	for (const char *p = s; *p; p++) {
		if (str) {
			*o++ = *p;
			if (*p == '\\' && p[1])
				*o++ = *++p;
			else if (*p == '"')
				str = false;
		} else if (*p == '"') {
			*o++ = *p;
			str = true;
		} else if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r') {
			*o++ = *p;
		}
	}
	*o = 0;
	return s;
}

bool t_json_has(const char *json, const char *fragment)
{
	char *a = strdup(json), *b = strdup(fragment);
	bool has = a && b && strstr(t_json_compact(a), t_json_compact(b)) != NULL;
	free(a);
	free(b);
	return has;
}

struct pv_view *tp_line_view_at(const char *file, int line, const struct pv_profile *p,
				const char *center)
{
	struct pv_query q;
	struct pv_error err;
	struct pv_view *v = NULL;
	pv_query_init(&q);
	q.view = PV_VIEW_TOP;
	q.by = PV_BY_LINE;
	if (center && pv_query_add_center(&q, center))
		t_fail(file, line, "center '%s': out of memory", center);
	else if (pv_view_compute(p, &q, &v, &err))
		t_fail(file, line, "the view by line: %s", err.msg);
	pv_query_release(&q);
	return v;
}

void t_snapshot_reseal(unsigned char *b)
{
	uint32_t nr;
	memcpy(&nr, b + 24, 4);
	uint64_t h = hash_bytes(b + 64, (size_t)nr * 32);
	memcpy(b + 32, &h, 8);
	h = hash_bytes(b, 56);
	memcpy(b + 56, &h, 8);
}

bool t_snapshot_set_word(unsigned char *b, uint32_t id, uint32_t k, int64_t v)
{
	uint32_t nr;
	memcpy(&nr, b + 24, 4);
	for (uint32_t i = 0; i < nr; i++) {
		unsigned char *e = b + 64 + i * 32;
		uint32_t eid;
		uint64_t off, size;
		memcpy(&eid, e, 4);
		memcpy(&off, e + 8, 8);
		memcpy(&size, e + 16, 8);
		if (eid != id || size < ((uint64_t)k + 1) * 8)
			continue;
		memcpy(b + off + (size_t)k * 8, &v, 8);
		uint64_t h = hash_bytes(b + off, (size_t)size);
		memcpy(e + 24, &h, 8);
		t_snapshot_reseal(b);
		return true;
	}
	return false;
}
