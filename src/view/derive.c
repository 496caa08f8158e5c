/*
 * derive.c - derived metrics: hpcviewer's formulas over the metrics of any profile, computed
 * row by row from a view's columns (doc/hpctoolkit.md).
 *
 * A formula is parsed once into a small tree of nodes (numbers, metric references, operators,
 * calls). A view resolves each reference to a column of sums of a metric (adding a hidden
 * column when the query does not show that metric) or to an earlier derived metric, then
 * evaluates the formula for every cell: a row's total from the inputs' totals, its self from
 * their selves, the view's whole, center and base from theirs. A database's metric may give its
 * selves a formula of their own (HPCToolkit's exclusive formula), or have only that one: its
 * totals are then empty. The results are doubles; a column keeps them as integers scaled by a
 * power of ten chosen from its largest value, so sorting, hot paths and percent cuts treat a
 * derived column like any other. A result that is not a finite number (a division by zero,
 * sqrt(-1)) is PV_VALUE_NONE.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "pv/view.h"
#include "view/internal.h"

#define SCALE_MAX                                                                       \
	1.7e13 /* largest |value| kept by a column: 2^44, so sums of rows stay far from \
		* INT64_MAX */

/* ---- evaluation ---- */

static double fact(double n)
{
	if (n < 0 || n != floor(n))
		return NAN;
	double r = 1;
	for (double k = 2; k <= n && isfinite(r); k++)
		r *= k;
	return r;
}

static double call_value(enum fn fn, const double *x, uint32_t n)
{
	double r = 0;
	switch (fn) {
	case F_SUM:
	case F_AVG:
		for (uint32_t i = 0; i < n; i++)
			r += x[i];
		return fn == F_AVG ? r / n : r;
	case F_MIN:
	case F_MAX:
		r = x[0];
		for (uint32_t i = 1; i < n; i++)
			r = fn == F_MIN ? fmin(r, x[i]) : fmax(r, x[i]);
		return r;
	case F_STDEV: { /* of the arguments, population (hpcviewer's) */
		double s = 0, sq = 0;
		for (uint32_t i = 0; i < n; i++) {
			s += x[i];
			sq += x[i] * x[i];
		}
		double mean = s / n, var = sq / n - mean * mean;
		return var > 0 ? sqrt(var) : 0;
	}
	case F_PI: return M_PI;
	case F_E: return M_E;
	case F_SQRT: return sqrt(x[0]);
	case F_ABS: return fabs(x[0]);
	case F_CEIL: return ceil(x[0]);
	case F_FLOOR: return floor(x[0]);
	case F_EXP: return exp(x[0]);
	case F_LN: return log(x[0]);
	case F_LG: return log2(x[0]);
	case F_LOG: return n == 2 ? log(x[0]) / log(x[1]) : log10(x[0]);
	case F_SIGN: return x[0] > 0 ? 1 : x[0] < 0 ? -1 : x[0];
	case F_ROUND: return floor(x[0] + 0.5);
	case F_POW: return pow(x[0], x[1]);
	case F_MOD: return fmod(x[0], x[1]);
	case F_FACT: return fact(x[0]);
	case F_COMBIN:
		if (x[1] < 0 || x[1] > x[0])
			return NAN;
		return round(fact(x[0]) / (fact(x[1]) * fact(x[0] - x[1])));
	case F_SIN: return sin(x[0]);
	case F_COS: return cos(x[0]);
	case F_TAN: return tan(x[0]);
	case F_ASIN: return asin(x[0]);
	case F_ACOS: return acos(x[0]);
	case F_ATAN: return atan(x[0]);
	case F_SINH: return sinh(x[0]);
	case F_COSH: return cosh(x[0]);
	case F_TANH: return tanh(x[0]);
	case F_ASINH: return asinh(x[0]);
	case F_ACOSH: return acosh(x[0]);
	case F_ATANH: return atanh(x[0]);
	}
	return NAN;
}

/*
 * Where a reference reads: a column of the view (its cell scaled to the formula's unit: a time
 * in seconds, as HPCToolkit stores it and hpcviewer computes) or another derived metric.
 */
