/*
 * query.c - the query value and its three notations: CLI flags, URL query string, JSON.
 *
 * Every notation goes through the same value checks (set_value), so a value rejected on the
 * command line is rejected with the same words in a URL or a JSON document; only the label
 * ("--by", "by") differs. Times are parsed as decimal text into integer nanoseconds and printed
 * back from the integer, so a range round-trips exactly; min_percent is parsed the same way as
 * fixed point with 6 decimals and compared at that resolution, for the same reason.
 * Writers build the text in an sbuf (JSON strings escaped by sbuf_json_string, as the reports
 * escape theirs) and hand it over pv_malloc'ed; the caller frees it with pv_free().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/sbuf.h"
#include "base/text.h"
#include "import/json.h"
#include "pv/query.h"
#include "view/internal.h"

#define NR(a) (sizeof(a) / sizeof((a)[0]))

enum opt {
	O_CENTER,
	O_FILTER,					    /* + enum pv_filter_kind */
	O_METRIC = O_FILTER + PV_FILTER_FOCUS_INVERTED + 1, /* one per filter kind */
	O_BY,
	O_THREAD,
	O_RANGE,
	O_PERCENT,
	O_MIN,
	O_DEPTH,
	O_N,
	O_SORT,
	O_INSIDE,
	O_INLINE,
	O_MAX_ROWS,
	O_SELF,
	O_DERIVE,
	O_VIEW, /* not a CLI option: the view is the command */
};

/* CLI long option names, indexed by enum opt; a filter's option is named as the filter. */
static const char *const cli_names[] = {
    "center",
    "include",
    "drop",
    "merge",
    "collapse-recursion",
    "collapse-module",
    "focus-category",
    "tag",
    "drop-tag",
    "collapse-subtree",
    "prune",
    "collapse-direct-recursion",
    "focus-self",
    "focus-inverted",
    "metric",
    "by",
    "thread",
    "range",
    "percent",
    "min-percent",
    "depth",
    "n",
    "sort",
    "inside-markers",
    "inline",
    "max-rows",
    "self",
    "derive",
};

_Static_assert(NR(cli_names) == O_VIEW, "one CLI name per option");
_Static_assert(NR(cli_names) == PV_QUERY_NR_OPTIONS, "PV_QUERY_NR_OPTIONS counts them");

/* the filters' names (enum pv_filter_kind), as the options and every notation write them */
#define filter_names (cli_names + O_FILTER)
#define NR_FILTERS   ((size_t)(O_METRIC - O_FILTER))

static const char *const by_names[] = {"function", "line", "file", "module", "loop"};
static const char *const percent_names[] = {"center", "whole"};
/* PV_SORT_SELF.. in order (PV_SORT_DEFAULT has no name: it is the absence of the option) */
static const char *const sort_names[] = {"self", "total", "delta"};
static const char *const inline_names[] = {"keep", "fold"};
static const char *const self_names[] = {"own", "nested"};

/* What each filter's argument is, for messages. */
static const char *const filter_arg_what[] = {
    "a scope",	     "a scope",		"a scope",	     "a scope",
    "a module name", "a category name", "a label KEY=VALUE", "a label KEY=VALUE",
    "a scope",	     "a scope",		"a scope",	     "a scope",
    "a scope"};

#define MICRO		1000000 /* ns per ms, and min_percent's fixed-point scale */
#define MAX_MIN_PERCENT ((int64_t)100 * MICRO)

/* ---- names ---- */

static const char *name_of(const char *const *names, size_t n, unsigned v)
{
	return v < n ? names[v] : NULL;
}

