/*
 * hpctoolkit_v4.c - HPCToolkit databases of format 4 (hpcprof 2022 and later): meta.db for the
 * calling context tree and the metrics, profile.db for the values of every execution context
 * (threads, GPU streams), metrics/default.yaml for the metrics' descriptions, trace.db for
 * the time lines of the execution contexts (pv_profile.trace); cct.db is checked, not read
 * (doc/hpctoolkit.md, doc/trace.md).
 *
 * The layout is HPCToolkit's doc/FORMATS.md: little-endian structures at absolute offsets, found
 * through section tables. Every structure is read with the size the file states (szProfile is 48
 * in real files, FORMATS.md says 40), every pointer and count is checked against the file's
 * size before use, and a bad one is one error naming the file and the byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sort.h"
#include "base/text.h"
#include "import/hpctoolkit/hpctoolkit.h"
#include "import/importer.h"

/* ---- common file structure ---- */

static int v4_header(const struct hpc_bin *f, const char *format, const char *footer, uint32_t nsec,
		     uint64_t *sz, uint64_t *ptr)
{
	if (f->len < 16 || memcmp(f->p, "HPCTOOLKIT", 10) != 0)
		return hpc_fail(f, 0,
				"not an HPCToolkit database file (it does not start with "
				"HPCTOOLKIT)");
	if (memcmp(f->p + 10, format, 4) != 0)
		return hpc_fail(f, 10, "format '%.4s' where '%s' was expected", f->p + 10, format);
	if (f->p[14] != 4)
		return hpc_fail(f, 14, "major version %u (profview reads version 4)", f->p[14]);
	uint64_t end = 16 + 16 * (uint64_t)nsec;
	if (!hpc_in(f, 0, end + 8, "the file header and footer"))
		return PV_EPARSE;
	if (memcmp(f->p + f->len - 8, footer, 8) != 0)
		return hpc_fail(f, f->len - 8, "the footer is not '%s' (a truncated file?)",
				footer);
	for (uint32_t i = 0; i < nsec; i++) {
		sz[i] = le64(f->p + 16 + 16 * i);
		ptr[i] = le64(f->p + 24 + 16 * i);
		if (!hpc_in(f, ptr[i], sz[i], "a section"))
			return hpc_fail(
			    f, 16 + 16 * i,
			    "section %u at byte %llu (%llu bytes) runs past the end of the "
			    "file (%llu bytes)",
			    i + 1, (unsigned long long)ptr[i], (unsigned long long)sz[i],
			    (unsigned long long)f->len);
	}
	return 0;
}

/* ---- meta.db ---- */

enum {
	SEC_GENERAL,
	SEC_IDNAMES,
	SEC_METRICS,
	SEC_CONTEXT,
	SEC_STRINGS,
	SEC_MODULES,
	SEC_FILES,
	SEC_FUNCTIONS,
	NR_META_SECTIONS
};

struct table {
	uint64_t p;	 /* first element */
	uint32_t n;	 /* elements */
	uint32_t stride; /* the size the file states */
	uint64_t last_p; /* the last pointer found (0: none) and its element */
	uint32_t last;
};

struct v4 {
	struct pv_builder *b;
	struct pv_error *err;
	struct hpc_names names; /* functions without a name named from --symbols' binaries */
	struct hpc_bin meta;
	uint64_t sz[NR_META_SECTIONS], ptr[NR_META_SECTIONS];
	const char *kind_name[256];
	uint32_t nr_kinds;
	struct table mods, files, fns;
	pv_module_ix *mod_row;
	pv_source_ix *file_row;
	pv_func_ix *fn_row;
	/* metrics: per meta.db metric, its model metric and the ids of its values */
	uint32_t nr_meta_metrics;
	uint32_t nm;   /* model metrics */
	double *scale; /* [model metric] */
	/*
	 * [propMetricId] -> model metric + 1, 0 when none; [statMetricId] -> model metric + 1 (the
	 * sum of inclusive values). Zero-filled by calloc: the pages of ids no value names are
	 * never touched.
	 */
	uint32_t *prop_metric, *stat_metric;
	bool *point_only;  /* [model metric]: no inclusive values, point values used */
	uint64_t fraction; /* values that were not whole numbers in the model's unit */
	/* contexts: ctxId -> node, in an array for the ids below ctx_cap (hpcprof numbers them
	 * densely), in a map past it */
	uint32_t *ctx_node, ctx_cap;
	struct u64map ctx;
	struct hpc_cct cct;
	uint64_t hidden, hidden_ctx; /* values (and contexts) of contexts the tree does not list */
	uint8_t *hidden_seen;
	uint32_t hidden_cap;
	pv_thread_ix *prof_thread; /* [profile index in profile.db] -> thread, PV_NONE */
};

/*
 * Index of the element of t that p points at, or PV_NONE after failing. The contexts of one file
 * or function come together: the last one found is kept, and the division is 32 bits wide when
 * the offset allows (64-bit divisions are several times slower).
 */
static uint32_t element(struct v4 *r, struct table *t, uint64_t p, uint64_t at, const char *what)
{
	if (p == t->last_p && p)
		return t->last;
	uint64_t d = p - t->p;
	if (p >= t->p && d < (uint64_t)t->n * t->stride) {
		uint64_t i = d <= UINT32_MAX ? (uint32_t)d / t->stride : d / t->stride;
		if (i * t->stride == d) {
			t->last_p = p;
			t->last = (uint32_t)i;
			return (uint32_t)i;
		}
	}
	hpc_fail(&r->meta, at, "a pointer to %s (0x%llx) that points at no %s", what,
		 (unsigned long long)p, what);
	return PV_NONE;
}

/*
 * The header of an array in a section (FORMATS.md): a pointer, then the count and the element
 * size in one of three layouts. The array is checked to lie in the file and its elements to be
 * at least min bytes (the size of version 4.0; later versions may only grow them).
 */
enum layout {
	N32_SZ8,  /* u32 count at 8, u8 size at 12 (metrics, profiles, contexts, traces) */
	N32_SZ16, /* u32 count at 8, u16 size at 12 (modules, files, functions) */
	N16_SZ8,  /* u16 count at 8, u8 size at 10 (entry points) */
};

static int v4_array(const struct hpc_bin *f, uint64_t at, uint64_t secsz, enum layout l,
		    uint32_t min, const char *what, struct table *t)
{
	uint64_t hdr = l == N16_SZ8 ? 11 : l == N32_SZ8 ? 13 : 14;
	if (secsz < hdr)
		return hpc_fail(f, at, "the section of the %s is %llu bytes, less than its header",
				what, (unsigned long long)secsz);
	const uint8_t *h = f->p + at;
	t->p = le64(h);
	t->n = l == N16_SZ8 ? le16(h + 8) : le32(h + 8);
	t->stride = l == N16_SZ8 ? h[10] : l == N32_SZ8 ? h[12] : le16(h + 12);
	t->last_p = 0;
	if (t->n && t->stride < min)
		return hpc_fail(f, at + hdr - (l == N32_SZ16 ? 2 : 1),
				"%s of %u bytes each, less than the %u of version 4.0", what,
				t->stride, min);
	if (!hpc_in(f, t->p, (uint64_t)t->n * t->stride, what))
		return PV_EPARSE;
	return 0;
}

static int read_table(struct v4 *r, uint32_t sec, struct table *t, uint32_t min, const char *what)
{
	return v4_array(&r->meta, r->ptr[sec], r->sz[sec], N32_SZ16, min, what, t);
}

/* A string of meta.db, "" for a 0 pointer. */
static const char *meta_str(struct v4 *r, uint64_t p, uint64_t at, const char *what)
{
	if (!p)
		return "";
	const char *s = hpc_cstr(&r->meta, p, what);
	if (!s)
		hpc_fail(&r->meta, at, "%s points at no string (0x%llx)", what,
			 (unsigned long long)p);
	return s;
}

static pv_module_ix module_of(struct v4 *r, uint64_t p, uint64_t at)
{
	if (!p)
		return PV_NONE;
	uint32_t i = element(r, &r->mods, p, at, "load module");
	if (i == PV_NONE)
		return PV_NONE;
	if (r->mod_row[i] == PV_NONE) {
		uint64_t e = r->mods.p + (uint64_t)i * r->mods.stride;
		const char *path = meta_str(r, le64(r->meta.p + e + 8), e + 8, "a module's path");
		if (!path)
			return PV_NONE;
		r->mod_row[i] = hpc_module(r->b, path);
	}
	return r->mod_row[i];
}

static pv_source_ix file_of(struct v4 *r, uint64_t p, uint64_t at)
{
	if (!p)
		return PV_NONE;
	uint32_t i = element(r, &r->files, p, at, "source file");
	if (i == PV_NONE)
		return PV_NONE;
	if (r->file_row[i] == PV_NONE) {
		uint64_t e = r->files.p + (uint64_t)i * r->files.stride;
		const char *path = meta_str(r, le64(r->meta.p + e + 8), e + 8, "a file's path");
		if (!path)
			return PV_NONE;
		r->file_row[i] = builder_source(r->b, builder_cstr(r->b, path));
	}
	return r->file_row[i];
}