struct dref {
	uint32_t col; /* PV_NONE: def */
	uint32_t def;
	double factor;
};

/* A parsed formula and what its references read in a view. */
struct dform {
	struct pv_formula *f; /* NULL: none (no total, or the selves' is the total's) */
	struct dref *refs;
};

struct ddef {
	char *name;
	const char *text;  /* as written (the database's: "F", "F; self: S", "self: S") */
	const char *whole; /* NAME=FORMULA as the query has it; NULL for the database's */
	struct dform tot;  /* a row's total, the whole's; f NULL: none, those cells are empty */
	struct dform slf;  /* a row's self; f NULL: tot's over the selves */
	const char *tot_text, *slf_text; /* their texts, as written */
	uint32_t col;			 /* the view's column, PV_NONE when only referenced */
	uint8_t state;			 /* 0 unresolved, 1 resolving, 2 resolved */
	bool from_profile;
	char *own_text; /* text, when made here (freed with the definition) */
};

struct pv_derived {
	struct ddef *defs;
	uint32_t ndefs;
	uint32_t nr_shown;	       /* columns shown; those past it are hidden inputs */
	int16_t exp10[PV_QUERY_MAX];   /* a derived column's values are value * 10^exp10 */
	uint32_t def_of[PV_QUERY_MAX]; /* column -> def, PV_NONE for a metric's column */
};

/* One cell of every column: arr[col][r] of a tree or the flat rows, or vec[col] of the view
 * (a total); self: a row's self. */
struct cell {
	int64_t *const *arr;
	uint32_t r;
	const int64_t *vec;
	bool self;
};

static double eval(const struct pv_view *v, const struct dform *d, uint32_t x,
		   const struct cell *c);

/* The formula of a definition for a cell: its self's or its total's; NULL when it has none. */
static const struct dform *form_of(const struct ddef *d, const struct cell *c)
{
	if (c->self && d->slf.f)
		return &d->slf;
	return d->tot.f ? &d->tot : NULL;
}

/* Definition d's value at a cell (NaN when it has no formula for it). */
static double def_value(const struct pv_view *v, const struct ddef *d, const struct cell *c)
{
	const struct dform *fm = form_of(d, c);
	return fm ? eval(v, fm, fm->f->root, c) : NAN;
}

static double ref_value(const struct pv_view *v, const struct dref *rf, const struct cell *c)
{
	const struct pv_derived *dv = v->priv->derived;
	if (rf->col == PV_NONE)
		return def_value(v, &dv->defs[rf->def], c);
	int64_t x = c->vec ? c->vec[rf->col] : c->arr[rf->col][c->r];
	return (double)x * rf->factor;
}

static double eval(const struct pv_view *v, const struct dform *d, uint32_t x, const struct cell *c)
{
	const struct fnode *n = &d->f->n[x];
	switch (n->op) {
	case N_NUM: return n->num;
	case N_REF: return ref_value(v, &d->refs[n->ref], c);
	case N_AT: {
		struct cell whole = {.vec = v->whole};
		return ref_value(v, &d->refs[n->ref], &whole);
	}
	case N_NEG: return -eval(v, d, n->a, c);
	case N_ADD: return eval(v, d, n->a, c) + eval(v, d, n->b, c);
	case N_SUB: return eval(v, d, n->a, c) - eval(v, d, n->b, c);
	case N_MUL: return eval(v, d, n->a, c) * eval(v, d, n->b, c);
	case N_DIV: return eval(v, d, n->a, c) / eval(v, d, n->b, c);
	case N_POW: return pow(eval(v, d, n->a, c), eval(v, d, n->b, c));
	case N_CALL: {
		double a[255] = {0};
		for (uint32_t i = 0; i < n->nargs; i++)
			a[i] = eval(v, d, d->f->args[n->a + i], c);
		return call_value((enum fn)n->fn, a, n->nargs);
	}
	}
	return NAN;
}

/* ---- a view's derived columns ---- */

static double pow10_of(int e)
{
	return pow(10.0, e);
}