static int index_of(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

const char *pv_filter_name(enum pv_filter_kind k)
{
	return name_of(filter_names, NR_FILTERS, (unsigned)k);
}

const char *pv_granularity_name(enum pv_granularity g)
{
	return name_of(by_names, NR(by_names), (unsigned)g);
}

int pv_filter_parse(const char *s, enum pv_filter_kind *out)
{
	int i = index_of(filter_names, NR_FILTERS, s);
	if (i < 0)
		return PV_EINVAL;
	*out = (enum pv_filter_kind)i;
	return 0;
}

int pv_granularity_parse(const char *s, enum pv_granularity *out)
{
	int i = index_of(by_names, NR(by_names), s);
	if (i < 0)
		return PV_EINVAL;
	*out = (enum pv_granularity)i;
	return 0;
}

/* Writers print "?" for an enum out of range, which then fails to read back with a message. */
static const char *text_of(const char *const *names, size_t n, unsigned v)
{
	const char *s = name_of(names, n, v);
	return s ? s : "?";
}

/* The name of the order q's rows come in ("self" for a tree or top that names none). */
static const char *sort_text(const struct pv_query *q)
{
	return text_of(sort_names, NR(sort_names), pv_query_sort(q) - PV_SORT_SELF);
}

/* Whether q's sort is its view kind's own: the flags and the URL leave it out. */
static bool sort_is_default(const struct pv_query *q)
{
	return pv_query_sort(q) == pv_view_kind(q->view)->sort;
}

/* ---- the value ---- */

void pv_query_init(struct pv_query *q)
{
	memset(q, 0, sizeof(*q));
	q->view = PV_VIEW_TREE;
	q->by = PV_BY_FUNCTION;
	q->range_start_ns = INT64_MIN;
	q->range_end_ns = INT64_MAX;
	q->percent = PV_PERCENT_CENTER;
	q->sort = PV_SORT_DEFAULT;
	q->max_rows = PV_TREE_ROWS;
}

void pv_query_release(struct pv_query *q)
{
	for (uint32_t i = 0; i < q->nr_center; i++)
		pv_free(q->center[i]);
	for (uint32_t i = 0; i < q->nr_filters; i++)
		pv_free(q->filters[i].arg);
	for (uint32_t i = 0; i < q->nr_metrics; i++)
		pv_free(q->metrics[i]);
	for (uint32_t i = 0; i < q->nr_threads; i++)
		pv_free(q->threads[i]);
	for (uint32_t i = 0; i < q->nr_derive; i++)
		pv_free(q->derive[i]);
	pv_free(q->inside_markers);
	/* back to the defaults, so a second release or a reuse is harmless */
	pv_query_init(q);
}

static int add_str(char **list, uint32_t *n, const char *s)
{
	if (*n >= PV_QUERY_MAX)
		return PV_ELIMIT;
	char *d = pv_strdup(s);
	if (!d)
		return PV_ENOMEM;
	list[(*n)++] = d;
	return 0;
}

int pv_query_add_center(struct pv_query *q, const char *scope)
{
	return add_str(q->center, &q->nr_center, scope);
}

int pv_query_add_metric(struct pv_query *q, const char *name)
{
	return add_str(q->metrics, &q->nr_metrics, name);
}

int pv_query_add_thread(struct pv_query *q, const char *thread)
{
	return add_str(q->threads, &q->nr_threads, thread);
}

int pv_query_add_derive(struct pv_query *q, const char *name_formula)
{
	return add_str(q->derive, &q->nr_derive, name_formula);
}

int pv_query_add_filter(struct pv_query *q, enum pv_filter_kind k, const char *arg)
{
	if (q->nr_filters >= PV_QUERY_MAX)
		return PV_ELIMIT;
	char *d = pv_strdup(arg);
	if (!d)
		return PV_ENOMEM;
	q->filters[q->nr_filters].kind = k;
	q->filters[q->nr_filters++].arg = d;
	return 0;
}

int64_t pv_query_min_cost(const struct pv_query *q, int64_t base)
{
	if (!(q->min_percent > 0))
		return 0;
	double c = (double)base * q->min_percent / 100.0;
	int64_t min = (int64_t)c;
	return (double)min < c ? min + 1 : min;
}

int pv_query_copy(struct pv_query *dst, const struct pv_query *src)
{
	pv_query_init(dst);
	dst->view = src->view;
	dst->by = src->by;
	dst->has_range = src->has_range;
	dst->range_start_ns = src->range_start_ns;
	dst->range_end_ns = src->range_end_ns;
	dst->percent = src->percent;
	dst->min_percent = src->min_percent;
	dst->depth = src->depth;
	dst->limit = src->limit;
	dst->max_rows = src->max_rows;
	dst->sort = src->sort;
	dst->inlines = src->inlines;
	dst->self = src->self;
	int rc = 0;
	for (uint32_t i = 0; !rc && i < src->nr_center; i++)
		rc = pv_query_add_center(dst, src->center[i]);
	for (uint32_t i = 0; !rc && i < src->nr_filters; i++)
		rc = pv_query_add_filter(dst, src->filters[i].kind, src->filters[i].arg);
	for (uint32_t i = 0; !rc && i < src->nr_metrics; i++)
		rc = pv_query_add_metric(dst, src->metrics[i]);
	for (uint32_t i = 0; !rc && i < src->nr_threads; i++)
		rc = pv_query_add_thread(dst, src->threads[i]);
	for (uint32_t i = 0; !rc && i < src->nr_derive; i++)
		rc = pv_query_add_derive(dst, src->derive[i]);
	if (!rc && src->inside_markers && !(dst->inside_markers = pv_strdup(src->inside_markers)))
		rc = PV_ENOMEM;
	if (rc)
		pv_query_release(dst);
	return rc;
}

/* A range with both ends open selects everything: it is the same query as no range. */
static bool has_range(const struct pv_query *q)
{
	return q->has_range && !(q->range_start_ns == INT64_MIN && q->range_end_ns == INT64_MAX);
}

/* min_percent in millionths of a percent, the resolution every notation keeps. */
static int64_t min_micro(double v)
{
	if (!(v > 0)) /* NaN too */
		return 0;
	if (v >= 100)
		return MAX_MIN_PERCENT;
	return (int64_t)(v * MICRO + 0.5);
}

static bool same_list(char *const *a, uint32_t na, char *const *b, uint32_t nb)
{
	if (na != nb)
		return false;
	for (uint32_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

bool pv_query_equal(const struct pv_query *a, const struct pv_query *b)
{
	if (a->view != b->view || a->by != b->by || a->percent != b->percent ||
	    a->depth != b->depth || a->limit != b->limit || a->max_rows != b->max_rows ||
	    pv_query_sort(a) != pv_query_sort(b) || a->inlines != b->inlines ||
	    a->self != b->self || min_micro(a->min_percent) != min_micro(b->min_percent))
		return false;
	if (has_range(a) != has_range(b))
		return false;
	if (has_range(a) &&
	    (a->range_start_ns != b->range_start_ns || a->range_end_ns != b->range_end_ns))
		return false;
	if ((a->inside_markers == NULL) != (b->inside_markers == NULL) ||
	    (a->inside_markers && strcmp(a->inside_markers, b->inside_markers) != 0))
		return false;
	if (!same_list(a->center, a->nr_center, b->center, b->nr_center) ||
	    !same_list(a->metrics, a->nr_metrics, b->metrics, b->nr_metrics) ||
	    !same_list(a->threads, a->nr_threads, b->threads, b->nr_threads) ||
	    !same_list(a->derive, a->nr_derive, b->derive, b->nr_derive))
		return false;
	if (a->nr_filters != b->nr_filters)
		return false;
	for (uint32_t i = 0; i < a->nr_filters; i++)
		if (a->filters[i].kind != b->filters[i].kind ||
		    strcmp(a->filters[i].arg, b->filters[i].arg) != 0)
			return false;
	return true;
}

/* ---- exact decimals ---- */

enum { FX_SYNTAX = 1, FX_INEXACT, FX_RANGE };

/*
 * Decimal text s[0..n) times 10^scale as an exact integer: [+-]digits[.digits][e[+-]digits]
 * (the exponent only when allow_exp). FX_INEXACT when the scaled value is not an integer (more
 * decimals than the scale keeps), FX_RANGE past +-(INT64_MAX - 1); INT64_MAX and INT64_MIN are
 * left to callers as "open" markers. No floating point: 10.5 ms is 10500000 ns, always.
 */
static int parse_fixed(const char *s, size_t n, int scale, bool allow_exp, int64_t *out)
{
	const char *p = s, *e = s + n;
	bool neg = false;
	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	const char *i0 = p;
	while (p < e && *p >= '0' && *p <= '9')
		p++;
	const char *i1 = p, *f0 = p, *f1 = p;
	if (p < e && *p == '.') {
		f0 = ++p;
		while (p < e && *p >= '0' && *p <= '9')
			p++;
		f1 = p;
	}
	if (i1 == i0 && f1 == f0)
		return FX_SYNTAX;
	int64_t exp = 0;
	if (allow_exp && p < e && (*p == 'e' || *p == 'E')) {
		bool eneg = false;
		if (++p < e && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p >= e || *p < '0' || *p > '9')
			return FX_SYNTAX;
		/* capped: any exponent this big is out of range or inexact anyway */
		for (; p < e && *p >= '0' && *p <= '9'; p++)
			if (exp < 1000000)
				exp = exp * 10 + (*p - '0');
		if (eneg)
			exp = -exp;
	}
	if (p != e)
		return FX_SYNTAX;

	/* the digits of both parts as one sequence D; value = D * 10^pow */
	size_t ni = (size_t)(i1 - i0), nf = (size_t)(f1 - f0), nd = ni + nf;
#define DIGIT(k) ((k) < ni ? i0[(k)] : f0[(k)-ni])
	size_t first = 0, last = nd;
	while (first < nd && DIGIT(first) == '0')
		first++;
	if (first == nd) {
		*out = 0;
		return 0;
	}
	while (DIGIT(last - 1) == '0')
		last--;
	int64_t pow = exp + scale - (int64_t)nf + (int64_t)(nd - last);
	if (pow < 0)
		return FX_INEXACT; /* the last nonzero digit is below the unit */
	if (last - first > 19)
		return FX_RANGE;
	uint64_t m = 0;
	for (size_t k = first; k < last; k++)
		m = m * 10 + (uint64_t)(DIGIT(k) - '0');
#undef DIGIT
	for (; pow > 0; pow--) {
		if (m > (uint64_t)INT64_MAX / 10)
			return FX_RANGE;
		m *= 10;
	}
	if (m >= (uint64_t)INT64_MAX)
		return FX_RANGE;
	*out = neg ? -(int64_t)m : (int64_t)m;
	return 0;
}

/* v / 10^6 as decimal text with up to 6 decimals, trailing zeros trimmed: 10500000 -> "10.5". */
static void fixed_text(char *buf, size_t n, int64_t v)
{
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;
	uint64_t frac = a % MICRO;
	int len = snprintf(buf, n, "%s%llu", v < 0 ? "-" : "", (unsigned long long)(a / MICRO));
	if (frac && len > 0 && (size_t)len + 8 <= n) {
		char d[8];
		snprintf(d, sizeof(d), "%06llu", (unsigned long long)frac);
		for (int k = 5; d[k] == '0'; k--)
			d[k] = 0;
		snprintf(buf + len, n - (size_t)len, ".%s", d);
	}
}

/* An unsigned count: digits only, at most UINT32_MAX. */
static bool parse_count(const char *s, uint32_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* ---- values, shared by the three notations ---- */

static int too_many(const char *label, struct pv_error *err)
{
	return pv_error_set(err, PV_ELIMIT, "too many %s values (at most %d)", label, PV_QUERY_MAX);
}

/* NAME=FORMULA: a name, and a formula whose syntax is right (its metrics are the view's to
 * find); the column of a mistake counts from the start of NAME. */
static int check_derive(const char *v, const char *label, struct pv_error *err)
{
	const char *eq = strchr(v, '=');
	if (!eq || eq == v)
		return pv_error_set(err, PV_EINVAL, "%s takes NAME=FORMULA, not '%s'", label, v);
	struct pv_formula *f;
	uint32_t col;
	char msg[200];
	int rc = pv__formula_parse(eq + 1, &f, &col, msg, sizeof(msg));
	pv__formula_free(f);
	if (rc == PV_ENOMEM)
		return pv_error_set(err, rc, "out of memory");
	if (rc)
		return pv_error_set(err, rc, "%s '%s': column %u: %s", label, v,
				    (unsigned)(col + (eq - v) + 1), msg);
	return 0;
}

/* Appends one string of a list option, checked. */
static int add_item(struct pv_query *q, enum opt o, const char *v, const char *label,
		    struct pv_error *err)
{
	int rc;
	if (!*v) {
		const char *what = o == O_CENTER   ? "a scope"
				   : o == O_THREAD ? "a thread name or tid"
				   : o == O_METRIC ? "a metric name"
				   : o == O_DERIVE ? "NAME=FORMULA"
						   : filter_arg_what[o - O_FILTER];
		return pv_error_set(err, PV_EINVAL, "%s takes %s, not an empty string", label,
				    what);
	}
	if ((o == O_FILTER + PV_FILTER_TAG || o == O_FILTER + PV_FILTER_DROP_TAG) &&
	    (!strchr(v, '=') || *v == '='))
		return pv_error_set(err, PV_EINVAL, "%s takes a label KEY=VALUE, not '%s'", label,
				    v);
	if (o == O_DERIVE && (rc = check_derive(v, label, err)))
		return rc;
	if (o == O_CENTER)
		rc = pv_query_add_center(q, v);
	else if (o == O_DERIVE)
		rc = pv_query_add_derive(q, v);
	else if (o == O_THREAD)
		rc = pv_query_add_thread(q, v);
	else if (o == O_METRIC)
		rc = pv_query_add_metric(q, v);
	else
		rc = pv_query_add_filter(q, (enum pv_filter_kind)(o - O_FILTER), v);
	if (rc == PV_ELIMIT)
		return too_many(label, err);
	if (rc)
		return pv_error_set(err, rc, "out of memory");
	return 0;
}

/* Checks a comma-separated list of names: no empty name, and room for all of them. */
static int check_commas(const struct pv_query *q, const char *v, const char *label,
			struct pv_error *err)
{
	uint32_t parts = 1;
	for (const char *p = v; *p; p++)
		parts += *p == ',';
	size_t n = strlen(v);
	if (!n || v[0] == ',' || v[n - 1] == ',' || strstr(v, ",,"))
		return pv_error_set(err, PV_EINVAL,
				    "%s takes metric names separated by commas, not '%s'", label,
				    v);
	if (parts > PV_QUERY_MAX - q->nr_metrics)
		return too_many(label, err);
	return 0;
}

static int set_range(struct pv_query *q, const char *v, const char *label, struct pv_error *err)
{
	const char *colon = strchr(v, ':');
	int64_t t[2] = {INT64_MIN, INT64_MAX};
	int rc = colon && !strchr(colon + 1, ':') ? 0 : FX_SYNTAX;
	/* an empty side stays open */
	if (!rc && colon > v)
		rc = parse_fixed(v, (size_t)(colon - v), 6, false, &t[0]);
	if (!rc && colon[1])
		rc = parse_fixed(colon + 1, strlen(colon + 1), 6, false, &t[1]);
	if (rc == FX_INEXACT)
		return pv_error_set(err, PV_EINVAL,
				    "%s takes milliseconds with at most 6 decimals, not '%s'",
				    label, v);
	if (rc)
		return pv_error_set(err, PV_EINVAL,
				    "%s takes T0:T1 in milliseconds (T0 or T1 may be empty), "
				    "not '%s'",
				    label, v);
	if (t[0] >= t[1])
		return pv_error_set(err, PV_EINVAL, "%s takes T0:T1 with T0 < T1, not '%s'", label,
				    v);
	q->range_start_ns = t[0];
	q->range_end_ns = t[1];
	q->has_range = !(t[0] == INT64_MIN && t[1] == INT64_MAX);
	return 0;
}

/* An enum value by name, or the error "LABEL takes a, b or c, not 'x'". */
static int set_enum(const char *const *names, size_t n, const char *v, int *out, const char *label,
		    struct pv_error *err)
{
	int i = index_of(names, n, v);
	if (i >= 0) {
		*out = i;
		return 0;
	}
	char list[200];
	size_t len = 0;
	for (size_t k = 0; k < n; k++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					k == 0	     ? ""
					: k + 1 == n ? " or "
						     : ", ",
					names[k]);
	return pv_error_set(err, PV_EINVAL, "%s takes %s, not '%s'", label, list, v);
}

/*
 * Applies one option value. label names the option in messages ("--by", "by"). List options
 * append (metric splits at commas), the others replace.
 */
static int set_value(struct pv_query *q, enum opt o, const char *v, const char *label,
		     struct pv_error *err)
{
	int rc, e = 0;
	uint32_t c;
	int64_t x;
	switch (o) {
	case O_METRIC:
		rc = check_commas(q, v, label, err);
		for (const char *p = v; !rc && *p;) {
			size_t n = strcspn(p, ",");
			char *name = pv_malloc(n + 1);
			if (!name)
				return pv_error_set(err, PV_ENOMEM, "out of memory");
			memcpy(name, p, n);
			name[n] = 0;
			rc = add_item(q, o, name, label, err);
			pv_free(name);
			p += n + (p[n] == ',');
		}
		return rc;
	case O_BY:
		rc = set_enum(by_names, NR(by_names), v, &e, label, err);
		if (!rc)
			q->by = (enum pv_granularity)e;
		return rc;
	case O_PERCENT:
		rc = set_enum(percent_names, NR(percent_names), v, &e, label, err);
		if (!rc)
			q->percent = (enum pv_percent_base)e;
		return rc;
	case O_SORT:
		rc = set_enum(sort_names, NR(sort_names), v, &e, label, err);
		if (!rc)
			q->sort = (enum pv_sort_key)(e + PV_SORT_SELF);
		return rc;
	case O_INLINE:
		rc = set_enum(inline_names, NR(inline_names), v, &e, label, err);
		if (!rc)
			q->inlines = (enum pv_inline_mode)e;
		return rc;
	case O_SELF:
		rc = set_enum(self_names, NR(self_names), v, &e, label, err);
		if (!rc)
			q->self = (enum pv_self_mode)e;
		return rc;
	case O_VIEW: {
		const char *view_names[PV_NR_VIEW_KINDS]; /* the view kinds' (kinds.c) */
		for (uint32_t k = 0; k < PV_NR_VIEW_KINDS; k++)
			view_names[k] = pv_view_kinds[k].name;
		rc = set_enum(view_names, PV_NR_VIEW_KINDS, v, &e, label, err);
		if (!rc)
			q->view = (enum pv_view_kind)e;
		return rc;
	}
	case O_RANGE: return set_range(q, v, label, err);
	case O_MIN:
		if (parse_fixed(v, strlen(v), 6, false, &x) || x < 0 || x > MAX_MIN_PERCENT)
			return pv_error_set(err, PV_EINVAL,
					    "%s takes a percentage from 0 to 100 with at most 6 "
					    "decimals, not '%s'",
					    label, v);
		q->min_percent = (double)x / MICRO;
		return 0;
	case O_DEPTH:
		if (!parse_count(v, &c) || c == 0)
			return pv_error_set(err, PV_EINVAL, "%s takes a positive count, not '%s'",
					    label, v);
		q->depth = c;
		return 0;
	case O_INSIDE: {
		if (!*v)
			return pv_error_set(err, PV_EINVAL,
					    "%s takes a marker search, not an empty string", label);
		char *d = pv_strdup(v);
		if (!d)
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		pv_free(q->inside_markers);
		q->inside_markers = d;
		return 0;
	}
	case O_N:
		if (!parse_count(v, &c))
			return pv_error_set(err, PV_EINVAL, "%s takes a count, not '%s'", label, v);
		q->limit = c;
		return 0;
	case O_MAX_ROWS:
		if (!parse_count(v, &c))
			return pv_error_set(err, PV_EINVAL,
					    "%s takes a count of rows (0: no limit), not '%s'",
					    label, v);
		q->max_rows = c;
		return 0;
	default: /* center, filters, thread */ return add_item(q, o, v, label, err);
	}
}

const char *pv_query_option_name(uint32_t i)
{
	return i < NR(cli_names) ? cli_names[i] : NULL;
}

int pv_query_set_option(struct pv_query *q, const char *name, const char *value,
			struct pv_error *err)
{
	int o = index_of(cli_names, NR(cli_names), name);
	if (o < 0)
		return 1;
	char label[32];
	snprintf(label, sizeof(label), o == O_N ? "-%s" : "--%s", name);
	return set_value(q, (enum opt)o, value, label, err);
}

/* ---- writers ---- */

struct out {
	struct sbuf b;
	unsigned items; /* flags or pairs written so far, for separators */
};

/* The text as a pv_malloc'ed string (NULL when out of memory). */
static char *out_close(struct out *o)
{
	if (o->b.oom) {
		sbuf_release(&o->b);
		return NULL;
	}
	return sbuf_detach(&o->b, NULL);
}

/* Characters a POSIX shell reads literally anywhere in a word (bytes >= 0x80: UTF-8). */
static bool shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c >= 0x80 || strchr("_-./:,@+=%", c);
}

/* One shell word holding the strings v[0..n) joined by commas; quoted only when it must be. */
static void shell_word(struct sbuf *f, char *const *v, uint32_t n)
{
	bool quote = n == 0;
	for (uint32_t i = 0; i < n; i++) {
		quote |= !*v[i];
		for (const char *p = v[i]; *p; p++)
			quote |= !shell_safe((unsigned char)*p);
	}
	if (quote)
		sbuf_put(f, "'", 1);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			sbuf_put(f, ",", 1);
		for (const char *p = v[i]; *p; p++) {
			if (*p == '\'')
				sbuf_puts(f, "'\\''"); /* close, an escaped quote, reopen */
			else
				sbuf_put(f, p, 1);
		}
	}
	if (quote)
		sbuf_put(f, "'", 1);
}

static void flag(struct out *o, const char *name, char *const *v, uint32_t n)
{
	sbuf_addf(&o->b, "%s%s%s ", o->items++ ? " " : "", strcmp(name, "n") ? "--" : "-", name);
	shell_word(&o->b, v, n);
}

static void flag1(struct out *o, const char *name, const char *v)
{
	char *one = (char *)v; /* shell_word only reads it */
	flag(o, name, &one, 1);
}

static void range_text(char *buf, size_t n, const struct pv_query *q)
{
	char a[32] = "", b[32] = "";
	if (q->range_start_ns != INT64_MIN)
		fixed_text(a, sizeof(a), q->range_start_ns);
	if (q->range_end_ns != INT64_MAX)
		fixed_text(b, sizeof(b), q->range_end_ns);
	snprintf(buf, n, "%s:%s", a, b);
}

char *pv_query_to_args(const struct pv_query *q)
{
	struct out o = {SBUF_INIT, 0};
	char buf[80];
	for (uint32_t i = 0; i < q->nr_center; i++)
		flag1(&o, "center", q->center[i]);
	for (uint32_t i = 0; i < q->nr_filters; i++)
		flag1(&o, text_of(filter_names, NR_FILTERS, q->filters[i].kind), q->filters[i].arg);
	if (q->nr_metrics)
		flag(&o, "metric", q->metrics, q->nr_metrics);
	if (q->by != PV_BY_FUNCTION)
		flag1(&o, "by", text_of(by_names, NR(by_names), q->by));
	for (uint32_t i = 0; i < q->nr_threads; i++)
		flag1(&o, "thread", q->threads[i]);
	if (has_range(q)) {
		range_text(buf, sizeof(buf), q);
		flag1(&o, "range", buf);
	}
	if (q->inside_markers)
		flag1(&o, "inside-markers", q->inside_markers);
	if (q->percent != PV_PERCENT_CENTER)
		flag1(&o, "percent", text_of(percent_names, NR(percent_names), q->percent));
	if (min_micro(q->min_percent)) {
		fixed_text(buf, sizeof(buf), min_micro(q->min_percent));
		flag1(&o, "min-percent", buf);
	}
	if (q->depth) {
		snprintf(buf, sizeof(buf), "%u", q->depth);
		flag1(&o, "depth", buf);
	}
	if (q->limit) {
		snprintf(buf, sizeof(buf), "%u", q->limit);
		flag1(&o, "n", buf);
	}
	if (!sort_is_default(q))
		flag1(&o, "sort", sort_text(q));
	if (q->inlines != PV_INLINE_KEEP)
		flag1(&o, "inline", text_of(inline_names, NR(inline_names), q->inlines));
	if (q->max_rows != PV_TREE_ROWS) {
		snprintf(buf, sizeof(buf), "%u", q->max_rows);
		flag1(&o, "max-rows", buf);
	}
	if (q->self != PV_SELF_OWN)
		flag1(&o, "self", text_of(self_names, NR(self_names), q->self));
	for (uint32_t i = 0; i < q->nr_derive; i++)
		flag1(&o, "derive", q->derive[i]);
	return out_close(&o);
}

/* RFC 3986 unreserved characters stay, every other byte is %XX. */
static void url_escape(struct sbuf *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '_' || *p == '~')
			sbuf_put(f, p, 1);
		else
			sbuf_addf(f, "%%%02X", *p);
	}
}

