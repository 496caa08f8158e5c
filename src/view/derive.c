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

#define DEPTH_MAX 64   /* nesting of parentheses, calls and unary signs */
#define NODES_MAX 4096 /* nodes of one formula */
#define SCALE_MAX                                                                       \
	1.7e13 /* largest |value| kept by a column: 2^44, so sums of rows stay far from \
		* INT64_MAX */

enum { N_NUM, N_REF, N_AT, N_NEG, N_ADD, N_SUB, N_MUL, N_DIV, N_POW, N_CALL };

enum fn {
	F_SUM,
	F_AVG,
	F_MIN,
	F_MAX,
	F_STDEV,
	F_PI,
	F_E,
	F_SQRT,
	F_ABS,
	F_CEIL,
	F_FLOOR,
	F_EXP,
	F_LN,
	F_LG,
	F_LOG,
	F_SIGN,
	F_ROUND,
	F_POW,
	F_MOD,
	F_FACT,
	F_COMBIN,
	F_SIN,
	F_COS,
	F_TAN,
	F_ASIN,
	F_ACOS,
	F_ATAN,
	F_SINH,
	F_COSH,
	F_TANH,
	F_ASINH,
	F_ACOSH,
	F_ATANH,
};

#define ANY 255

/* hpcviewer's functions (its expression library's defaults and its stdev); names are read
 * without regard to case, as there. rand() is left out: a view depends on its query alone. */
static const struct fdef {
	const char *name;
	uint8_t min, max; /* arguments */
} funcs[] = {
    [F_SUM] = {"sum", 1, ANY},	 [F_AVG] = {"avg", 1, ANY},	[F_MIN] = {"min", 1, ANY},
    [F_MAX] = {"max", 1, ANY},	 [F_STDEV] = {"stdev", 1, ANY}, [F_PI] = {"pi", 0, 0},
    [F_E] = {"e", 0, 0},	 [F_SQRT] = {"sqrt", 1, 1},	[F_ABS] = {"abs", 1, 1},
    [F_CEIL] = {"ceil", 1, 1},	 [F_FLOOR] = {"floor", 1, 1},	[F_EXP] = {"exp", 1, 1},
    [F_LN] = {"ln", 1, 1},	 [F_LG] = {"lg", 1, 1},		[F_LOG] = {"log", 1, 2},
    [F_SIGN] = {"sign", 1, 1},	 [F_ROUND] = {"round", 1, 1},	[F_POW] = {"pow", 2, 2},
    [F_MOD] = {"mod", 2, 2},	 [F_FACT] = {"fact", 1, 1},	[F_COMBIN] = {"combin", 2, 2},
    [F_SIN] = {"sin", 1, 1},	 [F_COS] = {"cos", 1, 1},	[F_TAN] = {"tan", 1, 1},
    [F_ASIN] = {"asin", 1, 1},	 [F_ACOS] = {"acos", 1, 1},	[F_ATAN] = {"atan", 1, 1},
    [F_SINH] = {"sinh", 1, 1},	 [F_COSH] = {"cosh", 1, 1},	[F_TANH] = {"tanh", 1, 1},
    [F_ASINH] = {"asinh", 1, 1}, [F_ACOSH] = {"acosh", 1, 1},	[F_ATANH] = {"atanh", 1, 1},
};

#define NR_FUNCS (sizeof(funcs) / sizeof(funcs[0]))

struct fnode {
	uint8_t op;
	uint8_t fn;	/* N_CALL: enum fn */
	uint16_t nargs; /* N_CALL */
	uint32_t a, b;	/* operands; N_CALL: a = the first argument's index in args */
	uint32_t ref;	/* N_REF, N_AT: index in refs */
	double num;
};

struct pv_formula {
	struct fnode *n;
	uint32_t len, cap;
	uint32_t *args;
	uint32_t nargs, acap;
	char **refs;	  /* metric names as written ("3", "cycles", "CPUTIME (sec)") */
	uint32_t *refcol; /* their 1-based columns in the text */
	uint32_t nrefs, rcap;
	uint32_t root;
};

void pv__formula_free(struct pv_formula *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nrefs; i++)
		pv_free(f->refs[i]);
	pv_free(f->refs);
	pv_free(f->refcol);
	pv_free(f->n);
	pv_free(f->args);
	pv_free(f);
}

/* ---- parser ---- */

struct parser {
	const char *s;
	size_t pos;
	struct pv_formula *f;
	int depth;
	int rc;		 /* 0, PV_EINVAL, PV_ENOMEM */
	uint32_t errcol; /* 1-based */
	char *msg;
	size_t msglen;
};

#define NO_NODE UINT32_MAX