static pv_func_ix function_of(struct v4 *r, uint64_t p, uint64_t at, bool *bad)
{
	uint32_t i = element(r, &r->fns, p, at, "function");
	if (i == PV_NONE) {
		*bad = true;
		return PV_NONE;
	}
	if (r->fn_row[i] == PV_NONE) {
		uint64_t e = r->fns.p + (uint64_t)i * r->fns.stride;
		const uint8_t *q = r->meta.p + e;
		const char *name = meta_str(r, le64(q), e, "a function's name");
		pv_module_ix m = module_of(r, le64(q + 8), e + 8);
		pv_source_ix s = file_of(r, le64(q + 24), e + 24);
		if (!name || r->err->code) {
			*bad = true;
			return PV_NONE;
		}
		uint64_t off = le64(q + 16);
		/* an anonymous function is named by its address, as hpcviewer does */
		r->fn_row[i] =
		    *name ? builder_func(r->b, builder_cstr(r->b, name), m, s, le32(q + 32))
		    : m != PV_NONE ? hpc_addr_func(r->b, &r->names, m, off)
				   : builder_func(r->b, builder_cstr(r->b, "<unknown function>"), m,
						  s, le32(q + 32));
	}
	return r->fn_row[i];
}

static int read_id_names(struct v4 *r)
{
	const struct hpc_bin *f = &r->meta;
	uint64_t at = r->ptr[SEC_IDNAMES];
	if (r->sz[SEC_IDNAMES] < 9)
		return hpc_fail(f, at, "the identifier names section is %llu bytes, less than 9",
				(unsigned long long)r->sz[SEC_IDNAMES]);
	uint64_t pp = le64(f->p + at);
	r->nr_kinds = f->p[at + 8];
	if (!hpc_in(f, pp, 8 * (uint64_t)r->nr_kinds, "the identifier names"))
		return PV_EPARSE;
	for (uint32_t k = 0; k < r->nr_kinds; k++) {
		r->kind_name[k] = meta_str(r, le64(f->p + pp + 8 * k), pp + 8 * k, "a kind's name");
		if (!r->kind_name[k])
			return PV_EPARSE;
	}
	return 0;
}

/*
 * metrics/default.yaml (HPCToolkit's METRICS.yaml format), read line by line as hpcprof writes
 * it: under roots:, a "- name: X" line followed by "description: Y", and the formulas of X's
 * first variant, "inclusive: F" and "exclusive: F" (or F on a "standard:" or "custom:" line
 * below each: standard first); under inputs:, "- &ANCHOR" followed by "metric:", "scope:",
 * "formula:", "combine:" (or "<<: *OTHER", another input's). A missing or odd file only costs
 * the descriptions and the derived metrics.
 */
static char *yaml_scalar(const char *s, const char *end)
{
	s = text_skip_blanks(s, end);
	while (end > s && (text_is_blank(end[-1]) || end[-1] == '\r'))
		end--;
	char *out = pv_malloc((size_t)(end - s) + 1);
	if (!out)
		return NULL;
	size_t n = 0;
	if (end - s >= 2 && (*s == '"' || *s == '\'') && end[-1] == *s) {
		char q = *s++;
		end--;
		for (; s < end; s++) {
			if (q == '"' && *s == '\\' && s + 1 < end)
				s++;
			else if (q == '\'' && *s == '\'' && s + 1 < end && s[1] == '\'')
				s++;
			out[n++] = *s;
		}
	} else {
		memcpy(out, s, (size_t)(end - s));
		n = (size_t)(end - s);
	}
	out[n] = 0;
	return out;
}

struct yaml_metric {
	char *name, *desc;
	char *incl; /* the first variant's inclusive formula, NULL when none was seen */
	char *excl; /* its exclusive formula, NULL when none was seen */
	bool incl_std,
	    excl_std;  /* each is the standard one (a custom one is kept till one comes) */
	size_t indent; /* of its keys (name:, description:, variants:, children:) */
};

struct yaml_input {
	char *anchor, *metric, *formula, *combine, *scope;
};

struct yaml {
	struct yaml_metric *m;
	uint32_t n, cap;
	struct yaml_input *in;
	uint32_t nin, incap;
};

/* The text of "key: value" at t (after the indentation) when it is that key, else NULL. */
static const char *yaml_key(const char *t, const char *eol, const char *key)
{
	size_t n = strlen(key);
	if ((size_t)(eol - t) > n && memcmp(t, key, n) == 0 && t[n] == ':')
		return t + n + 1;
	return NULL;
}

/*
 * The metric a key at indentation ind belongs to: the last one whose keys are at that
 * indentation or less (the metrics listed after it with deeper keys are its children, whose
 * lists are closed); NULL when none.
 */
static struct yaml_metric *yaml_owner(struct yaml *y, size_t ind)
{
	for (uint32_t k = y->n; k-- > 0;)
		if (y->m[k].indent <= ind)
			return &y->m[k];
	return NULL;
}

/* An input's own key: it wins over one merged in from another input ("<<: *OTHER"). */
static void yaml_set(char **field, const char *v, const char *eol)
{
	pv_free(*field);
	*field = yaml_scalar(v, eol);
}

static bool yaml_room(void **a, uint32_t n, uint32_t *cap, size_t elt)
{
	if (n < *cap)
		return true;
	uint32_t nc = *cap ? *cap * 2 : 16;
	void *g = pv_realloc(*a, nc * elt);
	if (!g)
		return false;
	memset((char *)g + n * elt, 0, (nc - n) * elt);
	*a = g;
	*cap = nc;
	return true;
}

/* A formula of a metric's first variant, on the line at v: a standard one wins over a custom. */
static void yaml_formula(struct yaml_metric *m, bool incl, bool standard, const char *v,
			 const char *eol)
{
	char **f = incl ? &m->incl : &m->excl;
	bool *was = incl ? &m->incl_std : &m->excl_std;
	if (*f && (*was || !standard))
		return;
	pv_free(*f);
	*f = yaml_scalar(v, eol);
	*was = standard;
}

/* read_yaml's place in the file. */
struct yaml_reader {
	struct yaml *y;
	enum { Y_NONE, Y_INPUTS, Y_ROOTS } sec;
	enum { Y_NO_BLOCK, Y_INCL, Y_EXCL } block; /* "inclusive:" without its formula */
	struct yaml_metric *vm;			   /* the metric of the variants: being read */
	size_t variant_ind; /* the indentation of its first variant's name, 0: none yet */
};

/* "<<: *OTHER" at v: the keys of the earlier input OTHER that ip has not set. */
static void yaml_merge_input(struct yaml *y, struct yaml_input *ip, const char *v, const char *eol)
{
	v = text_skip_blanks(v, eol);
	for (uint32_t k = 0; v < eol && *v == '*' && k + 1 < y->nin; k++) {
		const struct yaml_input *o = &y->in[k];
		size_t n = strlen(o->anchor);
		if ((size_t)(eol - v - 1) < n || memcmp(v + 1, o->anchor, n) ||
		    (v + 1 + n < eol && !text_is_blank(v[1 + n]) && v[1 + n] != '\r'))
			continue;
		if (o->metric && !ip->metric)
			ip->metric = pv_strdup(o->metric);
		if (o->formula && !ip->formula)
			ip->formula = pv_strdup(o->formula);
		if (o->combine && !ip->combine)
			ip->combine = pv_strdup(o->combine);
		if (o->scope && !ip->scope)
			ip->scope = pv_strdup(o->scope);
	}
}

/* A line of inputs: (after the indentation t): a new "- &ANCHOR" or a key of the last one.
 * False when out of memory. */
static bool yaml_input_line(struct yaml *y, const char *t, const char *eol)
{
	struct yaml_input *ip = y->nin ? &y->in[y->nin - 1] : NULL;
	const char *v;
	if (eol - t > 3 && memcmp(t, "- &", 3) == 0) {
		if (!yaml_room((void **)&y->in, y->nin, &y->incap, sizeof(*y->in)))
			return false;
		if ((y->in[y->nin].anchor = yaml_scalar(t + 3, eol)))
			y->nin++;
	} else if (ip) {
		if ((v = yaml_key(t, eol, "metric")))
			yaml_set(&ip->metric, v, eol);
		else if ((v = yaml_key(t, eol, "formula")))
			yaml_set(&ip->formula, v, eol);
		else if ((v = yaml_key(t, eol, "combine")))
			yaml_set(&ip->combine, v, eol);
		else if ((v = yaml_key(t, eol, "scope")))
			yaml_set(&ip->scope, v, eol);
		else if ((v = yaml_key(t, eol, "<<")))
			yaml_merge_input(y, ip, v, eol);
	}
	return true;
}

/* A line of roots: at indentation ind (text at t): a metric, its description, its first
 * variant's formulas; m is the metric the line's keys belong to. False when out of memory. */