/* key=escaped value; prefix (a filter kind) is escaped with the value, so its ':' is %3A. */
static void pair(struct out *o, const char *key, const char *prefix, const char *v)
{
	sbuf_addf(&o->b, "%s%s=", o->items++ ? "&" : "", key);
	if (prefix) {
		url_escape(&o->b, prefix);
		url_escape(&o->b, ":");
	}
	url_escape(&o->b, v);
}

char *pv_query_to_url(const struct pv_query *q)
{
	struct out o = {SBUF_INIT, 0};
	char buf[80];
	pair(&o, "view", NULL, pv_view_name(q->view));
	for (uint32_t i = 0; i < q->nr_center; i++)
		pair(&o, "center", NULL, q->center[i]);
	for (uint32_t i = 0; i < q->nr_filters; i++)
		pair(&o, "filter", text_of(filter_names, NR_FILTERS, q->filters[i].kind),
		     q->filters[i].arg);
	if (q->nr_metrics) {
		/* names are escaped one by one, so a ',' inside a name is %2C and the raw ','s
		 * separate them */
		pair(&o, "metric", NULL, q->metrics[0]);
		for (uint32_t i = 1; i < q->nr_metrics; i++) {
			sbuf_put(&o.b, ",", 1);
			url_escape(&o.b, q->metrics[i]);
		}
	}
	if (q->by != PV_BY_FUNCTION)
		pair(&o, "by", NULL, text_of(by_names, NR(by_names), q->by));
	for (uint32_t i = 0; i < q->nr_threads; i++)
		pair(&o, "thread", NULL, q->threads[i]);
	if (has_range(q)) {
		/* the ':' is a plain query character; written raw, as users type it */
		range_text(buf, sizeof(buf), q);
		sbuf_addf(&o.b, "&range=%s", buf);
	}
	if (q->inside_markers)
		pair(&o, "inside-markers", NULL, q->inside_markers);
	if (q->percent != PV_PERCENT_CENTER)
		pair(&o, "percent", NULL, text_of(percent_names, NR(percent_names), q->percent));
	if (min_micro(q->min_percent)) {
		fixed_text(buf, sizeof(buf), min_micro(q->min_percent));
		pair(&o, "min", NULL, buf);
	}
	if (q->depth)
		sbuf_addf(&o.b, "&depth=%u", q->depth);
	if (q->limit)
		sbuf_addf(&o.b, "&n=%u", q->limit);
	if (!sort_is_default(q))
		pair(&o, "sort", NULL, sort_text(q));
	if (q->inlines != PV_INLINE_KEEP)
		pair(&o, "inline", NULL, text_of(inline_names, NR(inline_names), q->inlines));
	if (q->max_rows != PV_TREE_ROWS)
		sbuf_addf(&o.b, "&max-rows=%u", q->max_rows);
	if (q->self != PV_SELF_OWN)
		pair(&o, "self", NULL, text_of(self_names, NR(self_names), q->self));
	for (uint32_t i = 0; i < q->nr_derive; i++)
		pair(&o, "derive", NULL, q->derive[i]);
	return out_close(&o);
}

