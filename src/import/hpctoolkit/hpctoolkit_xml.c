/*
 * hpctoolkit_xml.c - HPCToolkit databases before format 4 (hpcprof until 2022): experiment.xml
 * (DTD 2.0 to 2.2) for the calling context tree and the summary values, and the big-endian side
 * files with each execution context's values: *.metric-db (one per thread), or experiment-N.mdb
 * (the same files merged behind an index); the time lines of *.hpctrace (one per thread) or
 * experiment.mt (merged, the same index) into the profile's trace records (doc/hpctoolkit.md,
 * doc/trace.md).
 *
 * The tree is PF (procedure frame), Pr (a procedure inlined there: a="1"), L (loop), C (call
 * site) and S (statement) elements, each with M children (metric id, value). A procedure
 * inlined under the name "<inline>" (hpcprof did not know the name) is no scope of its own: its
 * lines are the enclosing procedure's, as in a format-4 database of the same program.
 *
 * The XML is read by a small tokenizer (elements, attributes, comments, the DTD's internal
 * subset, the five named entities and character references); an error names the line.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sort.h"
#include "base/text.h"
#include "import/hpctoolkit/hpctoolkit.h"
#include "import/importer.h"

/* ---- XML tokens ---- */

#define MAX_ATTRS 24

struct xattr {
	const char *name, *val;
	size_t nlen, vlen;
};

struct xtag {
	const char *pos; /* the '<' */
	const char *name;
	size_t nlen;
	bool end, empty;
	struct xattr at[MAX_ATTRS];
	int nat;
};

struct xml {
	const struct pv_input *in;
	const char *p, *end;
	struct pv_error *err;
};

__attribute__((format(printf, 3, 4))) static int xml_fail(struct xml *x, const char *at,
							  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = input_vfail(x->in, x->err, PV_EPARSE, at, fmt, ap);
	va_end(ap);
	return rc;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == ':' ||
	       (unsigned char)c >= 0x80;
}

/* Skips past the string close (not found: fails at from with what). */
static int skip_past(struct xml *x, const char *from, const char *close, const char *what)
{
	size_t n = strlen(close);
	const char *q = from;
	while ((size_t)(x->end - q) >= n) {
		q = memchr(q, close[0], (size_t)(x->end - q) - n + 1);
		if (!q)
			break;
		if (memcmp(q, close, n) == 0) {
			x->p = q + n;
			return 0;
		}
		q++;
	}
	return xml_fail(x, from, "%s is not closed before the end of the file", what);
}

/*
 * Skips "<!DOCTYPE ... [ internal subset ]>" at lt: declarations and comments, nested '<',
 * quoted text.
 */
static int skip_declaration(struct xml *x, const char *lt)
{
	int depth = 0, rc;
	const char *q = lt + 2;
	for (; q < x->end; q++) {
		if (*q == '[')
			depth++;
		else if (*q == ']')
			depth--;
		else if (*q == '"' || *q == '\'') {
			const char *e = memchr(q + 1, *q, (size_t)(x->end - q - 1));
			if (!e)
				break;
			q = e;
		} else if (*q == '<' && x->end - q >= 4 && memcmp(q, "<!--", 4) == 0) {
			if ((rc = skip_past(x, q + 4, "-->", "a comment")))
				return rc;
			q = x->p - 1;
		} else if (*q == '>' && depth <= 0)
			break;
	}
	if (q >= x->end)
		return xml_fail(x, lt, "%s is not closed before the end of the file",
				"a declaration");
	x->p = q + 1;
	return 0;
}

/*
 * Skips the markup at lt that is no element (a comment, CDATA, a processing instruction or a
 * declaration): 1 when skipped, 0 when lt starts a tag, or an error.
 */
static int skip_markup(struct xml *x, const char *lt)
{
	size_t left = (size_t)(x->end - lt);
	int rc;
	if (left >= 4 && memcmp(lt, "<!--", 4) == 0)
		rc = skip_past(x, lt + 4, "-->", "a comment");
	else if (left >= 9 && memcmp(lt, "<![CDATA[", 9) == 0)
		rc = skip_past(x, lt + 9, "]]>", "a CDATA section");
	else if (left >= 2 && lt[1] == '?')
		rc = skip_past(x, lt + 2, "?>", "a processing instruction");
	else if (left >= 2 && lt[1] == '!')
		rc = skip_declaration(x, lt);
	else
		return 0;
	return rc ? rc : 1;
}

/* An attribute name="value" of tag t at *q, appended to t->at; *q moves past it. */
static int read_attr(struct xml *x, struct xtag *t, const char **q)
{
	const char *an = *q, *c = *q;
	while (c < x->end && name_char(*c))
		c++;
	size_t alen = (size_t)(c - an);
	while (c < x->end && isspace((unsigned char)*c))
		c++;
	if (!alen || t->end || c >= x->end || *c != '=')
		return xml_fail(x, an, "%s", "an attribute name=\"value\" was expected");
	c++;
	while (c < x->end && isspace((unsigned char)*c))
		c++;
	if (c >= x->end || (*c != '"' && *c != '\''))
		return xml_fail(x, c < x->end ? c : an, "%s",
				"a quoted attribute value was expected");
	const char *e = memchr(c + 1, *c, (size_t)(x->end - c - 1));
	if (!e)
		return xml_fail(x, c, "%s", "an attribute value is not closed");
	if (t->nat == MAX_ATTRS)
		return xml_fail(x, an, "%s", "more than 24 attributes on one element");
	t->at[t->nat++] = (struct xattr){an, c + 1, alen, (size_t)(e - c - 1)};
	*q = e + 1;
	return 0;
}

/* The start or end tag at lt into t: 1, or an error. */
static int read_tag(struct xml *x, const char *lt, struct xtag *t)
{
	memset(t, 0, sizeof(*t));
	t->pos = lt;
	const char *q = lt + 1;
	if (q < x->end && *q == '/') {
		t->end = true;
		q++;
	}
	t->name = q;
	while (q < x->end && name_char(*q))
		q++;
	t->nlen = (size_t)(q - t->name);
	if (!t->nlen)
		return xml_fail(x, lt, "%s", "'<' starts no element name");
	for (;;) {
		while (q < x->end && isspace((unsigned char)*q))
			q++;
		if (q >= x->end)
			return xml_fail(
			    x, lt, "the tag <%s is not closed before the end of the file", "...");
		if (*q == '>') {
			x->p = q + 1;
			return 1;
		}
		if (*q == '/' && q + 1 < x->end && q[1] == '>' && !t->end) {
			t->empty = true;
			x->p = q + 2;
			return 1;
		}
		int rc = read_attr(x, t, &q);
		if (rc)
			return rc;
	}
}

/* The next tag: 1, 0 at the end of the input, or an error. Text between tags is skipped. */
static int xml_next(struct xml *x, struct xtag *t)
{
	for (;;) {
		const char *lt = memchr(x->p, '<', (size_t)(x->end - x->p));
		if (!lt)
			return 0;
		x->p = lt;
		int rc = skip_markup(x, lt);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return read_tag(x, lt, t);
	}
}