double pv_view_value(const struct pv_view *v, uint32_t col, int64_t x)
{
	const struct pv_derived *dv = v->priv->derived;
	if (!dv || col >= PV_QUERY_MAX || dv->def_of[col] == PV_NONE)
		return (double)x;
	if (x == PV_VALUE_NONE)
		return NAN;
	int e = dv->exp10[col];
	return e >= 0 ? (double)x / pow10_of(e) : (double)x * pow10_of(-e);
}

bool pv_view_metric_derived(const struct pv_view *v, uint32_t col)
{
	return v->priv->derived && col < PV_QUERY_MAX && v->priv->derived->def_of[col] != PV_NONE;
}

static const char *derived_name(const struct pv_view *v, uint32_t col)
{
	if (!pv_view_metric_derived(v, col))
		return NULL;
	return v->priv->derived->defs[v->priv->derived->def_of[col]].name;
}

const char *pv_view_metric_formula(const struct pv_view *v, uint32_t col)
{
	if (!pv_view_metric_derived(v, col))
		return NULL;
	return v->priv->derived->defs[v->priv->derived->def_of[col]].text;
}

const char *pv_view_metric_name(const struct pv_view *v, uint32_t col, char *buf, size_t len)
{
	const char *dn = derived_name(v, col);
	if (dn)
		return dn;
	const char *name = pv_str(v->p, v->p->metrics.name[v->metrics[col]]);
	if (v->stat[col] == PV_STAT_SUM)
		return name;
	snprintf(buf, len, "%s:%s", name, pv_stat_name((enum pv_stat)v->stat[col]));
	return buf;
}

enum pv_unit pv_view_metric_unit(const struct pv_view *v, uint32_t col)
{
	/* a ratio (cfvar, a derived metric's value) counts nothing in particular */
	return v->stat[col] == PV_STAT_CFVAR || pv_view_metric_derived(v, col)
		   ? PV_UNIT_COUNT
		   : (enum pv_unit)v->p->metrics.unit[v->metrics[col]];
}

size_t pv_view_value_text(const struct pv_view *v, uint32_t col, int64_t x, bool json, char *buf,
			  size_t n)
{
	int len;
	if (!pv_view_metric_derived(v, col))
		len = snprintf(buf, n, "%lld", (long long)x);
	else if (x == PV_VALUE_NONE)
		len = snprintf(buf, n, "%s", json ? "null" : "");
	else
		len = snprintf(buf, n, json ? "%.14g" : "%.6g", pv_view_value(v, col, x));
	return len < 0 ? 0 : (size_t)len;
}

void pv__derived_free(struct pv_derived *dv)
{
	if (!dv)
		return;
	for (uint32_t i = 0; i < dv->ndefs; i++) {
		if (!dv->defs[i].from_profile)
			pv_free(dv->defs[i].name);
		pv__formula_free(dv->defs[i].tot.f);
		pv_free(dv->defs[i].tot.refs);
		pv__formula_free(dv->defs[i].slf.f);
		pv_free(dv->defs[i].slf.refs);
		pv_free(dv->defs[i].own_text);
	}
	pv_free(dv->defs);
	pv_free(dv);
}

/* The definition named name (exact, then without regard to case), PV_NONE when none is. */
static uint32_t def_named(const struct pv_derived *dv, const char *name, uint32_t below)
{
	for (uint32_t i = 0; i < below; i++)
		if (strcmp(dv->defs[i].name, name) == 0)
			return i;
	for (uint32_t i = 0; i < below; i++)
		if (strcasecmp(dv->defs[i].name, name) == 0)
			return i;
	return PV_NONE;
}

/* One formula of the database's metric name, parsed into fm. */
static int profile_form(const char *name, const char *text, struct dform *fm, struct pv_error *err)
{
	char msg[200];
	uint32_t col;
	int rc = pv__formula_parse(text, &fm->f, &col, msg, sizeof(msg));
	if (rc)
		return pv_error_set(err, rc, "the database's metric '%s' = '%s': column %u: %s",
				    name, text, (unsigned)col, msg);
	return 0;
}