static void put_string(struct sbuf *f, const char *s)
{
	sbuf_json_string(f, s, strlen(s));
}

static void json_list(struct sbuf *f, const char *key, char *const *v, uint32_t n)
{
	sbuf_addf(f, ", \"%s\": [", key);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			sbuf_puts(f, ", ");
		put_string(f, v[i]);
	}
	sbuf_put(f, "]", 1);
}

static void json_time(struct sbuf *f, int64_t ns, int64_t open)
{
	char buf[32];
	if (ns == open) {
		sbuf_puts(f, "null");
		return;
	}
	fixed_text(buf, sizeof(buf), ns);
	sbuf_puts(f, buf);
}

char *pv_query_to_json(const struct pv_query *q)
{
	struct out o = {SBUF_INIT, 0};
	char buf[32];
	struct sbuf *f = &o.b;
	sbuf_puts(f, "{\"view\": ");
	put_string(f, pv_view_name(q->view));
	json_list(f, "center", q->center, q->nr_center);
	sbuf_puts(f, ", \"filters\": [");
	for (uint32_t i = 0; i < q->nr_filters; i++) {
		sbuf_puts(f, i ? ", {" : "{");
		put_string(f, text_of(filter_names, NR_FILTERS, q->filters[i].kind));
		sbuf_puts(f, ": ");
		put_string(f, q->filters[i].arg);
		sbuf_put(f, "}", 1);
	}
	sbuf_put(f, "]", 1);
	json_list(f, "metrics", q->metrics, q->nr_metrics);
	sbuf_puts(f, ", \"by\": ");
	put_string(f, text_of(by_names, NR(by_names), q->by));
	json_list(f, "threads", q->threads, q->nr_threads);
	sbuf_puts(f, ", \"range\": ");
	if (has_range(q)) {
		sbuf_put(f, "[", 1);
		json_time(f, q->range_start_ns, INT64_MIN);
		sbuf_puts(f, ", ");
		json_time(f, q->range_end_ns, INT64_MAX);
		sbuf_put(f, "]", 1);
	} else {
		sbuf_puts(f, "null");
	}
	if (q->inside_markers) { /* only when set: the other queries print as they always did */
		sbuf_puts(f, ", \"inside_markers\": ");
		put_string(f, q->inside_markers);
	}
	sbuf_puts(f, ", \"percent\": ");
	put_string(f, text_of(percent_names, NR(percent_names), q->percent));
	fixed_text(buf, sizeof(buf), min_micro(q->min_percent));
	sbuf_addf(f, ", \"min_percent\": %s, \"depth\": %u, \"limit\": %u, \"sort\": ", buf,
		  q->depth, q->limit);
	put_string(f, sort_text(q));
	if (q->inlines != PV_INLINE_KEEP) { /* only when set, as inside_markers */
		sbuf_puts(f, ", \"inline\": ");
		put_string(f, text_of(inline_names, NR(inline_names), q->inlines));
	}
	if (q->max_rows != PV_TREE_ROWS) /* only when set, as inline */
		sbuf_addf(f, ", \"max_rows\": %u", q->max_rows);
	if (q->self != PV_SELF_OWN) {
		sbuf_puts(f, ", \"self\": ");
		put_string(f, text_of(self_names, NR(self_names), q->self));
	}
	if (q->nr_derive) /* only when set, as self */
		json_list(f, "derive", q->derive, q->nr_derive);
	sbuf_put(f, "}", 1);
	return out_close(&o);
}