__attribute__((format(printf, 3, 4))) static uint32_t fail(struct parser *ps, size_t at,
							   const char *fmt, ...)
{
	if (!ps->rc) {
		va_list ap;
		va_start(ap, fmt);
		ps->rc = PV_EINVAL;
		ps->errcol = (uint32_t)at + 1;
		vsnprintf(ps->msg, ps->msglen, fmt, ap);
		va_end(ap);
	}
	return NO_NODE;
}

static uint32_t oom(struct parser *ps)
{
	if (!ps->rc) {
		ps->rc = PV_ENOMEM;
		snprintf(ps->msg, ps->msglen, "out of memory");
	}
	return NO_NODE;
}

static void skip_space(struct parser *ps)
{
	while (ps->s[ps->pos] == ' ' || ps->s[ps->pos] == '\t')
		ps->pos++;
}

static uint32_t node(struct parser *ps, uint8_t op, uint32_t a, uint32_t b)
{
	struct pv_formula *f = ps->f;
	if (ps->rc)
		return NO_NODE;
	if (f->len >= NODES_MAX)
		return fail(ps, ps->pos, "%s", "the formula is too long");
	if (f->len == f->cap) {
		uint32_t cap = f->cap ? f->cap * 2 : 16;
		struct fnode *n = pv_realloc(f->n, (size_t)cap * sizeof(*n));
		if (!n)
			return oom(ps);
		f->n = n;
		f->cap = cap;
	}
	f->n[f->len] = (struct fnode){.op = op, .a = a, .b = b};
	return f->len++;
}

/* What the text holds at pos, for messages: "the end of the formula" or "'x'". */
static const char *seen(const struct parser *ps, char *buf, size_t n)
{
	unsigned char c = (unsigned char)ps->s[ps->pos];
	if (!c)
		return "the end of the formula";
	if (c < 0x20 || c >= 0x7f)
		snprintf(buf, n, "byte 0x%02x", c);
	else
		snprintf(buf, n, "'%c'", c);
	return buf;
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.';
}

/* $n, $name or ${any name}, after the sigil. */
static uint32_t reference(struct parser *ps, uint8_t op)
{
	struct pv_formula *f = ps->f;
	size_t at = ps->pos - 1, start, len;
	char buf[32];
	if (ps->s[ps->pos] == '{') {
		const char *close = strchr(ps->s + ps->pos + 1, '}');
		if (!close)
			return fail(ps, at, "%s", "a metric name in ${...} has no closing '}'");
		start = ps->pos + 1;
		len = (size_t)(close - ps->s) - start;
		if (!len)
			return fail(ps, at, "%s", "expected a metric name in ${...}");
		ps->pos = (size_t)(close - ps->s) + 1;
	} else {
		start = ps->pos;
		while (ident_char(ps->s[ps->pos]))
			ps->pos++;
		len = ps->pos - start;
		if (!len)
			return fail(ps, ps->pos,
				    "expected a metric number or name after '$' or '@', found %s",
				    seen(ps, buf, sizeof(buf)));
	}
	if (f->nrefs == f->rcap) {
		uint32_t cap = f->rcap ? f->rcap * 2 : 4;
		char **r = pv_realloc(f->refs, (size_t)cap * sizeof(*r));
		if (!r)
			return oom(ps);
		f->refs = r;
		uint32_t *c = pv_realloc(f->refcol, (size_t)cap * sizeof(*c));
		if (!c)
			return oom(ps);
		f->refcol = c;
		f->rcap = cap;
	}
	char *name = pv_malloc(len + 1);
	if (!name)
		return oom(ps);
	memcpy(name, ps->s + start, len);
	name[len] = 0;
	f->refs[f->nrefs] = name;
	f->refcol[f->nrefs] = (uint32_t)at + 1;
	uint32_t x = node(ps, op, 0, 0);
	if (x != NO_NODE)
		f->n[x].ref = f->nrefs;
	f->nrefs++;
	return x;
}

static uint32_t expr(struct parser *ps);