static bool yaml_roots_line(struct yaml_reader *rd, struct yaml_metric *m, const char *t,
			    const char *eol, size_t ind)
{
	struct yaml *y = rd->y;
	const char *v;
	if (eol - t > 8 && memcmp(t, "- name:", 7) == 0) {
		if (!yaml_room((void **)&y->m, y->n, &y->cap, sizeof(*y->m)))
			return false;
		y->m[y->n].indent = ind + 2;
		if ((y->m[y->n].name = yaml_scalar(t + 7, eol)))
			y->n++;
		rd->block = Y_NO_BLOCK;
		rd->vm = NULL;
	} else if (m && !m->desc && (v = yaml_key(t, eol, "description"))) {
		m->desc = yaml_scalar(v, eol);
	} else if (yaml_key(t, eol, "variants")) {
		rd->vm = m;
		rd->variant_ind = 0;
		rd->block = Y_NO_BLOCK;
	} else if (rd->vm &&
		   ((v = yaml_key(t, eol, "inclusive")) || (v = yaml_key(t, eol, "exclusive")))) {
		bool incl = *t == 'i';
		rd->block = incl ? Y_INCL : Y_EXCL;
		v = text_skip_blanks(v, eol);
		if (v != eol && *v != '\r') { /* the formula on the line */
			yaml_formula(rd->vm, incl, true, v, eol);
			rd->block = Y_NO_BLOCK;
		}
	} else if (rd->vm && rd->block != Y_NO_BLOCK &&
		   ((v = yaml_key(t, eol, "standard")) || (v = yaml_key(t, eol, "custom")))) {
		yaml_formula(rd->vm, rd->block == Y_INCL, *t == 's', v, eol);
	}
	return true;
}

/* One line [s, eol) of the file. False when out of memory. */
static bool yaml_line(struct yaml_reader *rd, const char *s, const char *eol)
{
	const char *t = s;
	while (t < eol && *t == ' ')
		t++;
	if (s == t && eol - s >= 6 && memcmp(s, "roots:", 6) == 0)
		rd->sec = Y_ROOTS;
	else if (s == t && eol - s >= 7 && memcmp(s, "inputs:", 7) == 0)
		rd->sec = Y_INPUTS;
	else if (s == t && t < eol && *t != '#' && *t != '-')
		rd->sec = Y_NONE;
	size_t ind = (size_t)(t - s);
	struct yaml_metric *m = yaml_owner(rd->y, ind);
	if (rd->sec == Y_INPUTS && !yaml_input_line(rd->y, t, eol))
		return false;
	bool blank = t == eol || *t == '\r' || *t == '#';
	/* the first variant's keys only: the next variant's name ends them */
	if (rd->vm && !blank && ind <= rd->variant_ind)
		rd->vm = NULL;
	else if (rd->vm && !blank && !rd->variant_ind)
		rd->variant_ind = ind;
	return rd->sec != Y_ROOTS || yaml_roots_line(rd, m, t, eol, ind);
}

static void read_yaml(const struct pv_input *meta_in, struct yaml *y)
{
	struct pv_input in;
	struct pv_error e;
	char *path = NULL;
	memset(y, 0, sizeof(*y));
	if (hpc_sibling(meta_in, "metrics/default.yaml", &in, &path, &e)) {
		pv_free(path);
		return;
	}
	const char *s = in.data, *end = in.data + in.len;
	struct yaml_reader rd = {.y = y};
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		if (!eol)
			eol = end;
		if (!yaml_line(&rd, s, eol))
			break;
		s = eol + 1;
	}
	input_close(&in);
	pv_free(path);
}

static void yaml_free(struct yaml *y)
{
	for (uint32_t i = 0; i < y->n; i++) {
		pv_free(y->m[i].name);
		pv_free(y->m[i].desc);
		pv_free(y->m[i].incl);
		pv_free(y->m[i].excl);
	}
	for (uint32_t i = 0; i < y->nin; i++) {
		pv_free(y->in[i].anchor);
		pv_free(y->in[i].metric);
		pv_free(y->in[i].formula);
		pv_free(y->in[i].combine);
		pv_free(y->in[i].scope);
	}
	pv_free(y->m);
	pv_free(y->in);
	memset(y, 0, sizeof(*y));
}

/* ---- the metrics YAML's derived metrics ---- */

struct yconv {
	const struct yaml *y;
	char *out;
	size_t len, cap;
	const char *refs[64]; /* the metric each $K of out names */
	uint32_t nrefs;
	bool exclusive; /* an exclusive formula: its inputs are exclusive values */
	char why[160];	/* set when the formula cannot be written in hpcviewer's syntax */
};

static void yc_put(struct yconv *c, const char *s, size_t n)
{
	if (c->len + n + 1 > c->cap) {
		snprintf(c->why, sizeof(c->why), "%s", "a formula too long");
		return;
	}
	memcpy(c->out + c->len, s, n);
	c->len += n;
	c->out[c->len] = 0;
}

/* An input by its anchor: its metric, when its values are the metric's own summed ($$,
 * sum). */
static void yc_alias(struct yconv *c, const char *a, size_t n)
{
	for (uint32_t k = 0; k < c->y->nin; k++) {
		const struct yaml_input *in = &c->y->in[k];
		if (strlen(in->anchor) != n || memcmp(in->anchor, a, n) != 0)
			continue;
		if (!in->metric || (in->formula && strcmp(in->formula, "$$") != 0) ||
		    (in->combine && strcmp(in->combine, "sum") != 0)) {
			snprintf(c->why, sizeof(c->why),
				 "input *%.*s is not the sum of a metric's values (formula %s, "
				 "combine %s)",
				 (int)(n < 60 ? n : 60), a, in->formula ? in->formula : "$$",
				 in->combine ? in->combine : "sum");
			return;
		}
		/* an inclusive formula reads the metrics' totals, an exclusive one their
		 * selves (function, lex_aware or point scope: profview's self of the row)
		 */
		bool exec = !in->scope || strcmp(in->scope, "execution") == 0;
		if (exec == c->exclusive) {
			snprintf(c->why, sizeof(c->why),
				 "input *%.*s is the %s values of '%s' in an %s formula",
				 (int)(n < 60 ? n : 60), a, in->scope ? in->scope : "execution",
				 in->metric, c->exclusive ? "exclusive" : "inclusive");
			return;
		}
		if (c->nrefs == 64) {
			snprintf(c->why, sizeof(c->why), "%s", "more than 64 inputs");
			return;
		}
		char ref[16];
		c->refs[c->nrefs] = in->metric;
		yc_put(c, ref, (size_t)snprintf(ref, sizeof(ref), "$%u", c->nrefs++));
		return;
	}
	snprintf(c->why, sizeof(c->why), "*%.*s is no input of the file", (int)(n < 60 ? n : 60),
		 a);
}

/*
 * An operator map's key at s, a '{': "{OP:" with OP one of + - * / ^, quoted or not
 * (hpcprof writes {/: [a, b]} and {"*": [100, x]}). Returns OP and sets *past to the ':',
 * else 0.
 */
static char op_key(const char *s, const char **past)
{
	const char *p = s + 1;
	while (*p == ' ')
		p++;
	char q = *p == '"' || *p == '\'' ? *p++ : 0;
	char op = *p && strchr("+-*/^", *p) ? *p++ : 0;
	if (!op || (q && *p++ != q))
		return 0;
	while (*p == ' ')
		p++;
	if (*p != ':')
		return 0;
	*past = p;
	return op;
}

/*
 * A formula of the metrics YAML in hpcviewer's syntax: an input (*ANCHOR) becomes $K, a
 * !!seq
 * [...] a parenthesis whose elements are joined by blanks, a call f:[a, b] (or {f: [a, b]})
 * f(a, b), log:[a] ln(a); hpcprof's operator maps {OP: [a, b, ...]} (a b ...) joined by OP,
 * and
 * {-: [a]} (-a), as hpcviewer reads them; quotes go; operators and numbers stay.
 */
