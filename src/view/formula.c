/*
 * formula.c - parsing a derived metric's formula (view/formula.h): a recursive descent over
 * hpcviewer's syntax (numbers, metric references $N, @N and names, + - * / ^, calls), one line
 * naming the column and what was expected on a mistake.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "pv/error.h"
#include "view/formula.h"

#define DEPTH_MAX 64   /* nesting of parentheses, calls and unary signs */
#define NODES_MAX 4096 /* nodes of one formula */

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