int pv__derive_begin(struct pv_view *v, struct pv_error *err)
{
	const struct pv_query *q = &v->q;
	const struct pv_profile *p = v->p;
	struct pv_derived *dv = pv_calloc(1, sizeof(*dv));
	if (!dv)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	v->priv->derived = dv;
	for (uint32_t c = 0; c < PV_QUERY_MAX; c++)
		dv->def_of[c] = PV_NONE;
	uint32_t n = q->nr_derive + p->formulas.len;
	dv->defs = pv_calloc(n ? n : 1, sizeof(*dv->defs));
	if (!dv->defs)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	/* the query's first, so a query's metric may replace one of the database's by name */
	for (uint32_t i = 0; i < q->nr_derive; i++) {
		struct ddef *d = &dv->defs[dv->ndefs];
		const char *eq = strchr(q->derive[i], '=');
		size_t nl = eq ? (size_t)(eq - q->derive[i]) : 0;
		char msg[200];
		uint32_t col;
		d->col = PV_NONE;
		if (!eq || !(d->name = pv_malloc(nl + 1)))
			return pv_error_set(err, eq ? PV_ENOMEM : PV_EINVAL,
					    eq ? "out of memory" : "--derive takes NAME=FORMULA");
		memcpy(d->name, q->derive[i], nl);
		d->name[nl] = 0;
		d->text = d->tot_text = eq + 1;
		d->whole = q->derive[i];
		dv->ndefs++;
		int rc = pv__formula_parse(d->text, &d->tot.f, &col, msg, sizeof(msg));
		if (rc)
			return pv_error_set(err, rc, "--derive '%s': column %u: %s", q->derive[i],
					    (unsigned)(col + nl + 1), msg);
		if (pv_metric_find(p, d->name) != PV_NONE)
			return pv_error_set(err, PV_EINVAL,
					    "--derive '%s': the profile has a metric named '%s'",
					    q->derive[i], d->name);
		if (def_named(dv, d->name, dv->ndefs - 1) != PV_NONE)
			return pv_error_set(err, PV_EINVAL, "--derive: two metrics named '%s'",
					    d->name);
	}
	for (uint32_t i = 0; i < p->formulas.len; i++) {
		const char *name = pv_str(p, p->formulas.name[i]);
		if (def_named(dv, name, q->nr_derive) != PV_NONE)
			continue; /* the query's metric of that name */
		struct ddef *d = &dv->defs[dv->ndefs];
		d->col = PV_NONE;
		d->name = (char *)name;
		d->from_profile = true;
		dv->ndefs++;
		const char *tot = pv_str(p, p->formulas.formula[i]);
		const char *slf = p->formulas.self[i] ? pv_str(p, p->formulas.self[i]) : "";
		int rc = *tot ? profile_form(name, tot, &d->tot, err) : 0;
		if (!rc && *slf)
			rc = profile_form(name, slf, &d->slf, err);
		if (rc)
			return rc;
		d->text = d->tot_text = tot;
		d->slf_text = slf;
		if (*slf) {
			size_t tl = pv_formula_text(p, i, NULL, 0) + 1;
			if (!(d->own_text = pv_malloc(tl)))
				return pv_error_set(err, PV_ENOMEM, "out of memory");
			pv_formula_text(p, i, d->own_text, tl);
			d->text = d->own_text;
		}
	}
	return 0;
}

/* Makes the derived metric `name` column v->nr_metrics; 1 when name is no derived metric. */
int pv__derive_column(struct pv_view *v, const char *name, struct pv_error *err)
{
	struct pv_derived *dv = v->priv->derived;
	uint32_t d = dv ? def_named(dv, name, dv->ndefs) : PV_NONE;
	if (d == PV_NONE) {
		/* NAME:STAT of a derived metric */
		const char *colon = strrchr(name, ':');
		if (dv && colon) {
			char base[256];
			snprintf(base, sizeof(base), "%.*s", (int)(colon - name), name);
			if (def_named(dv, base, dv->ndefs) != PV_NONE)
				return pv_error_set(err, PV_EINVAL,
						    "'%s': a derived metric has no statistics "
						    "across threads",
						    name);
		}
		return 1;
	}
	if (dv->defs[d].col != PV_NONE)
		return 0; /* listed twice: one column */
	if (v->nr_metrics >= PV_QUERY_MAX)
		return pv_error_set(err, PV_ELIMIT, "too many metric columns (at most %d)",
				    PV_QUERY_MAX);
	uint32_t c = v->nr_metrics++;
	dv->defs[d].col = c;
	dv->def_of[c] = d;
	/* the engine fills the column with some metric's sums; the formula's values replace them */
	v->metrics[c] = v->p->meta.default_metric;
	v->stat[c] = PV_STAT_SUM;
	return 0;
}