static void yaml_to_formula(struct yconv *c, const char *f)
{
	struct {
		bool args;
		char op; /* an operator map's: the elements are joined by it */
		size_t name_at, commas, open_at;
	} st[64];
	uint32_t sp = 0;
	bool call = false; /* "name:" just read */
	char op = 0;	   /* "{OP:" just read */
	size_t name_at = 0;
	char prev = '['; /* the last character that is no blank */
	for (const char *s = f; *s && !c->why[0]; s++) {
		char ch = *s;
		const char *past;
		if (op && ch != ' ' && ch != '[') {
			snprintf(c->why, sizeof(c->why), "{%c: ...} without its [...]", op);
			break;
		}
		if (ch == '*' && strchr("[,{:", prev) && s[1] && !strchr(" ,]}", s[1])) {
			size_t n = strcspn(s + 1, " ,]}");
			yc_alias(c, s + 1, n);
			s += n;
			prev = 'a';
			continue;
		}
		if (ch == '{' && (op = op_key(s, &past)) != 0) {
			s = past;
			while (s[1] == ' ')
				s++;
			prev = ':';
			continue;
		}
		if (ch == '[') {
			if (sp == 64) {
				snprintf(c->why, sizeof(c->why), "%s", "nested more than 64 deep");
				break;
			}
			st[sp].args = call;
			st[sp].op = op;
			st[sp].name_at = name_at;
			st[sp].open_at = c->len;
			st[sp++].commas = 0;
			call = false;
			op = 0;
			yc_put(c, "(", 1);
		} else if (ch == ']') {
			if (!sp) {
				snprintf(c->why, sizeof(c->why), "%s", "a ']' without its '['");
				break;
			}
			sp--;
			if (c->len && c->out[c->len - 1] == ' ')
				c->len--;
			if (st[sp].args && !st[sp].commas && c->len >= st[sp].name_at + 4 &&
			    memcmp(c->out + st[sp].name_at, "log(", 4) == 0) {
				/* log:[a] is the natural logarithm */
				memmove(c->out + st[sp].name_at + 1, c->out + st[sp].name_at + 2,
					c->len - st[sp].name_at - 2);
				c->out[st[sp].name_at] = 'l';
				c->out[st[sp].name_at + 1] = 'n';
				c->len--;
			}
			if (st[sp].op == '-' && !st[sp].commas) {
				/* {-: [a]} is -a */
				yc_put(c, " ", 1);
				if (c->why[0])
					break;
				memmove(c->out + st[sp].open_at + 2, c->out + st[sp].open_at + 1,
					c->len - st[sp].open_at - 2);
				c->out[st[sp].open_at + 1] = '-';
			}
			yc_put(c, ")", 1);
		} else if (ch == ',' && sp && st[sp - 1].op) {
			char join[3] = {' ', st[sp - 1].op, ' '};
			st[sp - 1].commas++;
			if (c->len && c->out[c->len - 1] == ' ')
				c->len--;
			yc_put(c, join, 3);
		} else if (ch == ',' && sp && st[sp - 1].args) {
			st[sp - 1].commas++;
			yc_put(c, ", ", 2);
		} else if (ch == ',' || ch == ' ') {
			/* one blank between the elements of a group, none after '(' */
			if (c->len && !strchr(" (", c->out[c->len - 1]))
				yc_put(c, " ", 1);
		} else if (ch == ':' && text_is_alpha(prev)) {
			name_at = c->len;
			while (name_at && text_is_alpha(c->out[name_at - 1]))
				name_at--;
			call = true;
			while (s[1] == ' ')
				s++;
		} else if (ch != '{' && ch != '}' && ch != '\'' && ch != '"') {
			yc_put(c, s, 1);
		}
		if (ch != ' ')
			prev = ch;
	}
	if (!c->why[0] && (sp || op))
		snprintf(c->why, sizeof(c->why), "%s",
			 sp ? "a '[' without its ']'" : "an operator map without its [...]");
}

static const char *yaml_ref(void *ctx, char sigil, uint32_t id)
{
	const struct yconv *c = ctx;
	return sigil == '$' && id < c->nrefs ? c->refs[id] : NULL;
}

/*
 * The derived metrics of the metrics YAML: each metric of roots: (or their children) that
 * is none of meta.db's and has a formula: its inclusive one for a row's total, its
 * exclusive one for its self (when it is not the same over the selves), as formulas of the
 * model's metrics. A metric with an exclusive formula alone has no totals (hpcviewer shows
 * it as an exclusive metric only).
 */
static int yaml_formulas(struct v4 *r, const struct yaml *y, const char **names, uint32_t nmet)
{
	char buf[2][4096];
	for (uint32_t k = 0; k < y->n; k++) {
		const struct yaml_metric *m = &y->m[k];
		bool raw = false;
		for (uint32_t i = 0; i < nmet && !raw; i++)
			raw = strcmp(names[i], m->name) == 0;
		if (raw || (!m->incl && !m->excl))
			continue;
		/* both formulas' inputs are numbered in one list: $0.. of the first, then
		 * on */
		struct yconv c = {.y = y};
		const char *src[2] = {m->incl, m->excl};
		for (int side = 0; side < 2 && !c.why[0]; side++) {
			buf[side][0] = 0;
			if (!src[side])
				continue;
			c.out = buf[side];
			c.len = 0;
			c.cap = sizeof(buf[side]);
			c.exclusive = side == 1;
			yaml_to_formula(&c, src[side]);
			if (c.why[0])
				builder_lossy(r->b, 1, "derived metric '%s' = '%s': %s (left out)",
					      m->name, src[side], c.why);
		}
		if (c.why[0])
			continue;
		struct hpc_formula_def d = {m->name,
					    m->desc,
					    {m->incl ? buf[0] : NULL, m->excl ? buf[1] : NULL},
					    {m->incl, m->excl}};
		if (hpc_formula(r->b, &d, yaml_ref, &c))
			return pv_error_set(r->err, PV_ENOMEM, "out of memory");
	}
	return 0;
}

/* Propagation scope types (FORMATS.md). */
enum { SCOPE_CUSTOM = 0, SCOPE_POINT = 1, SCOPE_EXECUTION = 2, SCOPE_TRANSITIVE = 3 };

/* read_metrics' view of meta.db's metric descriptions. */
struct metric_descs {
	uint64_t pm;	      /* the first description */
	uint32_t n, stride;   /* descriptions, and the size of one */
	uint32_t szpsi, szss; /* the size of a propagated value's and a statistic's entry */
	const char **names;   /* [description] */
	uint32_t *model;      /* [description] -> model metric, PV_NONE */
};

/*
 * The model's metrics in the order of default.yaml (hpcviewer's) with its descriptions, then
 * the others in meta.db's order.
 */
static void model_metrics(struct v4 *r, struct metric_descs *md, const struct yaml *yd)
{
	const struct yaml_metric *y = yd->m;
	for (uint32_t pass = 0; pass < 2; pass++) {
		for (uint32_t k = 0; k < (pass ? md->n : yd->n); k++) {
			for (uint32_t i = 0; i < md->n; i++) {
				if (md->model[i] != PV_NONE ||
				    (pass == 0 ? strcmp(md->names[i], y[k].name) : i != k))
					continue;
				double scale;
				enum pv_unit u = hpc_metric_unit(md->names[i], &scale);
				md->model[i] =
				    builder_metric(r->b, builder_cstr(r->b, md->names[i]), u);
				if (md->model[i] == PV_NONE)
					break;
				r->scale[md->model[i]] = scale;
				if (pass == 0 && y[k].desc)
					builder_metric_description(r->b, md->model[i],
								   builder_cstr(r->b, y[k].desc));
			}
		}
	}
}

/*
 * The propagation scope of metric description e whose values the model takes: the execution
 * scope's (inclusive values), else the point scope's. *id and *scope: its value id and scope,
 * *id PV_NONE when it has neither; *inclusive: whether it is the execution scope's.
 */
static int metric_scope(struct v4 *r, const struct metric_descs *md, uint64_t e, uint32_t *id,
			uint64_t *scope, bool *inclusive)
{
	const struct hpc_bin *f = &r->meta;
	uint64_t ppsi = le64(f->p + e + 8);
	uint32_t npsi = le16(f->p + e + 24);
	uint64_t exec_scope = 0, point_scope = 0;
	uint32_t exec_id = PV_NONE, point_id = PV_NONE;
	for (uint32_t j = 0; j < npsi; j++) {
		uint64_t s = ppsi + (uint64_t)j * md->szpsi;
		uint64_t ps = le64(f->p + s);
		if (!hpc_in(f, ps, 10, "a propagation scope"))
			return PV_EPARSE;
		uint8_t type = f->p[ps + 8];
		if (type == SCOPE_EXECUTION && exec_id == PV_NONE) {
			exec_id = le16(f->p + s + 8);
			exec_scope = ps;
		} else if (type == SCOPE_POINT && point_id == PV_NONE) {
			point_id = le16(f->p + s + 8);
			point_scope = ps;
		}
	}
	*inclusive = exec_id != PV_NONE;
	*id = *inclusive ? exec_id : point_id;
	*scope = *inclusive ? exec_scope : point_scope;
	return 0;
}

/* Metric i's value ids: its thread values' (propMetricId) and the summary's sum (statMetricId). */
static int metric_ids(struct v4 *r, const struct metric_descs *md, uint32_t i)
{
	const struct hpc_bin *f = &r->meta;
	uint64_t e = md->pm + (uint64_t)i * md->stride;
	uint64_t ppsi = le64(f->p + e + 8), pss = le64(f->p + e + 16);
	uint32_t npsi = le16(f->p + e + 24), nss = le16(f->p + e + 26);
	if (!hpc_in(f, ppsi, (uint64_t)npsi * md->szpsi, "a metric's propagated values") ||
	    !hpc_in(f, pss, (uint64_t)nss * md->szss, "a metric's summary statistics"))
		return PV_EPARSE;
	uint32_t use;
	uint64_t scope;
	bool inclusive;
	int rc = metric_scope(r, md, e, &use, &scope, &inclusive);
	if (rc)
		return rc;
	const char *name = md->names[i];
	uint32_t model = md->model[i];
	if (use == PV_NONE) {
		builder_lossy(r->b, 1, "metric '%s': neither inclusive nor point values (left out)",
			      name);
		return 0;
	}
	r->point_only[model] = !inclusive;
	if (!inclusive)
		builder_lossy(r->b, 1,
			      "metric '%s': no inclusive values; its point values at contexts the "
			      "tree does not list are left out",
			      name);
	r->prop_metric[use] = model + 1;
	for (uint32_t j = 0; j < nss; j++) {
		uint64_t s = pss + (uint64_t)j * md->szss;
		const char *formula = meta_str(r, le64(f->p + s + 8), s + 8, "a formula");
		if (!formula)
			return PV_EPARSE;
		if (le64(f->p + s) == scope && f->p[s + 16] == 0 && strcmp(formula, "$$") == 0)
			r->stat_metric[le16(f->p + s + 18)] = model + 1;
	}
	return 0;
}