static bool tag_is(const struct xtag *t, const char *name)
{
	return t->nlen == strlen(name) && memcmp(t->name, name, t->nlen) == 0;
}

/*
 * Attribute name of t, entities decoded, into buf (cap bytes, cut short when longer); NULL when
 * absent.
 */
static const char *attr(const struct xtag *t, const char *name, char *buf, size_t cap)
{
	size_t n = strlen(name);
	for (int i = 0; i < t->nat; i++) {
		const struct xattr *a = &t->at[i];
		if (a->nlen != n || memcmp(a->name, name, n) != 0)
			continue;
		size_t o = 0;
		for (size_t j = 0; j < a->vlen && o + 5 < cap; j++) {
			const char *s = a->val + j;
			size_t left = a->vlen - j;
			if (*s != '&') {
				buf[o++] = *s;
				continue;
			}
			static const char *const ent[] = {"&lt;", "&gt;", "&amp;", "&quot;",
							  "&apos;"};
			static const char rep[] = "<>&\"'";
			bool done = false;
			for (int k = 0; k < 5 && !done; k++) {
				size_t el = strlen(ent[k]);
				if (left >= el && memcmp(s, ent[k], el) == 0) {
					buf[o++] = rep[k];
					j += el - 1;
					done = true;
				}
			}
			if (!done && left > 3 && s[1] == '#') {
				char *e;
				unsigned long c =
				    s[2] == 'x' ? strtoul(s + 3, &e, 16) : strtoul(s + 2, &e, 10);
				if (e < a->val + a->vlen && *e == ';' && c && c < 0x110000) {
					/* UTF-8 */
					if (c < 0x80) {
						buf[o++] = (char)c;
					} else if (c < 0x800) {
						buf[o++] = (char)(0xc0 | c >> 6);
						buf[o++] = (char)(0x80 | (c & 0x3f));
					} else if (c < 0x10000) {
						buf[o++] = (char)(0xe0 | c >> 12);
						buf[o++] = (char)(0x80 | (c >> 6 & 0x3f));
						buf[o++] = (char)(0x80 | (c & 0x3f));
					} else {
						buf[o++] = (char)(0xf0 | c >> 18);
						buf[o++] = (char)(0x80 | (c >> 12 & 0x3f));
						buf[o++] = (char)(0x80 | (c >> 6 & 0x3f));
						buf[o++] = (char)(0x80 | (c & 0x3f));
					}
					j += (size_t)(e - s);
					done = true;
				}
			}
			if (!done)
				buf[o++] = '&';
		}
		buf[o] = 0;
		return buf;
	}
	return NULL;
}

/* A decimal attribute (a line range "12-20" gives 12); def when absent or not a number. */
static uint64_t attr_u64(const struct xtag *t, const char *name, uint64_t def)
{
	char b[32];
	const char *s = attr(t, name, b, sizeof(b));
	if (!s || !text_is_digit(*s))
		return def;
	return strtoull(s, NULL, 0);
}

/* ---- the database ---- */

struct xmetric {
	uint32_t id;	/* i */
	char *name;	/* n */
	char *desc;	/* md */
	bool inclusive; /* t="inclusive" */
	bool exclusive; /* t="exclusive" */
	bool raw;	/* v="raw" */
	bool derived;	/* v="derived" or "formula": its <MetricFormula> defines it */
	int64_t order;	/* o, what #N names; INT64_MIN when none */
	char *formula;	/* the derived metric's formula, or an hpcrun formula (t="view") */
};

struct xmetricdb {
	char *name;
	uint32_t db_id, nr_metrics;
	char glob[128];
};

/* One element of the tree being read. */
struct open_el {
	uint32_t node;	     /* its node (or the node it stands in, a transparent <inline>) */
	pv_source_ix source; /* the file of the lines in it */
	pv_func_ix func;
	const char *tag; /* its name, in the input */
	size_t tlen;
	bool transparent; /* an <inline>: its values are its children's, counted there */
};

struct rd {
	struct pv_builder *b;
	struct pv_error *err;
	struct xml x;
	struct u64map modules, files, procs; /* XML id -> model row (procs: a string) */
	struct hpc_names names; /* "<unknown procedure> 0xADDR" named from --symbols' binaries */
	struct xmetric *met;
	uint32_t nr_met, cap_met;
	struct xmetricdb *mdb;
	uint32_t nr_mdb, cap_mdb;
	char trace_glob[128];
	int64_t trace_min, trace_max; /* TraceDB's db-min-time, db-max-time; 0 when none */
	struct u64map ids;	      /* XML node id (i) -> node */
	struct u64map trace_ids;      /* trace id (it) -> node */
	struct u64map rank_thread;    /* rank << 32 | thread -> the thread */
	struct hpc_cct cct;
	/* summary values, read from the M elements: (node, metric id, value) */
	uint32_t *sv_node, *sv_metric;
	double *sv_value;
	uint32_t nr_sv, cap_sv;
	char title[256];
	uint64_t fraction;
};

static int oom(struct rd *r)
{
	return pv_error_set(r->err, PV_ENOMEM, "out of memory");
}

static int put_id(struct rd *r, struct u64map *m, uint64_t id, uint32_t row, const struct xtag *t,
		  const char *what)
{
	if (u64map_get(m, id) != UINT32_MAX)
		return xml_fail(&r->x, t->pos, "%s id appears twice", what);
	return u64map_put(m, id, row) ? oom(r) : 0;
}

static int table_entry(struct rd *r, const struct xtag *t)
{
	char n[4096];
	uint64_t id = attr_u64(t, "i", UINT64_MAX);
	const char *name = attr(t, "n", n, sizeof(n));
	if (id == UINT64_MAX || !name)
		return xml_fail(&r->x, t->pos, "<%s> without its i and n attributes",
				tag_is(t, "File")	  ? "File"
				: tag_is(t, "LoadModule") ? "LoadModule"
							  : "Procedure");
	if (tag_is(t, "LoadModule"))
		return put_id(r, &r->modules, id, hpc_module(r->b, name), t, "a load module");
	if (tag_is(t, "File"))
		return put_id(r, &r->files, id, builder_source(r->b, builder_cstr(r->b, name)), t,
			      "a file");
	return put_id(r, &r->procs, id, builder_cstr(r->b, name), t, "a procedure");
}

/* hpcprof's name of an address without a procedure, "<unknown procedure> 0xADDR [module]",
 * named from the module's binary when --symbols gives one (hpctoolkit.h); else name. */
static uint32_t unknown_named(struct rd *r, uint32_t name, pv_module_ix m)
{
	static const char pre[] = "<unknown procedure> 0x";
	const char *n = pv_str(r->b->p, name);
	if (m == PV_NONE || strncmp(n, pre, sizeof(pre) - 1) != 0)
		return name;
	char *e;
	errno = 0;
	unsigned long long a = strtoull(n + sizeof(pre) - 1, &e, 16);
	if (errno || e == n + sizeof(pre) - 1 || (*e && *e != ' '))
		return name;
	pv_str_ix named = hpc_names_at(r->b, &r->names, m, a);
	return named != PV_NONE ? named : name;
}