/* A column of sums of metric m: one the view has, or a new hidden one. */
static int sum_column(struct pv_view *v, pv_metric_ix m, uint32_t *out, struct pv_error *err)
{
	const struct pv_derived *dv = v->priv->derived;
	for (uint32_t c = 0; c < v->nr_metrics; c++) {
		if (dv->def_of[c] == PV_NONE && v->metrics[c] == m && v->stat[c] == PV_STAT_SUM) {
			*out = c;
			return 0;
		}
	}
	if (v->nr_metrics >= PV_QUERY_MAX)
		return pv_error_set(err, PV_ELIMIT,
				    "too many metric columns with a formula's inputs (at most %d)",
				    PV_QUERY_MAX);
	*out = v->nr_metrics++;
	v->metrics[*out] = m;
	v->stat[*out] = PV_STAT_SUM;
	return 0;
}

static int resolve_def(struct pv_view *v, uint32_t di, struct pv_error *err);

/* The references of one formula of definition di (its total's or its self's, written text). */
static int resolve_form(struct pv_view *v, uint32_t di, struct dform *fm, const char *text,
			struct pv_error *err)
{
	struct pv_derived *dv = v->priv->derived;
	const struct ddef *d = &dv->defs[di];
	if (!fm->f)
		return 0;
	fm->refs = pv_calloc(fm->f->nrefs ? fm->f->nrefs : 1, sizeof(*fm->refs));
	if (!fm->refs)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < fm->f->nrefs; i++) {
		const char *name = fm->f->refs[i];
		struct dref *rf = &fm->refs[i];
		pv_metric_ix m = pv_metric_find(v->p, name);
		int rc;
		rf->col = PV_NONE;
		if (m != PV_NONE) {
			if ((rc = sum_column(v, m, &rf->col, err)))
				return rc;
			rf->factor = v->p->metrics.unit[m] == PV_UNIT_NS ? 1e-9 : 1;
			continue;
		}
		/* a derived metric: the query's defined before this one, or the database's */
		uint32_t o = def_named(dv, name, dv->ndefs);
		if (o != PV_NONE && !d->from_profile && !dv->defs[o].from_profile && o > di)
			o = PV_NONE;
		if (o == PV_NONE && d->whole)
			return pv_error_set(
			    err, PV_EINVAL,
			    "--derive '%s': column %u: no metric named '%s' (see "
			    "'profview info')",
			    d->whole, (unsigned)(fm->f->refcol[i] + (d->text - d->whole)), name);
		if (o == PV_NONE)
			return pv_error_set(
			    err, PV_EINVAL,
			    "the database's metric '%s' = '%s': column %u: no metric "
			    "named '%s'",
			    d->name, text, fm->f->refcol[i], name);
		if ((rc = resolve_def(v, o, err)))
			return rc;
		rf->def = o;
	}
	return 0;
}

static int resolve_def(struct pv_view *v, uint32_t di, struct pv_error *err)
{
	struct pv_derived *dv = v->priv->derived;
	struct ddef *d = &dv->defs[di];
	if (d->state == 2)
		return 0;
	if (d->state == 1)
		return pv_error_set(err, PV_EINVAL, "the derived metric '%s' refers to itself",
				    d->name);
	d->state = 1;
	int rc = resolve_form(v, di, &d->tot, d->tot_text, err);
	if (!rc)
		rc = resolve_form(v, di, &d->slf, d->slf_text, err);
	if (rc)
		return rc;
	d->state = 2;
	return 0;
}

