/*
 * v8raw.c - V8's raw `--prof` logs (`node --prof script.js` writes isolate-0x...-v8.log), read as
 * Node's tick processor reads them (`node --prof-process`), into the tables of the preprocessed
 * JSON (v8_tables.h), which v8_build turns into the profile the same way for both.
 *
 * Lines (comma-separated, names quoted with backslash escapes): `shared-library,"PATH",START,END`
 * (a library's address range: a code entry of type SHARED_LIB), `code-creation,TYPE,KIND,TIME,
 * START,SIZE,"NAME"[,FUNC,STATE]` (a code entry at [START, START + SIZE): with a function address
 * a JavaScript function, type JS, else code of kind TYPE), `code-move,FROM,TO`, `code-delete,
 * START`, and `tick,PC,TIME(us),EXTERNAL,TOS,VMSTATE,FRAME...`. A tick's stack is its pc (the
 * top of stack instead when it is in an external callback), the top of stack when it is in a
 * JavaScript function, then its frames (`+OFF`/`-OFF` relative to the one before); each address
 * is the code entry that holds it when the tick is taken: inside a library's range, the library
 * (C++ code by the library that holds it: no symbol table is read), else the latest code created
 * over it, else none (-1, skipped).
 *
 * Not kept (lossy lines): other line kinds (counted), the ticks' VM states, the code offsets.
 * Errors, at line and column: a known line with too few fields, a number or address that does
 * not parse, a name without its closing quote.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/text.h"
#include "import/importer.h"
#include "import/v8/v8_tables.h"

#define MAX_FIELDS 8

struct range {
	uint64_t start, end;
	uint32_t code;
};

struct raw {
	struct v8 *s;
	const char *p, *e, *line;
	uint64_t lineno;
	struct vec libs;  /* struct range, in file order */
	struct vec dyn;	  /* struct range, by start, not overlapping */
	struct vec stack; /* uint64_t addresses of one tick */
	uint64_t other, moves;
};

static int fail(struct raw *r, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct raw *r, const char *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = input_vfail_at(r->s->in, r->s->err, PV_EPARSE, r->lineno,
				(uint64_t)(at - r->line) + 1, fmt, ap);
	va_end(ap);
	return rc;
}

static int oom(struct raw *r)
{
	return pv_error_set(r->s->err, PV_ENOMEM, "%s: out of memory", r->s->in->name);
}

/* The next field of the line at *p (quoted or not): [*f, *fe), *p past its comma. */
static int field(struct raw *r, const char **p, const char *le, const char **f, const char **fe)
{
	const char *q = *p;
	if (q < le && *q == '"') {
		const char *c = q + 1;
		while (c < le && *c != '"')
			c += *c == '\\' && c + 1 < le ? 2 : 1;
		if (c >= le)
			return fail(r, q, "expected the closing '\"' of a name");
		*f = q;
		*fe = c + 1;
		q = c + 1;
	} else {
		*f = q;
		while (q < le && *q != ',')
			q++;
		*fe = q;
	}
	*p = q < le && *q == ',' ? q + 1 : le;
	return 0;
}

static int number(struct raw *r, const char *f, const char *fe, uint64_t *v, const char *what)
{
	uint64_t x = 0;
	const char *q = f;
	bool hex = fe - f > 2 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X');
	unsigned base = hex ? 16 : 10;
	if (hex)
		q += 2;
	for (; q < fe; q++) {
		int d = text_hex_digit(*q);
		if (d < 0 || (unsigned)d >= base || x > (UINT64_MAX >> 4))
			break;
		x = x * base + (unsigned)d;
	}
	if (q != fe || fe == f || (hex && fe == f + 2))
		return fail(r, f, "expected %s (a number), found '%.*s'", what,
			    (int)(fe - f > 20 ? 20 : fe - f), f);
	*v = x;
	return 0;
}