/* ---- URL reader ---- */

char *pv_url_decode(const char *s, size_t n, bool *bad)
{
	char *d = pv_malloc(n + 1), *o = d;
	*bad = false;
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '+') {
			*o++ = ' ';
		} else if (s[i] != '%') {
			*o++ = s[i];
		} else {
			int hi = i + 2 < n ? text_hex_digit(s[i + 1]) : -1;
			int lo = hi >= 0 ? text_hex_digit(s[i + 2]) : -1;
			if (lo < 0 || (hi | lo) == 0) { /* %00 would cut the string short */
				*bad = true;
				pv_free(d);
				return NULL;
			}
			*o++ = (char)(hi << 4 | lo);
			i += 2;
		}
	}
	*o = 0;
	return d;
}

/* URL keys, indexed by enum opt; NULL where the key is "filter" (see url_pair). */
static const char *const url_keys[] = {
    [O_CENTER] = "center",
    [O_METRIC] = "metric",
    [O_BY] = "by",
    [O_THREAD] = "thread",
    [O_RANGE] = "range",
    [O_PERCENT] = "percent",
    [O_MIN] = "min",
    [O_DEPTH] = "depth",
    [O_N] = "n",
    [O_SORT] = "sort",
    [O_INSIDE] = "inside-markers",
    [O_INLINE] = "inline",
    [O_MAX_ROWS] = "max-rows",
    [O_SELF] = "self",
    [O_DERIVE] = "derive",
    [O_VIEW] = "view",
};