/* The metric descriptions' names (md->names) and the id maps' room; md->model all PV_NONE. */
static int metrics_alloc(struct v4 *r, struct metric_descs *md)
{
	const struct hpc_bin *f = &r->meta;
	uint32_t n = md->n ? md->n : 1;
	r->prop_metric = pv_calloc(65536, sizeof(uint32_t));
	r->stat_metric = pv_calloc(65536, sizeof(uint32_t));
	r->scale = pv_calloc(n, sizeof(double));
	r->point_only = pv_calloc(n, sizeof(bool));
	md->model = pv_malloc(n * sizeof(uint32_t));
	md->names = pv_calloc(n, sizeof(char *));
	if (!r->prop_metric || !r->stat_metric || !r->scale || !r->point_only || !md->model ||
	    !md->names)
		return pv_error_set(r->err, PV_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < md->n; i++) {
		uint64_t e = md->pm + (uint64_t)i * md->stride;
		md->names[i] = meta_str(r, le64(f->p + e), e, "a metric's name");
		if (!md->names[i])
			return PV_EPARSE;
		md->model[i] = PV_NONE;
	}
	return 0;
}

static int read_metrics(struct v4 *r, const struct pv_input *meta_in)
{
	const struct hpc_bin *f = &r->meta;
	uint64_t at = r->ptr[SEC_METRICS];
	struct table mt;
	int rc = v4_array(f, at, r->sz[SEC_METRICS], N32_SZ8, 0x1c, "metric descriptions", &mt);
	if (rc)
		return rc;
	struct metric_descs md = {.pm = mt.p, .n = mt.n, .stride = mt.stride};
	md.szpsi = f->p[at + 13];
	md.szss = f->p[at + 14];
	if (md.n && (md.szpsi < 0x0a || md.szss < 0x14))
		return hpc_fail(f, at + 13,
				"propagated values and statistics of %u and %u bytes, less than "
				"the 10 and 20 of version 4.0",
				md.szpsi, md.szss);
	struct yaml yd = {0};
	if (!(rc = metrics_alloc(r, &md))) {
		if (meta_in)
			read_yaml(meta_in, &yd);
		model_metrics(r, &md, &yd);
		rc = yaml_formulas(r, &yd, md.names, md.n);
		yaml_free(&yd);
		r->nm = r->b->p->metrics.len;
		r->nr_meta_metrics = md.n;
	}
	for (uint32_t i = 0; i < md.n && !rc && !r->b->status; i++)
		rc = metric_ids(r, &md, i);
	pv_free(md.names);
	pv_free(md.model);
	return rc ? rc : r->b->status;
}

/* Context tree: lexical types and relations (FORMATS.md). */
enum { LEX_FUNCTION = 0, LEX_LOOP = 1, LEX_LINE = 2, LEX_INSTRUCTION = 3 };
enum { REL_LEXICAL = 0, REL_CALL = 1, REL_INLINED = 2 };

struct walk {
	uint64_t at, end; /* the remaining siblings */
	uint32_t parent;  /* their node */
};

static uint32_t ctx_of(const struct v4 *r, uint32_t id)
{
	return id < r->ctx_cap ? r->ctx_node[id] : u64map_get(&r->ctx, id);
}

static int add_ctx(struct v4 *r, uint32_t id, uint32_t node, uint64_t at)
{
	if (ctx_of(r, id) != UINT32_MAX)
		return hpc_fail(&r->meta, at, "context id %u appears twice in the tree", id);
	if (id < r->ctx_cap)
		r->ctx_node[id] = node;
	else if (u64map_put(&r->ctx, id, node))
		return pv_error_set(r->err, PV_ENOMEM, "out of memory");
	return 0;
}

/* read_contexts' walk: the sibling lists still to read, deepest last, and the tree's budget. */
struct ctx_walk {
	struct walk *st;
	uint32_t sp, cap;
	uint64_t budget, seen; /* contexts the file can hold (a tree that lists more loops), read */
	pv_func_ix unknown;    /* "<unknown procedure>" */
};

static int walk_push(struct v4 *r, struct ctx_walk *w, uint64_t at, uint64_t size, uint32_t parent)
{
	if (w->sp == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		struct walk *g = pv_realloc(w->st, w->cap * sizeof(*w->st));
		if (!g)
			return pv_error_set(r->err, PV_ENOMEM, "out of memory");
		w->st = g;
	}
	w->st[w->sp++] = (struct walk){at, at + size, parent};
	return 0;
}

/* A context's flex words: what its flags say it has. */
struct ctx_flex {
	uint64_t pfn, pfile, pmod, off; /* off: PV_ADDR_NONE without a module */
	uint32_t line;
};

static int context_flex(const struct hpc_bin *f, uint64_t c, struct ctx_flex *x)
{
	const uint8_t *q = f->p + c;
	uint32_t nflex = q[23];
	uint8_t flags = q[20];
	*x = (struct ctx_flex){.off = PV_ADDR_NONE};
	uint32_t need = (flags & 1) + (flags & 2 ? 2 : 0) + (flags & 4 ? 2 : 0);
	if (nflex < need)
		return hpc_fail(f, c + 23, "%u flex words, the flags 0x%x need %u", nflex, flags,
				need);
	const uint8_t *flex = q + 32;
	uint32_t wd = 0;
	if (flags & 1)
		x->pfn = le64(flex + 8 * wd++);
	if (flags & 2) {
		x->pfile = le64(flex + 8 * wd);
		x->line = le32(flex + 8 * wd + 8);
		wd += 2;
	}
	if (flags & 4) {
		x->pmod = le64(flex + 8 * wd);
		x->off = le64(flex + 8 * wd + 8);
	}
	return 0;
}

/* The node kind of a context by its lexical type and relation; a function without a name is
 * named by its module's address (or "<unknown procedure>"). */
static enum hpc_kind context_kind(struct v4 *r, const struct ctx_walk *w, uint8_t lex, uint8_t rel,
				  pv_func_ix *fn, pv_module_ix mod, uint64_t off)
{
	if (lex == LEX_FUNCTION || (lex == LEX_INSTRUCTION && rel != REL_LEXICAL)) {
		if (*fn == PV_NONE)
			*fn =
			    mod != PV_NONE ? hpc_addr_func(r->b, &r->names, mod, off) : w->unknown;
		return rel == REL_INLINED ? HPC_INLINE : HPC_FUNC;
	}
	if (lex == LEX_LOOP)
		return HPC_LOOP;
	if (lex != LEX_LINE && lex != LEX_INSTRUCTION)
		builder_lossy(r->b, 1, "contexts of an unknown lexical type, shown as lines");
	return HPC_LINE;
}

/* The context at the cursor of the deepest sibling list: its node, its children pushed. */
static int read_context(struct v4 *r, struct ctx_walk *w)
{
	const struct hpc_bin *f = &r->meta;
	struct walk *top = &w->st[w->sp - 1];
	uint64_t c = top->at;
	if (top->end - c < 32)
		return hpc_fail(f, c,
				"a context of 32 bytes does not fit in what is left of its "
				"parent's children (%llu bytes)",
				(unsigned long long)(top->end - c));
	const uint8_t *q = f->p + c;
	uint64_t size = 32 + 8 * (uint64_t)q[23];
	if (top->end - c < size)
		return hpc_fail(f, c, "a context of %llu bytes runs past its parent's children",
				(unsigned long long)size);
	top->at += size;
	if (++w->seen > w->budget)
		return hpc_fail(f, c,
				"the context tree lists more contexts than the file holds (a loop "
				"in the tree)");
	uint64_t cszc = le64(q), cpc = le64(q + 8);
	uint32_t cid = le32(q + 16);
	struct ctx_flex x;
	int rc = context_flex(f, c, &x);
	if (rc)
		return rc;
	bool bad = false;
	pv_func_ix fn = x.pfn ? function_of(r, x.pfn, c + 32, &bad) : PV_NONE;
	pv_source_ix src = file_of(r, x.pfile, c + 32);
	pv_module_ix mod = module_of(r, x.pmod, c + 32);
	if (bad || r->err->code)
		return PV_EPARSE;
	enum hpc_kind kind = context_kind(r, w, q[22], q[21], &fn, mod, x.off);
	uint32_t node = hpc_cct_add(&r->cct, top->parent, kind, fn, src, x.line,
				    kind == HPC_FUNC || kind == HPC_INLINE ? PV_ADDR_NONE : x.off);
	if (node == PV_NONE)
		return pv_error_set(r->err, PV_ENOMEM, "out of memory");
	if (!cid)
		return hpc_fail(f, c + 16, "a context with id 0 (the id of the whole program)");
	if ((rc = add_ctx(r, cid, node, c + 16)))
		return rc;
	if (!cszc)
		return 0;
	if (!hpc_in(f, cpc, cszc, "a context's children"))
		return PV_EPARSE;
	return walk_push(r, w, cpc, cszc, node);
}