/* A name without its quotes and escapes (\\, \", \xHH, \uHHHH of ASCII) into sb. */
static void unquote(struct sbuf *sb, const char *f, const char *fe)
{
	sbuf_reset(sb);
	if (fe - f >= 2 && *f == '"') {
		f++;
		fe--;
	}
	for (const char *q = f; q < fe; q++) {
		char c = *q;
		if (c == '\\' && q + 1 < fe) {
			int n = q[1] == 'x' ? 2 : q[1] == 'u' ? 4 : 0;
			unsigned v = 0;
			bool ok = n && q + 1 + n < fe;
			for (int i = 0; ok && i < n; i++) {
				char h = q[2 + i];
				int d = text_is_digit(h)       ? h - '0'
					: h >= 'a' && h <= 'f' ? h - 'a' + 10
					: h >= 'A' && h <= 'F' ? h - 'A' + 10
							       : -1;
				ok = d >= 0;
				v = v * 16 + (unsigned)(d < 0 ? 0 : d);
			}
			if (ok && v < 0x80) {
				c = (char)v;
				q += 1 + n;
			} else if (!n) {
				c = *++q;
			}
		}
		sbuf_put(sb, &c, 1);
	}
}

static struct vcode *new_code(struct raw *r, uint32_t *ix)
{
	struct vcode *c = vec_push(&r->s->codes, sizeof(*c));
	if (c) {
		*c = (struct vcode){.frame = PV_NONE};
		*ix = r->s->codes.len - 1;
	}
	return c;
}

/* The first dynamic range ending after addr (a binary search without branches to mispredict). */
static uint32_t dyn_after(struct raw *r, uint64_t addr)
{
	const struct range *d = VEC(r->dyn, struct range);
	uint32_t base = 0, n = r->dyn.len;
	if (!n)
		return 0;
	while (n > 1) {
		uint32_t half = n / 2;
		base = d[base + half].end <= addr ? base + half : base;
		n -= half;
	}
	return base + (d[base].end <= addr);
}

/* Code at [start, end): the ranges it covers are dropped, as V8's code map drops them. */
static int dyn_add(struct raw *r, uint64_t start, uint64_t end, uint32_t code)
{
	uint32_t i = dyn_after(r, start), j = i;
	struct range *d = VEC(r->dyn, struct range);
	while (j < r->dyn.len && d[j].start < end)
		j++;
	uint32_t n = r->dyn.len;
	if (j == i && !vec_push(&r->dyn, sizeof(struct range)))
		return oom(r);
	d = VEC(r->dyn, struct range);
	if (j == i)
		memmove(d + i + 1, d + i, (n - i) * sizeof(*d));
	else if (j > i + 1) {
		memmove(d + i + 1, d + j, (n - j) * sizeof(*d));
		r->dyn.len -= j - i - 1;
	}
	d[i] = (struct range){start, end, code};
	return 0;
}

static uint32_t dyn_find(struct raw *r, uint64_t addr, uint32_t *at)
{
	uint32_t i = dyn_after(r, addr);
	const struct range *d = VEC(r->dyn, struct range);
	*at = i;
	return i < r->dyn.len && d[i].start <= addr ? d[i].code : UINT32_MAX;
}

static void dyn_remove(struct raw *r, uint32_t i)
{
	struct range *d = VEC(r->dyn, struct range);
	memmove(d + i, d + i + 1, (r->dyn.len - i - 1) * sizeof(*d));
	r->dyn.len--;
}

/* The code entry holding addr, or -1. */
static int64_t resolve(struct raw *r, uint64_t addr)
{
	const struct range *l = VEC(r->libs, struct range);
	for (uint32_t i = r->libs.len; i--;)
		if (addr >= (l[i].start & ~(uint64_t)4095) && addr < l[i].end)
			return addr >= l[i].start ? (int64_t)l[i].code : -1;
	uint32_t at;
	uint32_t c = dyn_find(r, addr, &at);
	return c == UINT32_MAX ? -1 : (int64_t)c;
}

static int on_library(struct raw *r, const char *f[], const char *fe[], int n)
{
	if (n < 4)
		return fail(r, r->line, "expected shared-library,\"PATH\",START,END");
	uint64_t start, end;
	int rc;
	if ((rc = number(r, f[2], fe[2], &start, "the start address")) ||
	    (rc = number(r, f[3], fe[3], &end, "the end address")))
		return rc;
	uint32_t ix = 0;
	struct vcode *c = new_code(r, &ix);
	struct range *g = vec_push(&r->libs, sizeof(*g));
	if (!c || !g)
		return oom(r);
	unquote(&r->s->name, f[1], fe[1]);
	v8_code_set(r->s, c, sbuf_str(&r->s->name), r->s->name.len, "SHARED_LIB", "");
	*g = (struct range){start, end > start ? end : start + 1, ix};
	return 0;
}