static int decode_fail(const char *s, size_t n, bool bad, struct pv_error *err)
{
	if (!bad)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	return pv_error_set(err, PV_EINVAL, "bad %%-escape in '%.*s'", (int)(n > 200 ? 200 : n), s);
}

/* Metric names: split at the raw commas first, so a name may hold an escaped ',' (%2C); each
 * name then decoded (encoded) or taken as it is (a decoded value: its commas split it). */
static int url_metrics(struct pv_query *q, const char *v, size_t n, bool encoded,
		       struct pv_error *err)
{
	int rc = 0;
	const char *p = v, *e = v + n;
	bool bad = false;
	uint32_t parts = 1;
	for (size_t i = 0; i < n; i++)
		parts += v[i] == ',';
	if (parts > PV_QUERY_MAX - q->nr_metrics)
		return too_many("metric", err);
	while (!rc) {
		const char *c = memchr(p, ',', (size_t)(e - p));
		size_t len = c ? (size_t)(c - p) : (size_t)(e - p);
		char *name = encoded ? pv_url_decode(p, len, &bad) : pv_malloc(len + 1);
		if (name && !encoded) {
			memcpy(name, p, len);
			name[len] = 0;
		}
		if (!name)
			return decode_fail(v, n, bad, err);
		if (!*name)
			rc = pv_error_set(err, PV_EINVAL,
					  "metric takes metric names separated by commas, "
					  "not '%.*s'",
					  (int)(n > 200 ? 200 : n), v);
		else
			rc = add_item(q, O_METRIC, name, "metric", err);
		pv_free(name);
		if (!c)
			break;
		p = c + 1;
	}
	return rc;
}

/* The option a URL key names (O_FILTER for "filter"), or -1 after setting err. */
static int url_key(const char *key, struct pv_error *err)
{
	for (size_t i = 0; i < NR(url_keys); i++)
		if (url_keys[i] && strcmp(url_keys[i], key) == 0)
			return (int)i;
	if (strcmp(key, "filter") == 0)
		return O_FILTER;
	pv_error_set(err, PV_EINVAL, "unknown query key '%s'", key);
	return -1;
}