static int metric_entry(struct rd *r, const struct xtag *t)
{
	char n[1024], md[1024], ty[32], v[32];
	if (r->nr_met == r->cap_met) {
		uint32_t nc = r->cap_met ? r->cap_met * 2 : 16;
		struct xmetric *g = pv_realloc(r->met, nc * sizeof(*g));
		if (!g)
			return oom(r);
		r->met = g;
		r->cap_met = nc;
	}
	const char *name = attr(t, "n", n, sizeof(n));
	uint64_t id = attr_u64(t, "i", UINT64_MAX);
	if (!name || id > UINT32_MAX)
		return xml_fail(&r->x, t->pos, "%s", "<Metric> without its i and n attributes");
	const char *desc = attr(t, "md", md, sizeof(md));
	const char *type = attr(t, "t", ty, sizeof(ty));
	const char *vt = attr(t, "v", v, sizeof(v));
	struct xmetric *m = &r->met[r->nr_met];
	m->id = (uint32_t)id;
	m->name = pv_strdup(name);
	m->desc = desc ? pv_strdup(desc) : NULL;
	m->inclusive = type && strcmp(type, "inclusive") == 0;
	m->exclusive = type && strcmp(type, "exclusive") == 0;
	m->raw = !vt || strcmp(vt, "raw") == 0;
	m->derived = vt && (strcmp(vt, "derived") == 0 || strcmp(vt, "formula") == 0);
	char o[32];
	const char *os = attr(t, "o", o, sizeof(o));
	m->order = os ? strtoll(os, NULL, 10) : INT64_MIN;
	m->formula = NULL;
	r->nr_met++;
	return m->name ? 0 : oom(r);
}

/*
 * <MetricFormula t="..." frm="..."/> in the current <Metric>: the formula of a derived metric
 * (any t), or of t="view", hpcrun's formula metric, which hpcviewer shows as derived. The
 * combine and finalize formulas of hpcprof's statistics (v="derived-incr") are not kept: NAME:STAT
 * computes those statistics.
 */
static int metric_formula(struct rd *r, const struct xtag *t)
{
	struct xmetric *m = &r->met[r->nr_met - 1];
	char ty[32], *frm = pv_malloc(4096);
	if (!frm)
		return oom(r);
	const char *type = attr(t, "t", ty, sizeof(ty));
	bool view = type && type[0] == 'v';
	if ((m->derived || view) && !m->formula && attr(t, "frm", frm, 4096)) {
		m->formula = frm;
		m->derived = true;
		return 0;
	}
	pv_free(frm);
	return 0;
}

static int metricdb_entry(struct rd *r, const struct xtag *t)
{
	char n[1024], g[128];
	if (r->nr_mdb == r->cap_mdb) {
		uint32_t nc = r->cap_mdb ? r->cap_mdb * 2 : 8;
		struct xmetricdb *a = pv_realloc(r->mdb, nc * sizeof(*a));
		if (!a)
			return oom(r);
		r->mdb = a;
		r->cap_mdb = nc;
	}
	const char *name = attr(t, "n", n, sizeof(n));
	if (!name)
		return xml_fail(&r->x, t->pos, "%s", "<MetricDB> without its n attribute");
	struct xmetricdb *d = &r->mdb[r->nr_mdb];
	d->name = pv_strdup(name);
	d->db_id = (uint32_t)attr_u64(t, "db-id", 0);
	d->nr_metrics = (uint32_t)attr_u64(t, "db-num-metrics", 0);
	const char *glob = attr(t, "db-glob", g, sizeof(g));
	snprintf(d->glob, sizeof(d->glob), "%s", glob ? glob : "*.metric-db");
	r->nr_mdb++;
	return d->name ? 0 : oom(r);
}

static int summary_value(struct rd *r, uint32_t node, const struct xtag *t)
{
	char v[64];
	uint64_t id = attr_u64(t, "n", UINT64_MAX);
	const char *val = attr(t, "v", v, sizeof(v));
	if (id > UINT32_MAX || !val)
		return xml_fail(&r->x, t->pos, "%s", "<M> without its n and v attributes");
	if (r->nr_sv == r->cap_sv) {
		uint32_t nc = grow_cap(r->cap_sv, (uint64_t)r->nr_sv + 1);
		if (!nc || COL_GROW(r->sv_node, nc) || COL_GROW(r->sv_metric, nc) ||
		    COL_GROW(r->sv_value, nc))
			return oom(r);
		r->cap_sv = nc;
	}
	r->sv_node[r->nr_sv] = node;
	r->sv_metric[r->nr_sv] = (uint32_t)id;
	r->sv_value[r->nr_sv++] = strtod(val, NULL);
	return 0;
}

static bool inline_placeholder(struct rd *r, pv_str_ix name)
{
	return strcmp(pv_str(r->b->p, name), "<inline>") == 0;
}

/* The id of an element that is no node of the tree (an "<inline>" placeholder): no values. */
#define NODE_SKIPPED (UINT32_MAX - 1)

/* A scope element of the tree (PF, Pr, L, C, S) under the open element top. */
static int scope_element(struct rd *r, const struct xtag *t, const struct open_el *top,
			 struct open_el *out)
{
	char buf[4096];
	uint32_t parent = top->node;
	*out = *top;
	out->transparent = false;
	uint64_t line = attr_u64(t, "l", 0);
	if (line > UINT32_MAX)
		line = 0;
	uint64_t f = attr_u64(t, "f", UINT64_MAX);
	if (f != UINT64_MAX) {
		uint32_t s = u64map_get(&r->files, f);
		out->source = s;
		if (s == UINT32_MAX) {
			const char *fs = attr(t, "f", buf, sizeof(buf));
			out->source = builder_source(r->b, builder_cstr(r->b, fs));
		}
	}
	uint32_t node;
	if (tag_is(t, "PF") || tag_is(t, "Pr")) {
		const char *n = attr(t, "n", buf, sizeof(buf));
		if (!n)
			return xml_fail(&r->x, t->pos, "<%s> without its n attribute",
					tag_is(t, "PF") ? "PF" : "Pr");
		uint64_t pid = text_is_digit(*n) ? strtoull(n, NULL, 10) : UINT64_MAX;
		uint32_t name = pid != UINT64_MAX ? u64map_get(&r->procs, pid) : UINT32_MAX;
		if (name == UINT32_MAX) /* the name itself, as DTD 2.0 allows */
			name = builder_cstr(r->b, n);
		uint64_t lm = attr_u64(t, "lm", UINT64_MAX);
		pv_module_ix m = lm == UINT64_MAX ? PV_NONE : u64map_get(&r->modules, lm);
		if (m == UINT32_MAX)
			m = PV_NONE;
		if (tag_is(t, "Pr") && inline_placeholder(r, name)) {
			/* its lines are the enclosing procedure's; its values are in them */
			out->transparent = true;
			uint64_t id = attr_u64(t, "i", UINT64_MAX);
			return id == UINT64_MAX ? 0
						: put_id(r, &r->ids, id, NODE_SKIPPED, t, "a node");
		}
		pv_source_ix src = out->source == UINT32_MAX ? PV_NONE : out->source;
		name = unknown_named(r, name, m);
		out->func = builder_func(r->b, name, m, src, (uint32_t)line);
		node = hpc_cct_add(&r->cct, parent, tag_is(t, "PF") ? HPC_FUNC : HPC_INLINE,
				   out->func, PV_NONE, 0, PV_ADDR_NONE);
	} else {
		enum hpc_kind k = tag_is(t, "L") ? HPC_LOOP : HPC_LINE;
		pv_source_ix src = out->source == UINT32_MAX ? PV_NONE : out->source;
		node = hpc_cct_add(&r->cct, parent, k, PV_NONE, src, (uint32_t)line, PV_ADDR_NONE);
	}
	if (node == PV_NONE)
		return oom(r);
	out->node = node;
	uint64_t it = attr_u64(t, "it", UINT64_MAX);
	if (it != UINT64_MAX && u64map_put(&r->trace_ids, it, node))
		return oom(r);
	uint64_t id = attr_u64(t, "i", UINT64_MAX);
	if (id != UINT64_MAX)
		return put_id(r, &r->ids, id, node, t, "a node");
	return 0;
}