static int on_code(struct raw *r, const char *f[], const char *fe[], int n)
{
	if (n < 7)
		return fail(r, r->line,
			    "expected code-creation,TYPE,KIND,TIME,START,SIZE,\"NAME\"");
	uint64_t start, size;
	int rc;
	if ((rc = number(r, f[4], fe[4], &start, "the code address")) ||
	    (rc = number(r, f[5], fe[5], &size, "the code size")))
		return rc;
	uint32_t ix = 0;
	struct vcode *c = new_code(r, &ix);
	if (!c)
		return oom(r);
	struct v8 *s = r->s;
	unquote(&s->name, f[6], fe[6]);
	sbuf_reset(&s->kind);
	sbuf_put(&s->kind, f[1], (size_t)(fe[1] - f[1]));
	/* with a function address: a JavaScript function (the preprocessor's type JS) */
	v8_code_set(s, c, sbuf_str(&s->name), s->name.len, n >= 8 ? "JS" : "CODE",
		    sbuf_str(&s->kind));
	return dyn_add(r, start, start + (size ? size : 1), ix);
}

static int on_move(struct raw *r, const char *f[], const char *fe[], int n, bool del)
{
	uint64_t from, to = 0;
	int rc;
	if (n < (del ? 2 : 3))
		return fail(r, r->line, "expected %s",
			    del ? "code-delete,START" : "code-move,FROM,TO");
	if ((rc = number(r, f[1], fe[1], &from, "an address")) ||
	    (!del && (rc = number(r, f[2], fe[2], &to, "an address"))))
		return rc;
	r->moves++;
	uint32_t at;
	uint32_t c = dyn_find(r, from, &at);
	if (c == UINT32_MAX || VEC(r->dyn, struct range)[at].start != from)
		return 0;
	struct range g = VEC(r->dyn, struct range)[at];
	dyn_remove(r, at);
	return del ? 0 : dyn_add(r, to, to + (g.end - g.start), g.code);
}

static int on_tick(struct raw *r, const char *f[], const char *fe[], int n, const char *le,
		   const char *rest)
{
	if (n < 6)
		return fail(r, r->line, "expected tick,PC,TIME,EXTERNAL,TOS,VMSTATE,FRAME...");
	uint64_t pc, tm, ext, tos;
	int rc;
	if ((rc = number(r, f[1], fe[1], &pc, "the pc")) ||
	    (rc = number(r, f[2], fe[2], &tm, "the time")) ||
	    (rc = number(r, f[3], fe[3], &ext, "the external callback flag")) ||
	    (rc = number(r, f[4], fe[4], &tos, "the top of stack")))
		return rc;
	if (tm > (uint64_t)PV_TIME_MAX / 1000)
		return fail(r, f[2], "tick time %llu out of range", (unsigned long long)tm);
	struct v8 *s = r->s;
	s->vm_states++;
	r->stack.len = 0;
	uint64_t *a = vec_push(&r->stack, sizeof(uint64_t));
	if (!a)
		return oom(r);
	*a = ext ? tos : pc;
	if (!ext && tos) { /* the top of stack, when in a JavaScript function */
		int64_t c = resolve(r, tos);
		if (c >= 0 && VEC(s->codes, struct vcode)[c].type == T_JS) {
			if (!(a = vec_push(&r->stack, sizeof(uint64_t))))
				return oom(r);
			*a = tos;
		}
	}
	uint64_t prev = *VEC(r->stack, uint64_t);
	for (const char *p = rest; p < le;) {
		const char *g, *ge;
		if ((rc = field(r, &p, le, &g, &ge)))
			return rc;
		if (g < ge && *g == 'o') /* "overflow" */
			continue;
		uint64_t v;
		bool rel = g < ge && (*g == '+' || *g == '-');
		if ((rc = number(r, g + rel, ge, &v, "a frame address")))
			return rc;
		prev = !rel ? v : *g == '+' ? prev + v : prev - v;
		if (!(a = vec_push(&r->stack, sizeof(uint64_t))))
			return oom(r);
		*a = prev;
	}
	struct vtick *t = vec_push(&s->ticks, sizeof(*t));
	if (!t)
		return oom(r);
	s->unsorted = true; /* sorted by build, ties in file order */
	/* the code entries only: the offsets the preprocessor adds are not kept (a lossy line) */
	*t = (struct vtick){.tm = (int64_t)tm,
			    .stack = PV_NONE,
			    .lazy = true,
			    .packed = true,
			    .first = s->ids.len,
			    .n = 2 * r->stack.len,
			    .at = r->line,
			    .order = s->ticks.len - 1};
	uint32_t first = s->ids.len;
	if (vec_resize(&s->ids, sizeof(int64_t), first + r->stack.len))
		return oom(r);
	int64_t *id = VEC(s->ids, int64_t) + first;
	for (uint32_t i = 0; i < r->stack.len; i++)
		id[i] = resolve(r, VEC(r->stack, uint64_t)[i]);
	return 0;
}