/* One decoded value of option o (not a metric): a filter's KIND:ARG, else the option's. */
static int url_value(struct pv_query *q, int o, char *val, struct pv_error *err)
{
	if (o != O_FILTER)
		return set_value(q, (enum opt)o, val, url_keys[o], err);
	/* KIND:ARG, split at the first ':' (kinds have none, scopes may) */
	char *colon = strchr(val, ':');
	enum pv_filter_kind k = PV_FILTER_INCLUDE;
	if (colon)
		*colon = 0;
	if (!colon || pv_filter_parse(val, &k)) {
		if (colon)
			*colon = ':';
		return pv_error_set(err, PV_EINVAL,
				    "filter takes KIND:ARG with KIND one of include, drop, "
				    "merge, collapse-recursion, collapse-module or "
				    "focus-category, not '%s'",
				    val);
	}
	int rc = set_value(q, (enum opt)(O_FILTER + k), colon + 1, filter_names[k], err);
	*colon = ':';
	return rc;
}

static int url_pair(struct pv_query *q, const char *s, size_t n, struct pv_error *err)
{
	const char *eq = memchr(s, '=', n);
	size_t klen = eq ? (size_t)(eq - s) : n;
	const char *v = eq ? eq + 1 : s + n;
	size_t vlen = n - klen - (eq != NULL);
	bool bad;
	char *key = pv_url_decode(s, klen, &bad);
	if (!key)
		return decode_fail(s, n, bad, err);
	int o = url_key(key, err);
	pv_free(key);
	if (o < 0)
		return PV_EINVAL;
	if (o == O_METRIC)
		return url_metrics(q, v, vlen, true, err);
	char *val = pv_url_decode(v, vlen, &bad);
	if (!val)
		return decode_fail(s, n, bad, err);
	int rc = url_value(q, o, val, err);
	pv_free(val);
	return rc;
}

int pv_query_set_param(struct pv_query *q, const char *key, const char *value, struct pv_error *err)
{
	int o = url_key(key, err);
	if (o < 0)
		return PV_EINVAL;
	if (o == O_METRIC)
		return url_metrics(q, value, strlen(value), false, err);
	char *val = pv_strdup(value);
	if (!val)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	int rc = url_value(q, o, val, err);
	pv_free(val);
	return rc;
}

int pv_query_from_url(struct pv_query *q, const char *s, struct pv_error *err)
{
	pv_query_init(q);
	if (*s == '?')
		s++;
	while (*s) {
		size_t n = strcspn(s, "&");
		int rc = n ? url_pair(q, s, n, err) : 0;
		if (rc) {
			pv_query_release(q);
			return rc;
		}
		s += n + (s[n] == '&');
	}
	return 0;
}

/* ---- JSON reader ---- */

static const char *const json_keys[] = {
    "view",	      "center",	 "filters",	"metrics", "by",     "threads",
    "range",	      "percent", "min_percent", "depth",   "limit",  "sort",
    "inside_markers", "inline",	 "max_rows",	"self",	   "derive",
};
enum {
	K_VIEW,
	K_CENTER,
	K_FILTERS,
	K_METRICS,
	K_BY,
	K_THREADS,
	K_RANGE,
	K_PERCENT,
	K_MIN,
	K_DEPTH,
	K_LIMIT,
	K_SORT,
	K_INSIDE,
	K_INLINE,
	K_MAX_ROWS,
	K_SELF,
	K_DERIVE,
};

/* A string or key token as a new C string; positioned errors (no NUL inside, memory). */
static int json_cstr(struct json *j, const struct json_tok *t, char **out)
{
	const char *s;
	size_t n;
	int rc = json_str(j, t, &s, &n);
	if (rc)
		return rc;
	if (memchr(s, 0, n))
		return json_fail_at(j, t, "a NUL character (\\u0000) in a string");
	char *d = pv_malloc(n + 1);
	if (!d) {
		rc = json_fail_at(j, t, "out of memory");
		if (j->err)
			j->err->code = PV_ENOMEM;
		return PV_ENOMEM;
	}
	memcpy(d, s, n);
	d[n] = 0;
	*out = d;
	return 0;
}

/* A rejected value: set_value's message, positioned at the value, with set_value's code. */
static int json_value_fail(struct json *j, const struct json_tok *t, const struct pv_error *e)
{
	json_fail_at(j, t, "%s", e->msg);
	if (j->err)
		j->err->code = e->code;
	return e->code;
}

static int json_set(struct json *j, const struct json_tok *t, struct pv_query *q, enum opt o,
		    const char *v, const char *label)
{
	struct pv_error e;
	pv_error_clear(&e);
	int rc = set_value(q, o, v, label, &e);
	return rc ? json_value_fail(j, t, &e) : 0;
}

/* "key": "name" for view, by, percent, sort, inline. */
static int json_enum(struct json *j, struct pv_query *q, enum opt o, const char *key)
{
	struct json_tok t;
	char *v;
	int rc = json_expect(j, &t, JSON_STRING, "a string");
	if (!rc)
		rc = json_cstr(j, &t, &v);
	if (rc)
		return rc;
	rc = json_set(j, &t, q, o, v, key);
	pv_free(v);
	return rc;
}

/* "key": ["a", "b"] for center, metrics, threads (a metric name may hold a comma here). */
static int json_strings(struct json *j, struct pv_query *q, enum opt o, const char *key)
{
	struct json_tok t;
	int rc = json_expect(j, &t, JSON_ARRAY, "an array of strings");
	while (!rc) {
		char *v;
		if ((rc = json_next(j, &t)) || t.kind == JSON_END)
			break;
		if (t.kind != JSON_STRING)
			return json_fail_at(j, &t, "expected a string, found %s",
					    json_kind_name(t.kind));
		if ((rc = json_cstr(j, &t, &v)))
			break;
		struct pv_error e;
		pv_error_clear(&e);
		rc = add_item(q, o, v, key, &e);
		pv_free(v);
		if (rc)
			return json_value_fail(j, &t, &e);
	}
	return rc;
}

/* "filters": [{"merge": "bar"}, ...] */
static int json_filters(struct json *j, struct pv_query *q)
{
	struct json_tok t;
	int rc = json_expect(j, &t, JSON_ARRAY, "an array of filters");
	while (!rc) {
		if ((rc = json_next(j, &t)) || t.kind == JSON_END)
			break;
		if (t.kind != JSON_OBJECT)
			return json_fail_at(j, &t,
					    "expected a filter like {\"merge\": \"bar\"}, "
					    "found %s",
					    json_kind_name(t.kind));
		if ((rc = json_next(j, &t)))
			break;
		if (t.kind != JSON_KEY)
			return json_fail_at(j, &t, "expected a filter kind, found %s",
					    json_kind_name(t.kind));
		char *kind, *arg;
		enum pv_filter_kind k = PV_FILTER_INCLUDE;
		if ((rc = json_cstr(j, &t, &kind)))
			break;
		if (pv_filter_parse(kind, &k))
			rc = json_fail_at(j, &t,
					  "unknown filter '%s' (expected include, drop, merge, "
					  "collapse-recursion, collapse-module or focus-category)",
					  kind);
		pv_free(kind);
		if (rc || (rc = json_expect(j, &t, JSON_STRING, "a string")) ||
		    (rc = json_cstr(j, &t, &arg)))
			break;
		rc = json_set(j, &t, q, (enum opt)(O_FILTER + k), arg, filter_names[k]);
		pv_free(arg);
		if (!rc)
			rc = json_expect(j, &t, JSON_END, "'}' after a filter's one key");
	}
	return rc;
}