#define MAX_DEPTH 100000

/* read_xml's place in the document. */
struct xml_walk {
	struct open_el *st; /* the open elements (names, to match end tags; scopes of the tree) */
	uint32_t sp, cap;
	bool in_data, in_metric, seen_root;
};

/* The root element: <HPCToolkitExperiment>, its version kept. */
static int root_element(struct rd *r, const struct xtag *t)
{
	char buf[256];
	if (!tag_is(t, "HPCToolkitExperiment"))
		return xml_fail(&r->x, t->pos, "%s",
				"the root element is not <HPCToolkitExperiment>");
	const char *v = attr(t, "version", buf, sizeof(buf));
	if (v)
		r->b->p->meta.format_version = builder_cstr(r->b, v);
	return 0;
}

/* An end tag: the open element it closes. */
static int end_tag(struct rd *r, struct xml_walk *w, const struct xtag *t)
{
	if (!w->sp)
		return xml_fail(&r->x, t->pos, "%s", "an end tag without its start tag");
	const struct open_el *o = &w->st[w->sp - 1];
	if (t->nlen != o->tlen || memcmp(t->name, o->tag, t->nlen) != 0) {
		char want[72];
		snprintf(want, sizeof(want), "%.*s", (int)(o->tlen < 64 ? o->tlen : 64), o->tag);
		return xml_fail(&r->x, t->pos, "an end tag where </%s> was expected", want);
	}
	if (tag_is(t, "SecCallPathProfileData"))
		w->in_data = false;
	else if (tag_is(t, "Metric"))
		w->in_metric = false;
	w->sp--;
	return 0;
}

/* Room for one more open element, at most MAX_DEPTH deep. */
static int open_room(struct rd *r, struct xml_walk *w, const struct xtag *t)
{
	if (w->sp < w->cap)
		return 0;
	if (w->cap >= MAX_DEPTH)
		return xml_fail(&r->x, t->pos, "%s", "elements nested more than 100000 deep");
	w->cap *= 2;
	struct open_el *g = pv_realloc(w->st, w->cap * sizeof(*w->st));
	if (!g)
		return oom(r);
	w->st = g;
	return 0;
}

/* An element of the calling context tree (SecCallPathProfileData), under the open el. */
static int data_element(struct rd *r, const struct xtag *t, struct open_el *el)
{
	if (tag_is(t, "M")) {
		/* (an <inline>'s values are its children's: the node it stands in has its own) */
		return el->transparent ? 0 : summary_value(r, el->node, t);
	}
	if (tag_is(t, "PF") || tag_is(t, "Pr") || tag_is(t, "L") || tag_is(t, "C") ||
	    tag_is(t, "S")) {
		struct open_el top = *el;
		return scope_element(r, t, &top, el);
	}
	if (tag_is(t, "Info") || tag_is(t, "NV"))
		return 0;
	char nm[64];
	snprintf(nm, sizeof(nm), "%.*s", (int)(t->nlen < 40 ? t->nlen : 40), t->name);
	return xml_fail(&r->x, t->pos, "an element <%s> in the calling context tree", nm);
}

static void trace_db(struct rd *r, const struct xtag *t)
{
	char buf[256];
	const char *g = attr(t, "db-glob", buf, sizeof(buf));
	snprintf(r->trace_glob, sizeof(r->trace_glob), "%s", g ? g : "*.hpctrace");
	uint64_t lo = attr_u64(t, "db-min-time", 0), hi = attr_u64(t, "db-max-time", 0);
	r->trace_min = lo <= INT64_MAX ? (int64_t)lo : 0;
	r->trace_max = hi <= INT64_MAX ? (int64_t)hi : 0;
}

/*
 * An element of the header (before and beside the tree): tables, metrics, databases. A
 * metric's <Info><NV n="units" v="events"/></Info> holds nothing profview needs.
 */
static int head_element(struct rd *r, struct xml_walk *w, const struct xtag *t, struct open_el *el)
{
	char buf[256];
	if (tag_is(t, "SecCallPathProfileData")) {
		/* the whole program: node id 1 of the per-thread files */
		w->in_data = true;
		el->node = 0;
		return put_id(r, &r->ids, 1, 0, t, "a node");
	}
	if (tag_is(t, "Header")) {
		const char *n = attr(t, "n", buf, sizeof(buf));
		if (n)
			snprintf(r->title, sizeof(r->title), "%s", n);
	} else if (tag_is(t, "Metric")) {
		w->in_metric = !t->empty;
		return metric_entry(r, t);
	} else if (tag_is(t, "MetricFormula") && w->in_metric && r->nr_met) {
		return metric_formula(r, t);
	} else if (tag_is(t, "MetricDB")) {
		return metricdb_entry(r, t);
	} else if (tag_is(t, "TraceDB")) {
		trace_db(r, t);
	} else if (tag_is(t, "LoadModule") || tag_is(t, "File") || tag_is(t, "Procedure")) {
		return table_entry(r, t);
	}
	return 0;
}

/* A start tag (or an empty element): opened unless empty. */
static int start_tag(struct rd *r, struct xml_walk *w, const struct xtag *t)
{
	int rc;
	if ((rc = open_room(r, w, t)))
		return rc;
	struct open_el el =
	    w->sp ? w->st[w->sp - 1] : (struct open_el){0, UINT32_MAX, PV_NONE, NULL, 0, false};
	rc = w->in_data ? data_element(r, t, &el) : head_element(r, w, t, &el);
	if (rc)
		return rc;
	el.tag = t->name;
	el.tlen = t->nlen;
	if (!t->empty)
		w->st[w->sp++] = el;
	return 0;
}