/* The entry point at e: its node under the root, then its whole subtree, depth first. */
static int read_entry(struct v4 *r, struct ctx_walk *w, uint64_t e)
{
	const struct hpc_bin *f = &r->meta;
	uint64_t szc = le64(f->p + e), pc = le64(f->p + e + 8);
	uint32_t id = le32(f->p + e + 16);
	const char *name = meta_str(r, le64(f->p + e + 24), e + 24, "an entry point's name");
	if (!name)
		return PV_EPARSE;
	static const char *const canon[] = {"unknown entry", "main thread", "application thread"};
	uint16_t ekind = le16(f->p + e + 20);
	if (!*name)
		name = ekind < 3 ? canon[ekind] : "<entry point>";
	pv_func_ix efn = builder_func(r->b, builder_cstr(r->b, name), PV_NONE, PV_NONE, 0);
	uint32_t enode = hpc_cct_add(&r->cct, 0, HPC_FUNC, efn, PV_NONE, 0, PV_ADDR_NONE);
	if (enode == PV_NONE)
		return pv_error_set(r->err, PV_ENOMEM, "out of memory");
	int rc = add_ctx(r, id, enode, e + 16);
	if (rc || !szc)
		return rc;
	if (!hpc_in(f, pc, szc, "an entry point's children"))
		return PV_EPARSE;
	if ((rc = walk_push(r, w, pc, szc, enode)))
		return rc;
	while (w->sp && !rc) {
		if (w->st[w->sp - 1].at >= w->st[w->sp - 1].end)
			w->sp--;
		else
			rc = read_context(r, w);
	}
	return rc;
}

/* The context id map and the tree's room, sized by the context section (32 bytes a context). */
static int contexts_reserve(struct v4 *r, uint32_t entries)
{
	uint64_t ncap = r->sz[SEC_CONTEXT] / 32;
	r->ctx_cap = (uint32_t)(ncap + 64 > UINT32_MAX ? UINT32_MAX : ncap + 64);
	r->ctx_node = pv_malloc((size_t)r->ctx_cap * sizeof(uint32_t));
	if (!r->ctx_node)
		return pv_error_set(r->err, PV_ENOMEM, "out of memory");
	memset(r->ctx_node, 0xff, (size_t)r->ctx_cap * sizeof(uint32_t));
	uint32_t nodes = (uint32_t)(ncap > UINT32_MAX / 2 ? UINT32_MAX / 2 : ncap);
	builder_stacks_reserve(r->b, nodes);
	if (hpc_cct_reserve(&r->cct, nodes + entries + 1))
		return pv_error_set(r->err, PV_ENOMEM, "out of memory");
	return 0;
}

static int read_contexts(struct v4 *r)
{
	const struct hpc_bin *f = &r->meta;
	struct table et;
	int rc = v4_array(f, r->ptr[SEC_CONTEXT], r->sz[SEC_CONTEXT], N16_SZ8, 0x20, "entry points",
			  &et);
	if (rc || (rc = contexts_reserve(r, et.n)))
		return rc;
	struct ctx_walk w = {.budget = f->len / 32 + 1};
	w.unknown =
	    builder_func(r->b, builder_cstr(r->b, "<unknown procedure>"), PV_NONE, PV_NONE, 0);
	for (uint32_t i = 0; i < et.n && !rc; i++)
		rc = read_entry(r, &w, et.p + (uint64_t)i * et.stride);
	pv_free(w.st);
	if (rc)
		return rc;
	if (r->b->status)
		return r->b->status;
	return hpc_cct_stacks(r->b, &r->cct, w.unknown);
}

static int v4_meta_open(struct v4 *r, struct pv_builder *b, const struct pv_input *in,
			const char *name, const uint8_t *p, uint64_t len, struct pv_error *err)
{
	r->b = b;
	r->err = err;
	r->meta = (struct hpc_bin){name, p, len, err};
	int rc = v4_header(&r->meta, "meta", "_meta.db", NR_META_SECTIONS, r->sz, r->ptr);
	if (rc)
		return rc;
	if ((rc = read_id_names(r)))
		return rc;
	if ((rc = read_table(r, SEC_MODULES, &r->mods, 16, "load modules")) ||
	    (rc = read_table(r, SEC_FILES, &r->files, 16, "source files")) ||
	    (rc = read_table(r, SEC_FUNCTIONS, &r->fns, 40, "functions")))
		return rc;
	r->mod_row = pv_malloc((r->mods.n ? r->mods.n : 1) * sizeof(pv_module_ix));
	r->file_row = pv_malloc((r->files.n ? r->files.n : 1) * sizeof(pv_source_ix));
	r->fn_row = pv_malloc((r->fns.n ? r->fns.n : 1) * sizeof(pv_func_ix));
	if (!r->mod_row || !r->file_row || !r->fn_row || hpc_cct_init(&r->cct))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	memset(r->mod_row, 0xff, (r->mods.n ? r->mods.n : 1) * sizeof(pv_module_ix));
	memset(r->file_row, 0xff, (r->files.n ? r->files.n : 1) * sizeof(pv_source_ix));
	memset(r->fn_row, 0xff, (r->fns.n ? r->fns.n : 1) * sizeof(pv_func_ix));
	if ((rc = read_metrics(r, in)))
		return rc;
	return read_contexts(r);
}

static void v4_release(struct v4 *r)
{
	pv_free(r->mod_row);
	pv_free(r->file_row);
	pv_free(r->fn_row);
	pv_free(r->scale);
	pv_free(r->prop_metric);
	pv_free(r->stat_metric);
	pv_free(r->point_only);
	pv_free(r->hidden_seen);
	pv_free(r->prof_thread);
	u64map_release(&r->ctx);
	pv_free(r->ctx_node);
	hpc_cct_release(&r->cct);
}

/* ---- profile.db ---- */

struct v4_profile {
	uint64_t at; /* its profile info */
	uint64_t nvals, pvals, pctx, ptuple;
	uint32_t nctx, flags;
	char *name;	      /* the id tuple as text: "NODE 0 CORE 0 THREAD 0" */
	int64_t rank, thread; /* logical ids of its RANK and THREAD, PV_ID_NONE */
	uint32_t order;	      /* index in profile.db */
};

static int read_tuple(struct v4 *r, const struct hpc_bin *f, struct v4_profile *pr)
{
	pr->rank = pr->thread = PV_ID_NONE;
	char buf[512];
	size_t n = 0;
	buf[0] = 0;
	if (!pr->ptuple) {
		snprintf(buf, sizeof(buf), "SUMMARY");
	} else {
		if (!hpc_in(f, pr->ptuple, 8, "an identifier tuple"))
			return PV_EPARSE;
		uint32_t nids = le16(f->p + pr->ptuple);
		if (!hpc_in(f, pr->ptuple + 8, 16 * (uint64_t)nids, "an identifier tuple"))
			return PV_EPARSE;
		for (uint32_t i = 0; i < nids; i++) {
			const uint8_t *q = f->p + pr->ptuple + 8 + 16 * i;
			uint8_t kind = q[0];
			uint32_t logical = le32(q + 4);
			const char *kn = kind < r->nr_kinds ? r->kind_name[kind] : NULL;
			char unk[16];
			if (!kn || !*kn) {
				snprintf(unk, sizeof(unk), "KIND%u", kind);
				kn = unk;
			}
			if (n < sizeof(buf))
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s %u",
						      i ? " " : "", kn, logical);
			if (strcmp(kn, "RANK") == 0)
				pr->rank = logical;
			else if (strcmp(kn, "THREAD") == 0)
				pr->thread = logical;
		}
		if (!nids)
			snprintf(buf, sizeof(buf), "<no identifier>");
	}
	pr->name = pv_strdup(buf);
	return pr->name ? 0 : pv_error_set(r->err, PV_ENOMEM, "out of memory");
}

static int read_profile_infos(struct v4 *r, const struct hpc_bin *f, struct v4_profile **out,
			      uint32_t *nout)
{
	uint64_t sz[2], ptr[2];
	int rc = v4_header(f, "prof", "_prof.db", 2, sz, ptr);
	if (rc)
		return rc;
	struct table pt;
	if ((rc = v4_array(f, ptr[0], sz[0], N32_SZ8, 0x2c, "profile infos", &pt)))
		return rc;
	uint64_t pp = pt.p;
	uint32_t np = pt.n, szp = pt.stride;
	struct v4_profile *pr = pv_calloc(np ? np : 1, sizeof(*pr));
	if (!pr)
		return pv_error_set(r->err, PV_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < np && !rc; i++) {
		uint64_t e = pp + (uint64_t)i * szp;
		const uint8_t *q = f->p + e;
		pr[i].at = e;
		pr[i].order = i;
		pr[i].nvals = le64(q);
		pr[i].pvals = le64(q + 8);
		pr[i].nctx = le32(q + 16);
		pr[i].pctx = le64(q + 24);
		pr[i].ptuple = le64(q + 32);
		pr[i].flags = le32(q + 40);
		if (pr[i].nvals > f->len / 10 ||
		    !hpc_in(f, pr[i].pvals, pr[i].nvals * 10, "a profile's values") ||
		    !hpc_in(f, pr[i].pctx, (uint64_t)pr[i].nctx * 12, "a profile's context index"))
			rc = hpc_fail(f, e,
				      "profile %u: its values (%llu at byte %llu) or contexts "
				      "(%u at byte %llu) run past the end of the file",
				      i, (unsigned long long)pr[i].nvals,
				      (unsigned long long)pr[i].pvals, pr[i].nctx,
				      (unsigned long long)pr[i].pctx);
	}
	if (rc) {
		for (uint32_t i = 0; i < np; i++)
			pv_free(pr[i].name);
		pv_free(pr);
		return rc;
	}
	*out = pr;
	*nout = np;
	return 0;
}