/* "range": null or [start_ms, end_ms], either end null when open. */
static int json_range(struct json *j, struct pv_query *q)
{
	struct json_tok t;
	int64_t v[2] = {INT64_MIN, INT64_MAX};
	int rc = json_next(j, &t);
	if (rc || t.kind == JSON_NULL)
		return rc;
	if (t.kind != JSON_ARRAY)
		return json_fail_at(j, &t, "expected null or [start_ms, end_ms], found %s",
				    json_kind_name(t.kind));
	for (int i = 0; i < 2; i++) {
		if ((rc = json_next(j, &t)))
			return rc;
		if (t.kind == JSON_NULL)
			continue;
		if (t.kind != JSON_NUMBER)
			return json_fail_at(j, &t,
					    "expected a time in milliseconds or null, found %s",
					    json_kind_name(t.kind));
		rc = parse_fixed(t.s, t.len, 6, true, &v[i]);
		if (rc == FX_INEXACT)
			return json_fail_at(j, &t,
					    "range takes milliseconds with at most 6 "
					    "decimals, not %.*s",
					    (int)t.len, t.s);
		if (rc)
			return json_fail_at(j, &t, "range: %.*s ms is out of range", (int)t.len,
					    t.s);
	}
	if ((rc = json_expect(j, &t, JSON_END, "']' after [start_ms, end_ms]")))
		return rc;
	if (v[0] >= v[1])
		return json_fail_at(j, &t, "range takes [start_ms, end_ms] with start < end");
	q->range_start_ns = v[0];
	q->range_end_ns = v[1];
	q->has_range = !(v[0] == INT64_MIN && v[1] == INT64_MAX);
	return 0;
}

/* "inside_markers": null or a marker search. */
static int json_inside(struct json *j, struct pv_query *q)
{
	struct json_tok t;
	char *v;
	int rc = json_next(j, &t);
	if (rc || t.kind == JSON_NULL)
		return rc;
	if (t.kind != JSON_STRING)
		return json_fail_at(j, &t, "expected null or a marker search (a string), found %s",
				    json_kind_name(t.kind));
	if ((rc = json_cstr(j, &t, &v)))
		return rc;
	rc = json_set(j, &t, q, O_INSIDE, v, "inside_markers");
	pv_free(v);
	return rc;
}

/* min_percent, depth, limit, max_rows: a number, checked like its CLI form. */
static int json_number(struct json *j, struct pv_query *q, int key)
{
	struct json_tok t;
	int64_t x;
	int rc = json_expect(j, &t, JSON_NUMBER, "a number");
	if (rc)
		return rc;
	if (key == K_MIN) {
		if (parse_fixed(t.s, t.len, 6, true, &x) || x < 0 || x > MAX_MIN_PERCENT)
			return json_fail_at(j, &t,
					    "min_percent takes a percentage from 0 to 100 "
					    "with at most 6 decimals, not %.*s",
					    (int)t.len, t.s);
		q->min_percent = (double)x / MICRO;
		return 0;
	}
	/* depth 0 and limit 0 mean "no limit" and are what the writer prints by default */
	if (parse_fixed(t.s, t.len, 0, true, &x) || x < 0 || x > UINT32_MAX)
		return json_fail_at(j, &t, "%s takes a count, not %.*s", json_keys[key], (int)t.len,
				    t.s);
	if (key == K_DEPTH)
		q->depth = (uint32_t)x;
	else if (key == K_MAX_ROWS)
		q->max_rows = (uint32_t)x;
	else
		q->limit = (uint32_t)x;
	return 0;
}

static int json_query(struct json *j, struct pv_query *q)
{
	struct json_tok t;
	uint32_t seen = 0;
	int rc = json_expect(j, &t, JSON_OBJECT, "a query object");
	while (!rc) {
		if ((rc = json_next(j, &t)) || t.kind == JSON_END)
			break;
		char *key;
		if ((rc = json_cstr(j, &t, &key)))
			break;
		int k = index_of(json_keys, NR(json_keys), key);
		if (k < 0)
			rc = json_fail_at(j, &t, "unknown key '%s'", key);
		else if (seen & 1u << k)
			rc = json_fail_at(j, &t, "duplicate key '%s'", key);
		pv_free(key);
		if (rc)
			break;
		seen |= 1u << k;
		switch (k) {
		case K_VIEW: rc = json_enum(j, q, O_VIEW, "view"); break;
		case K_BY: rc = json_enum(j, q, O_BY, "by"); break;
		case K_PERCENT: rc = json_enum(j, q, O_PERCENT, "percent"); break;
		case K_SORT: rc = json_enum(j, q, O_SORT, "sort"); break;
		case K_INLINE: rc = json_enum(j, q, O_INLINE, "inline"); break;
		case K_SELF: rc = json_enum(j, q, O_SELF, "self"); break;
		case K_CENTER: rc = json_strings(j, q, O_CENTER, "center"); break;
		case K_METRICS: rc = json_strings(j, q, O_METRIC, "metrics"); break;
		case K_THREADS: rc = json_strings(j, q, O_THREAD, "threads"); break;
		case K_DERIVE: rc = json_strings(j, q, O_DERIVE, "derive"); break;
		case K_FILTERS: rc = json_filters(j, q); break;
		case K_RANGE: rc = json_range(j, q); break;
		case K_INSIDE: rc = json_inside(j, q); break;
		default: rc = json_number(j, q, k); break;
		}
	}
	if (!rc)
		rc = json_expect(j, &t, JSON_EOF, "the end of the input");
	return rc;
}

int pv_query_from_json(struct pv_query *q, const char *s, size_t len, struct pv_error *err)
{
	struct pv_input in;
	struct json j;
	pv_query_init(q);
	int rc = input_from_memory(&in, "query", s, len, err);
	if (rc)
		return rc;
	json_init(&j, &in, err);
	rc = json_query(&j, q);
	json_release(&j);
	input_close(&in);
	if (rc)
		pv_query_release(q);
	return rc;
}