static int read_xml(struct rd *r)
{
	struct xtag t;
	int rc;
	struct xml_walk w = {.st = pv_malloc(64 * sizeof(*w.st)), .cap = 64};
	if (!w.st)
		return oom(r);
	while ((rc = xml_next(&r->x, &t)) == 1) {
		if (!w.seen_root && !t.end) {
			if ((rc = root_element(r, &t)))
				break;
			w.seen_root = true;
		}
		if ((rc = t.end ? end_tag(r, &w, &t) : start_tag(r, &w, &t)))
			break;
	}
	if (!rc && w.sp) {
		char buf[72];
		const struct open_el *o = &w.st[w.sp - 1];
		snprintf(buf, sizeof(buf), "%.*s", (int)(o->tlen < 64 ? o->tlen : 64), o->tag);
		rc = xml_fail(&r->x, r->x.end, "the file ends inside <%s>", buf);
	}
	if (!rc && !w.seen_root)
		rc = xml_fail(&r->x, r->x.end, "%s", "no <HPCToolkitExperiment> element");
	pv_free(w.st);
	return rc < 0 ? rc : r->b->status;
}

/* ---- metrics of the model ---- */

/* "cycles:Sum (I)" -> "cycles"; "WALLCLOCK (us) (I)" -> "WALLCLOCK (us)" */
static void base_name(const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%s", name);
	char *s = strstr(out, ":Sum (");
	if (s) {
		*s = 0;
		return;
	}
	size_t n = strlen(out);
	if (n > 4 && (strcmp(out + n - 4, " (I)") == 0 || strcmp(out + n - 4, " (E)") == 0))
		out[n - 4] = 0;
}

struct model_metric {
	uint32_t m;	 /* model metric */
	uint32_t column; /* MetricDB db-id of its inclusive values */
	uint32_t xml_id; /* the XML metric of its summed inclusive values, UINT32_MAX none */
	double scale;
};

static uint32_t model_metrics(struct rd *r, struct model_metric *mm, uint32_t cap, bool from_db)
{
	uint32_t n = 0;
	char name[1024];
	if (from_db) {
		for (uint32_t i = 0; i < r->nr_mdb && n < cap; i++) {
			size_t l = strlen(r->mdb[i].name);
			if (l < 4 || strcmp(r->mdb[i].name + l - 4, " (I)") != 0)
				continue;
			base_name(r->mdb[i].name, name, sizeof(name));
			mm[n].column = r->mdb[i].db_id;
			mm[n].xml_id = UINT32_MAX;
			n++;
			mm[n - 1].m = builder_metric(r->b, builder_cstr(r->b, name),
						     hpc_metric_unit(name, &mm[n - 1].scale));
		}
	} else {
		for (uint32_t i = 0; i < r->nr_met && n < cap; i++) {
			const struct xmetric *x = &r->met[i];
			if (!x->inclusive || x->derived ||
			    (!strstr(x->name, ":Sum (I)") && !x->raw))
				continue;
			base_name(x->name, name, sizeof(name));
			mm[n].xml_id = x->id;
			mm[n].column = UINT32_MAX;
			n++;
			mm[n - 1].m = builder_metric(r->b, builder_cstr(r->b, name),
						     hpc_metric_unit(name, &mm[n - 1].scale));
		}
	}
	/* descriptions: the summed metric's md ("Sum over rank/thread of inclusive 'CYCLES'") */
	for (uint32_t k = 0; k < n; k++) {
		const char *mn = pv_str(r->b->p, r->b->p->metrics.name[mm[k].m]);
		for (uint32_t i = 0; i < r->nr_met; i++) {
			base_name(r->met[i].name, name, sizeof(name));
			if (r->met[i].inclusive && r->met[i].desc && strcmp(name, mn) == 0) {
				builder_metric_description(r->b, mm[k].m,
							   builder_cstr(r->b, r->met[i].desc));
				break;
			}
		}
	}
	return n;
}

/* ---- derived metrics ---- */

struct xref {
	struct rd *r;
	const struct xmetric *self; /* the metric whose formula it is */
	char name[1024];
};

/*
 * The model metric a reference of a formula names: $N and @N by id, #N by order; none for the
 * metric itself (hpcrun's formula metrics may read their own raw values, which profview does not
 * keep beside the formula).
 */
static const char *xml_ref(void *ctx, char sigil, uint32_t id)
{
	struct xref *x = ctx;
	const struct rd *r = x->r;
	for (uint32_t i = 0; i < r->nr_met; i++) {
		const struct xmetric *m = &r->met[i];
		if (sigil == '#' ? m->order != (int64_t)id || m->exclusive : m->id != id)
			continue;
		if (m == x->self)
			return NULL;
		base_name(m->name, x->name, sizeof(x->name));
		if (m->derived || pv_metric_find(r->b->p, x->name) != PV_NONE)
			return x->name;
	}
	return NULL;
}

/*
 * The database's derived metrics, once the model's metrics are made: one formula per name (an
 * inclusive metric's, or one without a type; the exclusive partner's formula is the same over
 * exclusive values, which a derived metric's self column computes).
 */
static int xml_formulas(struct rd *r)
{
	struct xref x = {r, NULL, ""};
	char name[1024];
	for (uint32_t i = 0; i < r->nr_met; i++) {
		const struct xmetric *m = &r->met[i];
		if (!m->formula || m->exclusive)
			continue;
		base_name(m->name, name, sizeof(name));
		x.self = m;
		struct hpc_formula_def d = {name, m->desc, {m->formula, NULL}, {NULL, NULL}};
		int rc = hpc_formula(r->b, &d, xml_ref, &x);
		if (rc)
			return oom(r);
	}
	return 0;
}

/* ---- per-thread side files (big-endian) ---- */

struct side {
	uint32_t rank, thread;
	uint64_t off; /* where its file starts */
	uint64_t end; /* where it ends: the next file's start, or the end */
};