static uint32_t call(struct parser *ps, size_t at, size_t len)
{
	struct pv_formula *f = ps->f;
	char name[16], buf[32];
	unsigned fn = NR_FUNCS;
	if (len < sizeof(name)) {
		memcpy(name, ps->s + at, len);
		name[len] = 0;
		for (unsigned i = 0; i < NR_FUNCS; i++)
			if (strcasecmp(name, funcs[i].name) == 0)
				fn = i;
	}
	if (fn == NR_FUNCS) {
		char what[80];
		snprintf(what, sizeof(what), "%.*s", (int)(len < 40 ? len : 40), ps->s + at);
		return fail(ps, at, "unknown function '%s'", what);
	}
	ps->pos++; /* '(' */
	uint32_t list[256], n = 0;
	skip_space(ps);
	if (ps->s[ps->pos] != ')') {
		for (;;) {
			uint32_t x = expr(ps);
			if (x == NO_NODE)
				return NO_NODE;
			if (n == 255)
				return fail(ps, ps->pos, "%s",
					    "a call takes at most 255 arguments");
			list[n++] = x;
			skip_space(ps);
			if (ps->s[ps->pos] == ',') {
				ps->pos++;
				continue;
			}
			if (ps->s[ps->pos] != ')')
				return fail(ps, ps->pos, "expected ',' or ')' in a call, found %s",
					    seen(ps, buf, sizeof(buf)));
			break;
		}
	}
	ps->pos++; /* ')' */
	const struct fdef *d = &funcs[fn];
	if (n < d->min || (d->max != ANY && n > d->max)) {
		char what[80];
		if (d->min == d->max)
			snprintf(what, sizeof(what), "%s() takes %u argument%s", d->name, d->min,
				 d->min == 1 ? "" : "s");
		else if (d->max == ANY)
			snprintf(what, sizeof(what), "%s() takes at least %u argument%s", d->name,
				 d->min, d->min == 1 ? "" : "s");
		else
			snprintf(what, sizeof(what), "%s() takes %u to %u arguments", d->name,
				 d->min, d->max);
		return fail(ps, at, "%s", what);
	}
	if (f->nargs + n > f->acap) {
		uint32_t cap = f->acap ? f->acap : 8;
		while (cap < f->nargs + n)
			cap *= 2;
		uint32_t *a = pv_realloc(f->args, (size_t)cap * sizeof(*a));
		if (!a)
			return oom(ps);
		f->args = a;
		f->acap = cap;
	}
	uint32_t x = node(ps, N_CALL, f->nargs, 0);
	if (x == NO_NODE)
		return NO_NODE;
	memcpy(f->args + f->nargs, list, (size_t)n * sizeof(uint32_t));
	f->n[x].fn = (uint8_t)fn;
	f->n[x].nargs = (uint16_t)n;
	f->nargs += n;
	return x;
}

static uint32_t number(struct parser *ps)
{
	const char *p = ps->s + ps->pos;
	size_t i = 0;
	while (p[i] >= '0' && p[i] <= '9')
		i++;
	if (p[i] == '.') {
		i++;
		while (p[i] >= '0' && p[i] <= '9')
			i++;
	}
	if (i == 1 && p[0] == '.')
		return fail(ps, ps->pos, "%s", "expected digits around '.'");
	if (p[i] == 'e' || p[i] == 'E') {
		size_t k = i + 1;
		if (p[k] == '+' || p[k] == '-')
			k++;
		if (p[k] >= '0' && p[k] <= '9') {
			while (p[k] >= '0' && p[k] <= '9')
				k++;
			i = k;
		}
	}
	char buf[64];
	if (i >= sizeof(buf))
		return fail(ps, ps->pos, "%s", "a number with more than 63 characters");
	memcpy(buf, p, i);
	buf[i] = 0;
	uint32_t x = node(ps, N_NUM, 0, 0);
	if (x != NO_NODE)
		ps->f->n[x].num = strtod(buf, NULL);
	ps->pos += i;
	return x;
}

static uint32_t primary(struct parser *ps)
{
	char buf[32];
	skip_space(ps);
	char c = ps->s[ps->pos];
	if (c == '$' || c == '@') {
		ps->pos++;
		return reference(ps, c == '$' ? N_REF : N_AT);
	}
	if ((c >= '0' && c <= '9') || c == '.')
		return number(ps);
	if (c == '(') {
		ps->pos++;
		uint32_t x = expr(ps);
		if (x == NO_NODE)
			return NO_NODE;
		skip_space(ps);
		if (ps->s[ps->pos] != ')')
			return fail(ps, ps->pos, "expected ')' to close a '(', found %s",
				    seen(ps, buf, sizeof(buf)));
		ps->pos++;
		return x;
	}
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
		size_t at = ps->pos;
		while (ident_char(ps->s[ps->pos]))
			ps->pos++;
		size_t len = ps->pos - at;
		skip_space(ps);
		if (ps->s[ps->pos] == '(')
			return call(ps, at, len);
		char what[80];
		snprintf(what, sizeof(what), "%.*s", (int)(len < 40 ? len : 40), ps->s + at);
		return fail(ps, at, "'%s' is not a function call: a metric is $NAME, $N or ${NAME}",
			    what);
	}
	return fail(ps, ps->pos, "expected a number, $metric, @metric, a function or '(', found %s",
		    seen(ps, buf, sizeof(buf)));
}