/*
 * Adds one profile's inclusive values to the tree's sums. ids maps the metric ids of the
 * values (propMetricId for a thread, statMetricId for a summary) to model metrics + 1.
 */
static int read_values(struct v4 *r, const struct hpc_bin *f, const struct v4_profile *pr,
		       const uint32_t *ids)
{
	const uint8_t *ix = f->p + pr->pctx, *vals = f->p + pr->pvals;
	struct hpc_cct *t = &r->cct;
	const double *scale = r->scale;
	const bool *point_only = r->point_only;
	uint64_t prev_start = 0, fraction = r->fraction;
	for (uint32_t k = 0; k < pr->nctx; k++) {
		uint32_t cid = le32(ix + 12 * k);
		uint64_t start = le64(ix + 12 * k + 4);
		uint64_t end = k + 1 < pr->nctx ? le64(ix + 12 * (k + 1) + 4) : pr->nvals;
		if (start < prev_start || start > end || end > pr->nvals)
			return hpc_fail(
			    f, pr->pctx + 12 * k + 4,
			    "profile %u: context %u's values [%llu, %llu) are not within "
			    "the %llu values in order",
			    pr->order, cid, (unsigned long long)start, (unsigned long long)end,
			    (unsigned long long)pr->nvals);
		prev_start = start;
		uint32_t node = cid ? ctx_of(r, cid) : 0;
		if (k + 8 < pr->nctx) {
			/* the contexts come in id order, the tree's nodes in another: the
			 * row of a node 8 contexts on is fetched while these are summed */
			uint32_t ahead = le32(ix + 12 * (k + 8));
			ahead = ahead < r->ctx_cap ? r->ctx_node[ahead] : UINT32_MAX;
			if (ahead < t->len) {
				__builtin_prefetch(&t->row[ahead]);
				__builtin_prefetch(&t->parent[ahead]);
			}
		}
		const uint8_t *val = vals + 10 * start, *vend = vals + 10 * end;
		if (node == UINT32_MAX) {
			/* values of a context meta.db does not list: they are in its listed
			 * ancestors' inclusive values already */
			for (; val < vend; val += 10)
				r->hidden += ids[le16(val)] != 0;
			continue;
		}
		for (; val < vend; val += 10) {
			uint32_t m = ids[le16(val)] - 1;
			if (m == PV_NONE)
				continue;
			int64_t v = hpc_scaled(hpc_f64(le64(val + 2)), scale[m], &fraction);
			if (point_only[m])
				hpc_acc_own(t, node, m, v);
			else
				hpc_acc_add(t, node, m, v);
		}
	}
	r->fraction = fraction;
	return 0;
}