static int cmp_offset(const void *a, const void *b)
{
	const struct side *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_side(const void *a, const void *b)
{
	const struct side *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* One thread's metric-db at byte off of f: adds its inclusive values to the tree's sums. */
static int read_metricdb(struct rd *r, const struct hpc_bin *f, uint64_t off,
			 const struct model_metric *mm, uint32_t nm)
{
	if (!hpc_in(f, off, 32, "a metric-db header"))
		return PV_EPARSE;
	const uint8_t *h = f->p + off;
	if (memcmp(h, "HPCPROF-metricdb__", 18) != 0)
		return hpc_fail(f, off,
				"not a metric-db (it does not start with HPCPROF-metricdb__)");
	if (h[23] != 'b')
		return hpc_fail(f, off + 23,
				"a metric-db of byte order '%c' (profview reads 'b', "
				"big-endian)",
				h[23]);
	uint32_t nodes = be32(h + 24), ncol = be32(h + 28);
	if (!hpc_in(f, off + 32, (uint64_t)nodes * ncol * 8, "the metric-db's values"))
		return PV_EPARSE;
	for (uint32_t k = 0; k < nm; k++)
		if (mm[k].column >= ncol)
			return hpc_fail(f, off + 28, "%u metric columns, the XML names column %u",
					ncol, mm[k].column);
	for (uint32_t row = 0; row < nodes; row++) {
		uint32_t node = u64map_get(&r->ids, (uint64_t)row + 1);
		const uint8_t *v = h + 32 + (uint64_t)row * ncol * 8;
		if (node == NODE_SKIPPED)
			continue;
		if (node == UINT32_MAX) {
			for (uint32_t c = 0; c < ncol; c++)
				if (be64(v + 8 * c))
					return hpc_fail(f,
							off + 32 + (uint64_t)row * ncol * 8 + 8 * c,
							"values of node %u, which the XML does not "
							"have",
							row + 1);
			continue;
		}
		for (uint32_t k = 0; k < nm; k++) {
			double x = hpc_f64(be64(v + 8 * mm[k].column));
			if (x != 0)
				hpc_acc_add(&r->cct, node, mm[k].m,
					    hpc_scaled(x, mm[k].scale, &r->fraction));
		}
	}
	return 0;
}

/* rank and thread from "<exe>-<rank>-<thread>-<host>-<pid>-<gen>.metric-db" */
static bool name_ids(const char *file, uint32_t *rank, uint32_t *thread)
{
	char name[512];
	snprintf(name, sizeof(name), "%s", file);
	char *dot = strrchr(name, '.');
	if (dot)
		*dot = 0; /* the extension, which may hold a '-' */
	const char *dash[8];
	int n = 0;
	for (const char *s = strrchr(name, '-'); s && n < 8;) {
		dash[n++] = s;
		if (s == name)
			break;
		const char *q = s - 1;
		while (q > name && *q != '-')
			q--;
		if (*q != '-')
			break;
		s = q;
	}
	if (n < 5)
		return false;
	/* dash[0] before gen, [1] before pid, [2] before host, [3] before thread, [4] before rank
	 */
	*thread = (uint32_t)strtoul(dash[3] + 1, NULL, 10);
	*rank = (uint32_t)strtoul(dash[4] + 1, NULL, 10);
	return true;
}

/*
 * The files of one side file f: a merged index (u32 type, u32 count, count x {u32 rank, u32
 * thread, u64 offset}, big-endian) when merged, else the one file of thread (rank, thread) at
 * byte 0; in (rank, thread) order, each with the byte where it ends. 0 or an error.
 */
static int side_files(struct rd *r, const struct hpc_bin *f, bool merged, uint32_t rank,
		      uint32_t thread, struct side **out, uint32_t *n)
{
	uint32_t ns = 1;
	if (merged) {
		if (!hpc_in(f, 0, 8, "the index header"))
			return PV_EPARSE;
		ns = be32(f->p + 4);
		if (!hpc_in(f, 8, (uint64_t)ns * 16, "the index"))
			return PV_EPARSE;
	}
	struct side *sides = pv_calloc(ns ? ns : 1, sizeof(*sides));
	if (!sides)
		return oom(r);
	for (uint32_t k = 0; k < ns; k++) {
		const uint8_t *q = f->p + 8 + 16 * k;
		sides[k] = merged ? (struct side){be32(q), be32(q + 4), be64(q + 8), 0}
				  : (struct side){rank, thread, 0, 0};
	}
	/* a file ends where the next one in the file starts; the last one before the merged
	 * file's end marker (hpcviewer's, the 8 bytes ffffffff deadf00d) */
	uint64_t len = f->len;
	if (merged && len >= 16 && be64(f->p + len - 8) == 0xffffffffdeadf00dull)
		len -= 8;
	pv_sort(sides, ns, sizeof(*sides), cmp_offset);
	for (uint32_t k = 0; k < ns; k++)
		sides[k].end = k + 1 < ns ? sides[k + 1].off : len;
	pv_sort(sides, ns, sizeof(*sides), cmp_side);
	*out = sides;
	*n = ns;
	return 0;
}

/* The thread of execution context (rank, thread): "RANK r THREAD t", made once. */
static pv_thread_ix rank_thread(struct rd *r, uint32_t rank, uint32_t thread, pv_str_ix proc)
{
	uint64_t key = (uint64_t)rank << 32 | thread;
	uint32_t th = u64map_get(&r->rank_thread, key);
	if (th != UINT32_MAX)
		return th;
	th = builder_thread(r->b, builder_strf(r->b, "RANK %u THREAD %u", rank, thread), rank,
			    thread, proc);
	if (th != PV_NONE && u64map_put(&r->rank_thread, key, th))
		return PV_NONE;
	return th;
}

/*
 * One side file f of metric-db files: merged (experiment-N.mdb) or one thread's (rank, thread).
 * Each metric-db is one thread of the profile, in (rank, thread) order.
 */
static int read_sidefile(struct rd *r, const struct hpc_bin *f, bool mdb, uint32_t rank,
			 uint32_t thread, const struct model_metric *mm, uint32_t nm,
			 pv_str_ix proc)
{
	struct side *sides = NULL;
	uint32_t ns = 0;
	int rc = side_files(r, f, mdb, rank, thread, &sides, &ns);
	for (uint32_t k = 0; k < ns && !rc; k++) {
		rc = read_metricdb(r, f, sides[k].off, mm, nm);
		pv_thread_ix th = rank_thread(r, sides[k].rank, sides[k].thread, proc);
		hpc_acc_flush(r->b, &r->cct, th);
	}
	pv_free(sides);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		pv_free(names[i]);
	pv_free(names);
}

/*
 * The files of the XML's folder whose names match pattern, sorted by name, into *names (to
 * free_names); none when the XML is no file on disk. 0 or PV_ENOMEM.
 */
static int folder_files(struct rd *r, const struct pv_input *xin, const char *pattern,
			char ***names, uint32_t *n)
{
	*names = NULL;
	*n = 0;
	if (!input_is_file(xin))
		return 0;
	char dir[4096];
	const char *slash = strrchr(xin->name, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - xin->name) : 1,
		 slash ? xin->name : ".");
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	char **v = NULL;
	uint32_t nn = 0, cn = 0;
	int rc = 0;
	for (struct dirent *e; (e = readdir(d)) && !rc;) {
		if (fnmatch(pattern, e->d_name, 0) != 0)
			continue;
		if (nn == cn) {
			cn = cn ? cn * 2 : 16;
			char **g = pv_realloc(v, cn * sizeof(*g));
			if (!g) {
				rc = oom(r);
				break;
			}
			v = g;
		}
		if (!(v[nn++] = pv_strdup(e->d_name)))
			rc = oom(r);
	}
	closedir(d);
	if (rc) {
		free_names(v, nn);
		return rc;
	}
	if (nn)
		pv_sort(v, nn, sizeof(*v), cmp_name);
	*names = v;
	*n = nn;
	return 0;
}

/* Threads from the side files: an experiment-N.mdb, else the files db-glob matches. */
static int read_threads(struct rd *r, const struct pv_input *xin, bool *any)
{
	*any = false;
	if (!r->nr_mdb)
		return 0;
	struct model_metric mm[64];
	char **names = NULL;
	uint32_t nn = 0;
	/* the merged file replaces the single ones */
	int rc = folder_files(r, xin, "experiment-*.mdb", &names, &nn);
	bool mdb = nn > 0;
	if (!rc && !nn)
		rc = folder_files(r, xin, r->mdb[0].glob, &names, &nn);
	if (rc || !nn)
		goto out;
	uint32_t nm = model_metrics(r, mm, 64, true);
	if (!nm)
		goto out;
	if ((rc = hpc_acc_begin(&r->cct, r->b->p->metrics.len)))
		goto out;
	pv_str_ix proc = builder_cstr(r->b, r->title);
	for (uint32_t i = 0; i < nn && !rc; i++) {
		struct pv_input in;
		char *path = NULL;
		rc = hpc_sibling(xin, names[i], &in, &path, r->err);
		if (rc == 1) {
			rc = 0;
			pv_free(path);
			continue;
		}
		if (rc) {
			pv_free(path);
			break;
		}
		struct hpc_bin f = {path, (const uint8_t *)in.data, in.len, r->err};
		uint32_t rank = i, thread = 0;
		if (!mdb)
			name_ids(names[i], &rank, &thread);
		rc = read_sidefile(r, &f, mdb, rank, thread, mm, nm, proc);
		*any = true;
		input_close(&in);
		pv_free(path);
	}
out:
	free_names(names, nn);
	return rc;
}

/* ---- traces: *.hpctrace, or experiment.mt (the same files merged behind an index) ---- */

/*
 * The header of the trace file at [off, end) of f: "HPCRUN-trace______01.00b" (24 bytes, times
 * in microseconds) or "...01.01b" and 8 bytes of flags (32 bytes, nanoseconds). Sets where the
 * records start and the nanoseconds of a tick. 0 or an error.
 */
static int trace_header(const struct hpc_bin *f, uint64_t off, uint64_t end, uint64_t *first,
			int64_t *ns)
{
	if (end < off || !hpc_in(f, off, 24, "a trace file's header"))
		return PV_EPARSE;
	const uint8_t *h = f->p + off;
	if (memcmp(h, "HPCRUN-trace______", 18) != 0)
		return hpc_fail(f, off,
				"not a trace file (it does not start with "
				"HPCRUN-trace______)");
	if (h[23] != 'b')
		return hpc_fail(f, off + 23,
				"a trace file of byte order '%c' (profview reads "
				"'b', big-endian)",
				h[23]);
	bool v100 = memcmp(h + 18, "01.00", 5) == 0;
	*first = off + (v100 ? 24 : 32);
	*ns = v100 ? 1000 : 1;
	if (*first > end || (end - *first) % 12)
		return hpc_fail(f, off,
				"a trace file whose %llu bytes of records are not whole "
				"12-byte records",
				(unsigned long long)(end - (off + 24)));
	return 0;
}

/* A time of ticks of ns nanoseconds, clamped where it would overflow (a broken file). */
static int64_t tick_ns(uint64_t ticks, int64_t ns)
{
	return ticks > (uint64_t)(INT64_MAX / ns) ? INT64_MAX / ns * ns : (int64_t)ticks * ns;
}

struct trace_file {
	struct pv_input in;
	char *path;
	struct hpc_bin f;
	struct side *sides;
	uint32_t ns;
	bool open;
};

/*
 * The records of every trace file (experiment.mt, else the files TraceDB's glob matches): each
 * record {u64 time, u32 trace id} is a record of its (rank, thread)'s thread at the stack of the
 * node whose it attribute is the id. The profile's zero is the earliest of db-min-time and the
 * records; the trace ends at the latest of db-max-time and the records.
 */
static int read_traces(struct rd *r, const struct pv_input *xin)
{
	if (!r->trace_glob[0])
		return 0;
	char **names = NULL;
	uint32_t nn = 0;
	int rc = folder_files(r, xin, "experiment.mt", &names, &nn);
	bool merged = nn > 0;
	if (!rc && !nn)
		rc = folder_files(r, xin, r->trace_glob, &names, &nn);
	struct trace_file *tf = nn ? pv_calloc(nn, sizeof(*tf)) : NULL;
	if (!rc && nn && !tf)
		rc = oom(r);
	uint32_t opened = 0;
	int64_t t_min = INT64_MAX, t_max = INT64_MIN, unit = 0;
	/* pass 1: open, index, check the headers, the time range */
	for (uint32_t i = 0; i < nn && !rc; i++) {
		struct trace_file *t = &tf[i];
		rc = hpc_sibling(xin, names[i], &t->in, &t->path, r->err);
		if (rc == 1) {
			rc = 0;
			continue;
		}
		if (rc)
			break;
		t->open = true;
		opened = i + 1;
		t->f = (struct hpc_bin){t->path, (const uint8_t *)t->in.data, t->in.len, r->err};
		uint32_t rank = i, thread = 0;
		if (!merged)
			name_ids(names[i], &rank, &thread);
		if ((rc = side_files(r, &t->f, merged, rank, thread, &t->sides, &t->ns)))
			break;
		for (uint32_t k = 0; k < t->ns && !rc; k++) {
			uint64_t at;
			int64_t ns;
			rc = trace_header(&t->f, t->sides[k].off, t->sides[k].end, &at, &ns);
			if (!unit)
				unit = ns;
			for (; !rc && at < t->sides[k].end; at += 12) {
				int64_t v = tick_ns(be64(t->f.p + at), ns);
				t_min = v < t_min ? v : t_min;
				t_max = v > t_max ? v : t_max;
			}
		}
	}
	if (!rc && unit) {
		int64_t lo = tick_ns((uint64_t)r->trace_min, unit);
		int64_t hi = tick_ns((uint64_t)r->trace_max, unit);
		if (lo && lo < t_min)
			t_min = lo;
		if (hi > t_max)
			t_max = hi;
		if (t_min > t_max)
			t_min = t_max = 0;
	}
	/* pass 2: the records */
	uint64_t unknown = 0;
	pv_str_ix proc = builder_cstr(r->b, r->title);
	for (uint32_t i = 0; i < opened && !rc; i++) {
		struct trace_file *t = &tf[i];
		for (uint32_t k = 0; t->open && k < t->ns && !rc; k++) {
			uint64_t at;
			int64_t ns;
			rc = trace_header(&t->f, t->sides[k].off, t->sides[k].end, &at, &ns);
			pv_thread_ix th =
			    rank_thread(r, t->sides[k].rank, t->sides[k].thread, proc);
			for (; !rc && at < t->sides[k].end; at += 12) {
				int64_t v = tick_ns(be64(t->f.p + at), ns);
				uint32_t node = u64map_get(&r->trace_ids, be32(t->f.p + at + 8));
				unknown += node == UINT32_MAX;
				builder_trace(r->b, th, v - t_min,
					      node == UINT32_MAX ? PV_NONE : r->cct.stack[node]);
			}
		}
	}
	if (!rc && opened) {
		r->b->p->trace.end_ns = t_max - t_min;
		if (!r->b->p->meta.start_unix_ns)
			r->b->p->meta.start_unix_ns = t_min;
		builder_lossy(r->b, unknown,
			      "trace records of trace ids no node of experiment.xml has (shown as "
			      "not running)");
	}
	for (uint32_t i = 0; tf && i < nn; i++) {
		if (tf[i].open)
			input_close(&tf[i].in);
		pv_free(tf[i].path);
		pv_free(tf[i].sides);
	}
	pv_free(tf);
	free_names(names, nn);
	return rc;
}

/* The summary values of the XML as one thread (no side files). */
static int summary_thread(struct rd *r)
{
	struct model_metric mm[64];
	uint32_t nm = model_metrics(r, mm, 64, false);
	if (!nm) {
		builder_lossy(r->b, 1,
			      "experiment.xml: no summed inclusive metric; the calling "
			      "contexts are shown without costs");
		return 0;
	}
	int rc = hpc_acc_begin(&r->cct, r->b->p->metrics.len);
	if (rc)
		return oom(r);
	/* a node's own cost is its value less its children's, each known to 6 digits: below 0
	 * by their rounding, taken as 0 (hpcviewer shows the file's exclusive values, never
	 * negative) */
	r->cct.clamp = true;
	for (uint32_t i = 0; i < r->nr_sv; i++)
		for (uint32_t k = 0; k < nm; k++)
			if (r->sv_metric[i] == mm[k].xml_id)
				hpc_acc_add(&r->cct, r->sv_node[i], mm[k].m,
					    hpc_scaled(r->sv_value[i], mm[k].scale, &r->fraction));
	pv_thread_ix th = builder_thread(r->b, builder_cstr(r->b, "SUMMARY"), PV_ID_NONE,
					 PV_ID_NONE, builder_cstr(r->b, r->title));
	hpc_acc_flush(r->b, &r->cct, th);
	builder_lossy(r->b, 1,
		      "experiment.xml: no per-thread metric files; the summary (values "
		      "of 6 significant digits) is shown as one thread");
	return 0;
}

static void release(struct rd *r)
{
	for (uint32_t i = 0; i < r->nr_met; i++) {
		pv_free(r->met[i].name);
		pv_free(r->met[i].desc);
		pv_free(r->met[i].formula);
	}
	pv_free(r->met);
	for (uint32_t i = 0; i < r->nr_mdb; i++)
		pv_free(r->mdb[i].name);
	pv_free(r->mdb);
	u64map_release(&r->modules);
	u64map_release(&r->files);
	u64map_release(&r->procs);
	u64map_release(&r->ids);
	u64map_release(&r->trace_ids);
	u64map_release(&r->rank_thread);
	hpc_cct_release(&r->cct);
	pv_free(r->sv_node);
	pv_free(r->sv_metric);
	pv_free(r->sv_value);
}

static int probe(const struct pv_input *in)
{
	return probe_has(in, 65536, "<HPCToolkitExperiment") ||
		       probe_has(in, 4096, "<!DOCTYPE HPCToolkitExperiment")
		   ? 95
		   : 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct rd r;
	memset(&r, 0, sizeof(r));
	r.b = b;
	r.err = err;
	r.x = (struct xml){in, in->data, in->data + in->len, err};
	b->p->meta.product = builder_cstr(b, "HPCToolkit");
	int rc = hpc_cct_init(&r.cct) ? oom(&r) : read_xml(&r);
	if (!rc) {
		pv_func_ix unknown =
		    builder_func(b, builder_cstr(b, "<unknown procedure>"), PV_NONE, PV_NONE, 0);
		rc = hpc_cct_stacks(b, &r.cct, unknown);
	}
	bool threads = false;
	if (!rc)
		rc = read_threads(&r, in, &threads);
	if (!rc && !threads)
		rc = summary_thread(&r);
	if (!rc)
		rc = read_traces(&r, in);
	if (!rc)
		rc = xml_formulas(&r);
	hpc_names_done(b, &r.names);
	if (!rc && r.fraction)
		builder_lossy(b, r.fraction, "values rounded to whole units of their metric");
	if (!rc && r.cct.negative && r.cct.clamp)
		builder_lossy(b, r.cct.negative,
			      "contexts whose own cost came out negative, shown as 0: their "
			      "summary value below their children's sum (by the rounding of those "
			      "values to 6 digits)");
	else if (!rc && r.cct.negative)
		builder_lossy(
		    b, r.cct.negative,
		    "contexts whose own cost came out negative: their inclusive value below their "
		    "children's sum (by the rounding of those values, mostly)");
	release(&r);
	return rc;
}

int hpc_xml_file(const char *kind, const void *buf, size_t len, struct pv_error *err)
{
	/* the side files: a tree whose node ids 1..256 are the root, one metric in column 0 */
	(void)kind;
	struct pv_builder b;
	struct rd r;
	memset(&r, 0, sizeof(r));
	if (builder_init(&b))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	r.b = &b;
	r.err = err;
	int rc = hpc_cct_init(&r.cct) ? oom(&r) : 0;
	for (uint64_t id = 1; id <= 256 && !rc; id++)
		rc = u64map_put(&r.ids, id, 0) ? oom(&r) : 0;
	struct model_metric mm = {builder_metric(&b, builder_cstr(&b, "m"), PV_UNIT_COUNT), 0,
				  UINT32_MAX, 1};
	if (!rc)
		rc = hpc_acc_begin(&r.cct, 1);
	struct hpc_bin f = {"fuzz-input", buf, len, err};
	bool mdb = len < 18 || memcmp(buf, "HPCPROF-metricdb__", 18) != 0;
	if (!rc)
		rc = read_sidefile(&r, &f, mdb, 0, 0, &mm, 1, 0);
	release(&r);
	builder_release(&b);
	return rc;
}

/* experiment.mt, experiment-N.mdb (named so: no magic), *.metric-db, *.hpctrace (magic) */
static int dir_member(const char *folder, const char *base, const unsigned char *head, size_t n)
{
	(void)folder;
	size_t len = strlen(base);
	if (!strcmp(base, "experiment.mt") ||
	    (!strncmp(base, "experiment-", 11) && len > 15 && !strcmp(base + len - 4, ".mdb")))
		return 1;
	return (n >= 16 && !memcmp(head, "HPCPROF-metricdb", 16)) ||
	       (n >= 12 && !memcmp(head, "HPCRUN-trace", 12));
}

const struct importer importer_hpctoolkit_xml = {
    .name = "hpctoolkit-xml",
    .description = "HPCToolkit database before format 4 (experiment.xml, *.metric-db, "
		   "experiment-N.mdb; a folder or its experiment.xml)",
    .one_program = true,
    .probe = probe,
    .import = import,
    .dir_entry = "experiment.xml",
    .dir_member = dir_member,
};