static uint32_t unary(struct parser *ps);

/* power := primary ['^' unary]: right-associative, and above unary minus (-2^2 = -4) */
static uint32_t power(struct parser *ps)
{
	uint32_t x = primary(ps);
	if (x == NO_NODE)
		return x;
	skip_space(ps);
	if (ps->s[ps->pos] != '^')
		return x;
	ps->pos++;
	if (++ps->depth > DEPTH_MAX)
		return fail(ps, ps->pos, "%s", "the formula nests too deep");
	uint32_t y = unary(ps);
	ps->depth--;
	return y == NO_NODE ? y : node(ps, N_POW, x, y);
}

static uint32_t unary(struct parser *ps)
{
	skip_space(ps);
	char c = ps->s[ps->pos];
	if (c != '-' && c != '+')
		return power(ps);
	if (++ps->depth > DEPTH_MAX)
		return fail(ps, ps->pos, "%s", "the formula nests too deep");
	ps->pos++;
	uint32_t x = unary(ps);
	ps->depth--;
	if (x == NO_NODE || c == '+')
		return x;
	return node(ps, N_NEG, x, 0);
}

static uint32_t term(struct parser *ps)
{
	uint32_t x = unary(ps);
	for (;;) {
		if (x == NO_NODE)
			return x;
		skip_space(ps);
		char c = ps->s[ps->pos];
		if (c != '*' && c != '/')
			return x;
		ps->pos++;
		uint32_t y = unary(ps);
		if (y == NO_NODE)
			return y;
		x = node(ps, c == '*' ? N_MUL : N_DIV, x, y);
	}
}

static uint32_t expr(struct parser *ps)
{
	if (++ps->depth > DEPTH_MAX)
		return fail(ps, ps->pos, "%s", "the formula nests too deep");
	uint32_t x = term(ps);
	for (;;) {
		if (x == NO_NODE)
			break;
		skip_space(ps);
		char c = ps->s[ps->pos];
		if (c != '+' && c != '-')
			break;
		ps->pos++;
		uint32_t y = term(ps);
		if (y == NO_NODE) {
			x = y;
			break;
		}
		x = node(ps, c == '+' ? N_ADD : N_SUB, x, y);
	}
	ps->depth--;
	return x;
}

int pv__formula_parse(const char *text, struct pv_formula **out, uint32_t *col, char *msg,
		      size_t msglen)
{
	*out = NULL;
	*col = 0;
	struct parser ps = {.s = text, .msg = msg, .msglen = msglen};
	ps.f = pv_calloc(1, sizeof(*ps.f));
	if (!ps.f) {
		snprintf(msg, msglen, "out of memory");
		return PV_ENOMEM;
	}
	uint32_t root = expr(&ps);
	if (root != NO_NODE) {
		char buf[32];
		skip_space(&ps);
		if (ps.s[ps.pos])
			fail(&ps, ps.pos, "expected an operator (+ - * / ^) or the end, found %s",
			     seen(&ps, buf, sizeof(buf)));
	}
	if (ps.rc) {
		*col = ps.errcol;
		pv__formula_free(ps.f);
		return ps.rc;
	}
	ps.f->root = root;
	*out = ps.f;
	return 0;
}

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
	const struct pv_derived *dv = v->derived;
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
	const struct pv_derived *dv = v->derived;
	if (!dv || col >= PV_QUERY_MAX || dv->def_of[col] == PV_NONE)
		return (double)x;
	if (x == PV_VALUE_NONE)
		return NAN;
	int e = dv->exp10[col];
	return e >= 0 ? (double)x / pow10_of(e) : (double)x * pow10_of(-e);
}

bool pv_view_metric_derived(const struct pv_view *v, uint32_t col)
{
	return v->derived && col < PV_QUERY_MAX && v->derived->def_of[col] != PV_NONE;
}

const char *pv__view_derived_name(const struct pv_view *v, uint32_t col)
{
	if (!pv_view_metric_derived(v, col))
		return NULL;
	return v->derived->defs[v->derived->def_of[col]].name;
}

const char *pv_view_metric_formula(const struct pv_view *v, uint32_t col)
{
	if (!pv_view_metric_derived(v, col))
		return NULL;
	return v->derived->defs[v->derived->def_of[col]].text;
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
	v->derived = dv;
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
	struct pv_derived *dv = v->derived;
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
	const struct pv_derived *dv = v->derived;
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
	struct pv_derived *dv = v->derived;
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
	struct pv_derived *dv = v->derived;
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
	struct pv_derived *dv = v->derived;
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
	struct pv_derived *dv = v->derived;
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