static int on_line(struct raw *r, const char *le)
{
	const char *f[MAX_FIELDS], *fe[MAX_FIELDS];
	const char *p = r->line;
	int n = 0, rc;
	while (p < le && n < MAX_FIELDS) {
		if ((rc = field(r, &p, le, &f[n], &fe[n])))
			return rc;
		n++;
		if (n == 6 && fe[0] - f[0] == 4 && memcmp(f[0], "tick", 4) == 0)
			return on_tick(r, f, fe, n, le, p);
	}
	size_t k = n ? (size_t)(fe[0] - f[0]) : 0;
#define IS(w) (k == sizeof(w) - 1 && memcmp(f[0], w, k) == 0)
	if (IS("shared-library"))
		return on_library(r, f, fe, n);
	if (IS("code-creation"))
		return on_code(r, f, fe, n);
	if (IS("code-move"))
		return on_move(r, f, fe, n, false);
	if (IS("code-delete"))
		return on_move(r, f, fe, n, true);
	if (IS("tick"))
		return on_tick(r, f, fe, n, le, le);
#undef IS
	r->other += n > 0;
	return 0;
}

static int read_log(struct raw *r)
{
	int rc = 0;
	for (const char *p = r->p; p < r->e && !rc;) {
		const char *le = memchr(p, '\n', (size_t)(r->e - p));
		if (!le)
			le = r->e;
		r->line = p;
		r->lineno++;
		const char *end = le > p && le[-1] == '\r' ? le - 1 : le;
		if (end > p)
			rc = on_line(r, end);
		p = le + 1;
	}
	return rc;
}

static int probe(const struct pv_input *in)
{
	if (!(in->len >= 11 && memcmp(in->data, "v8-version,", 11) == 0) &&
	    !(in->len >= 15 && memcmp(in->data, "shared-library,", 15) == 0) &&
	    !(in->len >= 14 && memcmp(in->data, "code-creation,", 14) == 0))
		return 0;
	return 90;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct v8 *s = pv_calloc(1, sizeof(*s));
	struct raw *r = pv_calloc(1, sizeof(*r));
	int rc;
	if (!s || !r) {
		rc = pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
		goto out;
	}
	*s = (struct v8){.b = b, .in = in, .err = err};
	*r = (struct raw){.s = s, .p = in->data, .e = in->data + in->len};
	rc = read_log(r);
	if (!rc)
		rc = v8_build(s);
	builder_lossy(b, r->other, "log lines of other kinds");
	builder_lossy(b, r->moves, "code moves and deletions (applied; the old places forgotten)");
out:
	if (s)
		v8_release(s);
	if (r) {
		vec_free(&r->libs);
		vec_free(&r->dyn);
		vec_free(&r->stack);
	}
	pv_free(s);
	pv_free(r);
	return rc;
}

const struct importer importer_v8raw = {
    .name = "v8raw",
    .description = "V8 --prof isolate log (raw, as node --prof-process reads it)",
    .probe = probe,
    .import = import,
};