static int cmp_profile(const void *a, const void *b)
{
	const struct v4_profile *x = a, *y = b;
	/* the names compare the tuples kind by kind; numbers by value */
	const char *s = x->name, *t = y->name;
	while (*s && *t) {
		if (text_is_digit(*s) && text_is_digit(*t)) {
			char *es, *et;
			unsigned long long u = strtoull(s, &es, 10), v = strtoull(t, &et, 10);
			if (u != v)
				return u < v ? -1 : 1;
			s = es;
			t = et;
			continue;
		}
		if (*s != *t)
			return (unsigned char)*s < (unsigned char)*t ? -1 : 1;
		s++;
		t++;
	}
	if (*s || *t)
		return *s ? 1 : -1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Threads from profile.db: one per execution context, sorted by id tuple. */
/*
 * Past this many values of execution contexts (10 bytes each in profile.db), opening a database
 * reads its summary profile only: the views of the whole program then cost the structure and
 * the summary, however many threads and GPU streams ran (doc/hpctoolkit.md, bench/).
 */
#define V4_THREAD_VALUES_MAX ((uint64_t)4 << 20)

static int read_profiles(struct v4 *r, const struct hpc_bin *f, const char *title,
			 bool summary_only, uint32_t *nprofiles)
{
	struct v4_profile *pr = NULL;
	uint32_t np = 0;
	int rc = read_profile_infos(r, f, &pr, &np);
	*nprofiles = np;
	if (rc)
		return rc;
	if (np == 0) {
		pv_free(pr);
		return hpc_fail(f, 16, "no profile (not even the summary)");
	}
	uint64_t values = 0;
	for (uint32_t i = 1; i < np; i++)
		values += pr[i].nvals;
	if (np > 1 && !summary_only && values > V4_THREAD_VALUES_MAX) {
		summary_only = true;
		builder_lossy(r->b, values,
			      "profile.db: values of the %u execution contexts, past the %llu read "
			      "at open: the summary profile is shown as one thread",
			      np - 1, (unsigned long long)V4_THREAD_VALUES_MAX);
	} else if (np == 1) {
		summary_only = true;
		builder_lossy(r->b, 1,
			      "profile.db: no execution context has a profile of its own; "
			      "the summary is shown as one thread");
	}
	/* the execution contexts sorted by id tuple, or the summary alone (whose cost then
	 * does not grow with them: their tuples are not even read) */
	uint32_t first = summary_only ? 0 : 1, last = summary_only ? 1 : np;
	for (uint32_t i = first; i < last && !rc; i++)
		rc = read_tuple(r, f, &pr[i]);
	if (rc)
		goto out;
	if (!summary_only)
		pv_sort(pr + 1, np - 1, sizeof(*pr), cmp_profile);
	if ((rc = hpc_acc_begin(&r->cct, r->nm)))
		goto out;
	if (!(r->prof_thread = pv_malloc((size_t)np * sizeof(*r->prof_thread)))) {
		rc = pv_error_set(r->err, PV_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < np; i++)
		r->prof_thread[i] = PV_NONE;
	pv_str_ix proc = builder_cstr(r->b, title);
	for (uint32_t i = first; i < last && !rc; i++) {
		bool summary = pr[i].flags & 1;
		if (i > 0 && summary) {
			builder_lossy(r->b, 1,
				      "profile.db: summary profiles other than the first "
				      "(left out)");
			continue;
		}
		pv_thread_ix th = builder_thread(r->b, builder_cstr(r->b, pr[i].name), pr[i].rank,
						 pr[i].thread, proc);
		if (!summary)
			r->prof_thread[pr[i].order] = th;
		rc = read_values(r, f, &pr[i], summary ? r->stat_metric : r->prop_metric);
		hpc_acc_flush(r->b, &r->cct, th);
	}
out:
	for (uint32_t i = 0; i < np; i++)
		pv_free(pr[i].name);
	pv_free(pr);
	return rc;
}

/* ---- trace.db: read into the profile's trace records; cct.db: checked ---- */

/*
 * The time lines of trace.db: header {pTraces, nTraces, szTrace, minTimestamp,
 * maxTimestamp}, per trace {profIndex, pStart, pEnd}, elements {u64 timestamp ns, u32
 * ctxId} in time order. Each element becomes a record of its profile's thread, at the stack
 * of its context (context 0: not running); times are from minTimestamp, the profile's zero.
 * A profile without a thread (the summary-only mode) has its trace left out, said in the
 * diags.
 */
static int read_trace(struct v4 *r, const struct hpc_bin *f, uint32_t nprofiles)
{
	uint64_t sz[1], ptr[1];
	int rc = v4_header(f, "trce", "trace.db", 1, sz, ptr);
	if (rc)
		return rc;
	struct table tt;
	if ((rc = v4_array(f, ptr[0], sz[0], N32_SZ8, 0x18, "trace headers", &tt)))
		return rc;
	uint64_t pt = tt.p;
	uint32_t nt = tt.n, szt = tt.stride;
	int64_t t_min = 0, t_max = 0;
	if (sz[0] >= 32) {
		t_min = (int64_t)le64(f->p + ptr[0] + 16);
		t_max = (int64_t)le64(f->p + ptr[0] + 24);
	}
	if (t_min < 0 || t_max < t_min) /* a broken header: times as they are */
		t_min = 0, t_max = INT64_MAX;
	uint64_t left_out = 0, unknown = 0, late = 0;
	for (uint32_t i = 0; i < nt; i++) {
		const uint8_t *q = f->p + pt + (uint64_t)i * szt;
		uint32_t prof = le32(q);
		uint64_t s = le64(q + 8), e = le64(q + 16);
		if (prof >= nprofiles)
			return hpc_fail(f, pt + (uint64_t)i * szt,
					"trace %u names profile %u, profile.db has %u", i, prof,
					nprofiles);
		if (s > e || !hpc_in(f, s, e - s, "a trace line") || (e - s) % 12)
			return hpc_fail(f, pt + (uint64_t)i * szt + 8,
					"trace %u: its elements [%llu, %llu) are not whole 12-byte "
					"elements within the file",
					i, (unsigned long long)s, (unsigned long long)e);
		pv_thread_ix th = r->prof_thread ? r->prof_thread[prof] : PV_NONE;
		if (th == PV_NONE) {
			left_out += (e - s) / 12;
			continue;
		}
		for (uint64_t at = s; at < e; at += 12) {
			int64_t t = (int64_t)(le64(f->p + at) & INT64_MAX);
			uint32_t cid = le32(f->p + at + 8);
			uint32_t node = cid ? ctx_of(r, cid) : UINT32_MAX;
			pv_stack_ix st = node == UINT32_MAX ? PV_NONE : r->cct.stack[node];
			if (cid && node == UINT32_MAX)
				unknown++;
			if (t < t_min || t > t_max) { /* kept, at the nearest end of the trace */
				late++;
				t = t < t_min ? t_min : t_max;
			}
			builder_trace(r->b, th, t - t_min, st);
		}
	}
	r->b->p->trace.end_ns = t_max - t_min;
	if (nt && !r->b->p->meta.start_unix_ns)
		r->b->p->meta.start_unix_ns = t_min;
	builder_lossy(r->b, left_out,
		      "trace.db: trace events of execution contexts not read as threads (not "
		      "shown)");
	builder_lossy(r->b, unknown,
		      "trace.db: trace events at contexts meta.db does not list (shown as not "
		      "running)");
	builder_lossy(r->b, late,
		      "trace.db: trace events outside the trace's time range (moved to its ends)");
	return 0;
}

static int check_cct(const struct hpc_bin *f, uint32_t nprofiles)
{
	(void)nprofiles;
	uint64_t sz[1], ptr[1];
	int rc = v4_header(f, "ctxt", "__ctx.db", 1, sz, ptr);
	if (rc)
		return rc;
	struct table ct;
	return v4_array(f, ptr[0], sz[0], N32_SZ8, 0x20, "context infos", &ct);
}

/* ---- the importer ---- */

static int probe(const struct pv_input *in)
{
	return in->len >= 16 && memcmp(in->data, "HPCTOOLKITmeta", 14) == 0 ? 100 : 0;
}

/* A file next to meta.db as a checked binary; 1 when it is not there. */
static int open_sibling(const struct pv_input *in, const char *name, struct pv_input *out,
			char **path, struct hpc_bin *f, struct pv_error *err)
{
	int rc = hpc_sibling(in, name, out, path, err);
	if (rc)
		return rc;
	*f = (struct hpc_bin){*path, (const uint8_t *)out->data, out->len, err};
	return 0;
}

static int import_db(struct pv_input *in, struct pv_builder *b, bool summary_only,
		     struct pv_error *err)
{
	struct v4 r;
	memset(&r, 0, sizeof(r));
	pv_error_clear(err);
	b->p->meta.format_version =
	    builder_strf(b, "4.%u", in->len > 15 ? (uint8_t)in->data[15] : 0);
	b->p->meta.product = builder_cstr(b, "HPCToolkit");
	int rc = v4_meta_open(&r, b, in, in->name, (const uint8_t *)in->data, in->len, err);
	const char *title = "";
	if (!rc) {
		uint64_t g = r.ptr[SEC_GENERAL];
		if (r.sz[SEC_GENERAL] >= 8) {
			title = meta_str(&r, le64(r.meta.p + g), g, "the title");
			if (!title)
				rc = PV_EPARSE;
		}
	}
	struct pv_input pin, tin, cin;
	char *ppath = NULL, *tpath = NULL, *cpath = NULL;
	struct hpc_bin pf, tf, cf;
	int have_p = 1, have_t = 1, have_c = 1;
	if (!rc) {
		have_p = open_sibling(in, "profile.db", &pin, &ppath, &pf, err);
		if (have_p < 0)
			rc = have_p;
	}
	if (!rc && have_p == 0) {
		uint32_t np = 0;
		rc = read_profiles(&r, &pf, title, summary_only, &np);
		if (!rc) {
			have_t = open_sibling(in, "trace.db", &tin, &tpath, &tf, err);
			if (have_t < 0)
				rc = have_t;
			else if (have_t == 0)
				rc = read_trace(&r, &tf, np);
		}
		if (!rc) {
			have_c = open_sibling(in, "cct.db", &cin, &cpath, &cf, err);
			if (have_c < 0)
				rc = have_c;
			else if (have_c == 0)
				rc = check_cct(&cf, np);
		}
	} else if (!rc) {
		/* the structure alone: one sample per leaf context, so the tree shows */
		builder_lossy(b, 1,
			      "profile.db is missing: the calling contexts are shown without "
			      "their costs (metric 'contexts' counts them)");
		pv_metric_ix m = builder_metric(b, builder_cstr(b, "contexts"), PV_UNIT_COUNT);
		b->p->meta.default_metric = m;
		pv_thread_ix th = builder_thread(b, builder_cstr(b, "structure"), PV_ID_NONE,
						 PV_ID_NONE, builder_cstr(b, title));
		uint8_t *inner = pv_calloc(r.cct.len ? r.cct.len : 1, 1);
		if (!inner) {
			rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		} else {
			for (uint32_t n = 1; n < r.cct.len; n++)
				if (r.cct.parent[n] != PV_NONE)
					inner[r.cct.parent[n]] = 1;
			int64_t *w = NULL;
			for (uint32_t n = 1; n < r.cct.len; n++)
				if (!inner[n])
					builder_sample(b, th, r.cct.stack[n], PV_TIME_NONE, w);
			pv_free(inner);
		}
	}
	if (!rc) {
		if (r.hidden)
			builder_lossy(b, r.hidden,
				      "values of contexts meta.db does not list (kept in "
				      "their ancestors' inclusive costs)");
		if (r.fraction)
			builder_lossy(b, r.fraction,
				      "values rounded to whole units of their metric");
		if (r.cct.negative)
			builder_lossy(b, r.cct.negative,
				      "contexts whose own cost came out negative: their inclusive "
				      "value below their "
				      "children's sum (by the rounding of those values, mostly)");
	}
	hpc_names_done(b, &r.names);
	if (!have_p)
		input_close(&pin);
	if (!have_t)
		input_close(&tin);
	if (!have_c)
		input_close(&cin);
	pv_free(ppath);
	pv_free(tpath);
	pv_free(cpath);
	v4_release(&r);
	return rc;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	return import_db(in, b, false, err);
}

static int import_summary(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	return import_db(in, b, true, err);
}

/*
 * profile.db, cct.db, trace.db: each starts with "HPCTOOLKIT" and its own four letters; and
 * the metrics' descriptions in the folder metrics/ (default.yaml, hpcprof's
 * METRICS.yaml.ex).
 */
static int dir_member(const char *folder, const char *base, const unsigned char *head, size_t n)
{
	size_t len = strlen(base);
	if (strcmp(folder, "metrics") == 0 && ((len > 5 && strcmp(base + len - 5, ".yaml") == 0) ||
					       strcmp(base, "METRICS.yaml.ex") == 0))
		return 2;
	return n >= 14 && !memcmp(head, "HPCTOOLKIT", 10) && memcmp(head + 10, "meta", 4) != 0;
}

/* A format 4 database with a thread per execution context (the summary only when they are
 * many). */
const struct importer importer_hpctoolkit_v4 = {
    .name = "hpctoolkit",
    .description = "HPCToolkit database, format 4 (meta.db, profile.db; a folder or its meta.db)",
    .one_program = true,
    .probe = probe,
    .import = import,
    .dir_entry = "meta.db",
    .dir_member = dir_member,
};

/* Its summary profile alone, as one thread (chosen by name: --format hpctoolkit-summary).
 */
const struct importer importer_hpctoolkit_summary = {
    .name = "hpctoolkit-summary",
    .description = "HPCToolkit database, format 4: its summary profile only",
    .one_program = true,
    .probe = NULL,
    .import = import_summary,
    .dir_entry = "meta.db",
};

int hpc_v4_file(const char *kind, const void *buf, size_t len, struct pv_error *err)
{
	/* profile.db, trace.db, cct.db alone: a tree of no context, every metric id metric
	 * 0 */
	struct pv_builder b;
	struct v4 r;
	memset(&r, 0, sizeof(r));
	if (builder_init(&b))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	r.b = &b;
	r.err = err;
	r.nm = 1;
	builder_metric(&b, builder_cstr(&b, "m"), PV_UNIT_COUNT);
	r.prop_metric = pv_calloc(65536, sizeof(uint32_t));
	r.stat_metric = pv_calloc(65536, sizeof(uint32_t));
	r.scale = pv_calloc(1, sizeof(double));
	r.point_only = pv_calloc(1, sizeof(bool));
	int rc =
	    !r.prop_metric || !r.stat_metric || !r.scale || !r.point_only || hpc_cct_init(&r.cct)
		? pv_error_set(err, PV_ENOMEM, "out of memory")
		: 0;
	if (!rc) {
		r.scale[0] = 1;
		for (uint32_t id = 0; id < 65536; id++) /* every id metric 0 (stored + 1) */
			r.prop_metric[id] = r.stat_metric[id] = 1;
		struct hpc_bin f = {"fuzz-input", buf, len, err};
		uint32_t np;
		if (strcmp(kind, "profile.db") == 0)
			rc = read_profiles(&r, &f, "", false, &np);
		else if (strcmp(kind, "trace.db") == 0)
			rc = read_trace(&r, &f, 16);
		else
			rc = check_cct(&f, 16);
	}
	v4_release(&r);
	builder_release(&b);
	return rc;
}