int pv__derive_setup(struct pv_view *v, struct pv_error *err)
{
	struct pv_derived *dv = v->priv->derived;
	/* every metric the query defines is shown, after the ones --metric lists */
	for (uint32_t i = 0; i < v->q.nr_derive; i++) {
		int rc =
		    dv->defs[i].col == PV_NONE ? pv__derive_column(v, dv->defs[i].name, err) : 0;
		if (rc)
			return rc;
	}
	dv->nr_shown = v->nr_metrics;
	for (uint32_t c = 0; c < dv->nr_shown; c++) {
		int rc = dv->def_of[c] != PV_NONE ? resolve_def(v, dv->def_of[c], err) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- the values ---- */

/* The cells of one part of a view: a tree's or the flat rows' columns, or the view's totals. */
struct part {
	int64_t **tot, **slf;
	uint32_t len;
};

static int64_t scaled(double x, int e)
{
	if (!isfinite(x))
		return PV_VALUE_NONE;
	double s = e >= 0 ? x * pow10_of(e) : x / pow10_of(-e);
	return llround(s);
}

static void fill(struct pv_view *v, uint32_t c, const struct ddef *d, struct part *parts,
		 uint32_t nparts, int64_t *const *vecs, uint32_t nvecs, double *maxabs, int e,
		 bool store)
{
	for (uint32_t k = 0; k < nparts; k++) {
		for (int side = 0; side < 2; side++) {
			int64_t **arr = side ? parts[k].slf : parts[k].tot;
			for (uint32_t r = 0; r < parts[k].len; r++) {
				struct cell cl = {.arr = arr, .r = r, .self = side};
				double x = def_value(v, d, &cl);
				if (store)
					arr[c][r] = scaled(x, e);
				else if (isfinite(x) && fabs(x) > *maxabs)
					*maxabs = fabs(x);
			}
		}
	}
	for (uint32_t k = 0; k < nvecs; k++) {
		struct cell cl = {.vec = vecs[k]};
		double x = def_value(v, d, &cl);
		if (!store && isfinite(x) && fabs(x) > *maxabs)
			*maxabs = fabs(x);
		/* stored after every cell is read: a later cell of this vector reads no column c */
		if (store)
			vecs[k][c] = scaled(x, e);
	}
}

static void drop_columns(int64_t **tot, int64_t **slf, uint32_t from, uint32_t to)
{
	for (uint32_t c = from; c < to; c++) {
		pv_free(tot[c]);
		pv_free(slf[c]);
		tot[c] = slf[c] = NULL;
	}
}

int pv__view_derive(struct pv_view *v, struct pv_error *err)
{
	struct pv_derived *dv = v->priv->derived;
	if (!dv)
		return 0;
	struct part parts[3];
	uint32_t np = 0;
	struct pv_tree *trees[2] = {v->tree, v->callers};
	for (int k = 0; k < 2; k++)
		if (trees[k])
			parts[np++] = (struct part){trees[k]->total, trees[k]->self, trees[k]->len};
	if (v->flat)
		parts[np++] = (struct part){v->flat->total, v->flat->self, v->flat->len};
	int64_t *vecs[4] = {v->whole, v->center, v->base, v->nostack};
	/* in column order: a derived metric that reads another reads its finished column */
	for (uint32_t c = 0; c < dv->nr_shown; c++) {
		if (dv->def_of[c] == PV_NONE)
			continue;
		const struct ddef *d = &dv->defs[dv->def_of[c]];
		double maxabs = 0;
		fill(v, c, d, parts, np, vecs, 4, &maxabs, 0, false);
		int e = 0;
		if (maxabs > 0) {
			e = (int)floor(log10(SCALE_MAX / maxabs));
			e = e > 300 ? 300 : e < -300 ? -300 : e;
		}
		dv->exp10[c] = (int16_t)e;
		fill(v, c, d, parts, np, vecs, 4, &maxabs, e, true);
		v->lost[c] = 0;
	}
	(void)err;
	/* the hidden inputs go */
	if (v->nr_metrics > dv->nr_shown) {
		for (uint32_t k = 0; k < np; k++)
			drop_columns(parts[k].tot, parts[k].slf, dv->nr_shown, v->nr_metrics);
		v->nr_metrics = dv->nr_shown;
	}
	if (dv->def_of[0] != PV_NONE)
		return pv__view_resort(v);
	return 0;
}
