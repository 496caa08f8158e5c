/*
 * chrome_common.c - what every part of the Chrome importer shares (chrome.h): errors, the text
 * pool, numbers, ids and texts of events, processes and threads, and the frames of V8 call
 * frames and of stackFrames entries. It calls no other file of the importer.
 */
#include "base/alloc.h"
#include "base/hash.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "base/vec.h"
#include "import/chrome/chrome.h"
#include "import/script_url.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors and small readers ---- */

int ch_oom(struct ch *c)
{
	return json_fail(&c->j, NULL, "out of memory");
}

uint32_t ch_pool_add(struct ch *c, const char *s, size_t n)
{
	if (c->pool.len > UINT32_MAX - n - 2)
		return 0;
	uint32_t off = (uint32_t)c->pool.len;
	if (sbuf_put(&c->pool, s, n) || sbuf_put(&c->pool, "", 1))
		return 0;
	return off;
}

const char *ch_pool_s(const struct ch *c, uint32_t off)
{
	return off < c->pool.len ? c->pool.buf + off : "";
}

static bool is_number_text(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	size_t d = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	bool digits = i > d;
	if (i < n && s[i] == '.') {
		i++;
		size_t f = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		digits = digits || i > f;
	}
	if (!digits)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t e = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == e)
			return false;
	}
	return i == n;
}

/*
 * A number, or a string holding one, times 10^pow10, as an exact integer. *have is false for
 * null. Strings that hold no number are an error naming what.
 */
int ch_read_fixed(struct ch *c, struct json *j, const struct json_tok *t, int pow10,
		  const char *what, int64_t *out, bool *have)
{
	*have = false;
	if (t->kind == JSON_NULL)
		return 0;
	if (t->kind == JSON_NUMBER) {
		int rc = json_fixed(j, t, pow10, out);
		if (!rc)
			*have = true;
		return rc;
	}
	if (t->kind == JSON_STRING && !t->escaped && is_number_text(t->s, t->len)) {
		struct json_tok n = {.kind = JSON_NUMBER, .s = t->s, .len = t->len};
		int rc = json_fixed(j, &n, pow10, out);
		if (!rc)
			*have = true;
		return rc;
	}
	(void)c;
	return json_fail_at(j, t, "expected %s (a number), found %s", what,
			    t->kind == JSON_STRING ? "a string that is not a number"
						   : json_kind_name(t->kind));
}

/* A member whose value is text (json_text) into out, *has set; any other value is skipped. */
int ch_text_member(struct json *j, const struct json_tok *v, struct sbuf *out, bool *has)
{
	int rc = json_text(j, v, out);
	if (rc == 1)
		return json_skip(j, v);
	if (!rc)
		*has = true;
	return rc;
}

/* A pid or tid: a number, a string (numeric or not), or null. */
int ch_read_id(struct ch *c, struct json *j, const struct json_tok *t, const char *what,
	       int64_t *out)
{
	if (t->kind == JSON_NULL) {
		*out = ID_MISSING;
		return 0;
	}
	if (t->kind == JSON_NUMBER) {
		int rc = json_i64(j, t, out);
		if (!rc && *out == ID_MISSING)
			*out = ID_MISSING + 1;
		return rc;
	}
	if (t->kind != JSON_STRING)
		return json_fail_at(j, t, "expected %s (a number or a string), found %s", what,
				    json_kind_name(t->kind));
	int rc = json_text(j, t, &c->tmp);
	if (rc)
		return rc;
	const char *s = sbuf_str(&c->tmp);
	size_t n = c->tmp.len;
	if (n && n < 19 && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) {
		size_t i = s[0] == '-';
		int64_t v = 0;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			v = v * 10 + (s[i] - '0');
		if (i == n && n > (size_t)(s[0] == '-')) {
			*out = s[0] == '-' ? -v : v;
			return 0;
		}
	}
	/* not a number: the k-th distinct such text */
	struct vec *v = &c->strange;
	for (uint32_t k = 0; k < v->len; k++)
		if (strcmp(ch_pool_s(c, VEC(*v, uint32_t)[k]), s) == 0) {
			*out = ID_STRANGE + k;
			return 0;
		}
	uint32_t off = ch_pool_add(c, s, n);
	uint32_t *slot = off ? vec_push(v, sizeof(uint32_t)) : NULL;
	if (!slot)
		return ch_oom(c);
	*slot = off;
	*out = ID_STRANGE + (v->len - 1);
	return 0;
}

/* ---- threads and processes ---- */

struct pair_key {
	const struct ch *c;
	int64_t a, b;
};

static bool thread_eq(const void *ctx, uint32_t row)
{
	const struct pair_key *k = ctx;
	const struct cthread *t = &VEC(k->c->threads, struct cthread)[row];
	return t->pid == k->a && t->tid == k->b;
}

static bool proc_eq(const void *ctx, uint32_t row)
{
	const struct pair_key *k = ctx;
	return VEC(k->c->procs, struct cproc)[row].pid == k->a;
}

uint32_t ch_get_proc(struct ch *c, int64_t pid)
{
	struct pair_key k = {c, pid, 0};
	uint64_t h = hash_u64((uint64_t)pid);
	uint32_t slot;
	uint32_t r = ixmap_find(&c->proc_map, h, proc_eq, &k, &slot);
	if (r != UINT32_MAX)
		return r;
	struct cproc *p = vec_push(&c->procs, sizeof(*p));
	if (!p)
		return NO_IX;
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->first = c->procs.len - 1;
	r = c->procs.len - 1;
	if (ixmap_insert(&c->proc_map, slot, h, r))
		return NO_IX;
	return r;
}

static uint32_t find_thread(struct ch *c, int64_t pid, int64_t tid)
{
	struct pair_key k = {c, pid, tid};
	uint64_t h = hash_u64((uint64_t)pid * 0x9e3779b97f4a7c15ULL ^ hash_u64((uint64_t)tid));
	uint32_t slot;
	uint32_t r = ixmap_find(&c->thread_map, h, thread_eq, &k, &slot);
	if (r != UINT32_MAX)
		return r;
	uint32_t proc = ch_get_proc(c, pid);
	if (proc == NO_IX)
		return NO_IX;
	struct cthread *t = vec_push(&c->threads, sizeof(*t));
	if (!t)
		return NO_IX;
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->proc = proc;
	t->first = c->threads.len - 1;
	t->out = PV_NONE;
	r = c->threads.len - 1;
	if (ixmap_insert(&c->thread_map, slot, h, r))
		return NO_IX;
	return r;
}

uint32_t ch_get_thread(struct ch *c, int64_t pid, int64_t tid)
{
	/* the events of a thread mostly come in runs: the last one asked first */
	const struct cthread *last = c->last_thread < c->threads.len
					 ? &VEC(c->threads, struct cthread)[c->last_thread]
					 : NULL;
	if (last && last->pid == pid && last->tid == tid)
		return c->last_thread;
	uint32_t r = find_thread(c, pid, tid);
	if (r != NO_IX)
		c->last_thread = r;
	return r;
}

/* ---- frames ---- */

static pv_cat_ix frame_cat(struct ch *c, pv_cat_ix *slot, const char *name, const char *color)
{
	if (*slot == PV_NONE)
		*slot = builder_category(c->b, builder_cstr(c->b, name), builder_cstr(c->b, color));
	return *slot;
}

static uint32_t line_of(int64_t zero_based)
{
	return zero_based >= 0 && zero_based < (int64_t)UINT32_MAX - 1 ? (uint32_t)zero_based + 1
								       : 0;
}

/* The frame of a function of a script: its name ("(anonymous)" when empty), the script's URL as
 * its module and source, 0-based line and column (-1 unknown), a category. */
static pv_frame_ix script_frame(struct ch *c, const char *fn, size_t fn_len, const char *url,
				size_t url_len, int64_t line0, int64_t col0, pv_cat_ix cat)
{
	struct pv_builder *b = c->b;
	pv_str_ix name = fn_len ? builder_str(b, fn, fn_len) : builder_cstr(b, "(anonymous)");
	pv_module_ix mod = script_module(c->b, url, url_len, PV_MODULE_RESOURCE);
	pv_source_ix src = url_len ? builder_source(b, builder_str(b, url, url_len)) : PV_NONE;
	uint32_t line = line_of(line0), col = line_of(col0);
	/* name, script, line and column: two functions of one line are two, as in DevTools */
	pv_func_ix f = builder_func_at(b, name, mod, src, line, col);
	struct frame_key k = {
	    .func = f,
	    .line = line,
	    .column = col,
	    .addr = PV_ADDR_NONE,
	    .category = cat,
	};
	return builder_frame(b, &k);
}

/* A V8 call frame: name, script URL, 0-based line and column (-1 unknown). */
pv_frame_ix ch_v8_frame(struct ch *c, const char *fn, size_t fn_len, const char *url,
			size_t url_len, int64_t line0, int64_t col0)
{
	pv_cat_ix cat;
	bool special = fn_len > 1 && fn[0] == '(' && fn[fn_len - 1] == ')';
	if (special && fn_len == 6 && memcmp(fn, "(idle)", 6) == 0)
		cat = frame_cat(c, &c->cat_idle, "Idle", "transparent");
	else if (special && fn_len == 19 && memcmp(fn, "(garbage collector)", 19) == 0)
		cat = frame_cat(c, &c->cat_gc, "GC / CC", "orange");
	else if (special && ((fn_len == 6 && memcmp(fn, "(root)", 6) == 0) ||
			     (fn_len == 9 && memcmp(fn, "(program)", 9) == 0)))
		cat = frame_cat(c, &c->cat_other, "Other", "grey");
	else if (url_len || line0 >= 0)
		cat = frame_cat(c, &c->cat_js, "JavaScript", "yellow");
	else
		cat = frame_cat(c, &c->cat_native, "Native", "blue");
	return script_frame(c, fn, fn_len, url, url_len, line0, col0, cat);
}

/*
 * A stackFrames entry's frame. Hermes writes "name(url:line:col)"; such names are split into the
 * function, its script and its position.
 */
pv_frame_ix ch_sf_frame(struct ch *c, const char *s, size_t n, const char *cat, size_t cat_len)
{
	struct pv_builder *b = c->b;
	pv_cat_ix ci =
	    cat_len ? builder_category(b, builder_str(b, cat, cat_len), builder_cstr(b, "grey"))
		    : PV_NONE;
	const char *url = NULL;
	size_t url_len = 0, fn_len = n;
	int64_t line = -1, col = -1;
	if (n > 2 && s[n - 1] == ')') {
		const char *open = memchr(s, '(', n);
		if (open && open > s) {
			/* url:line:col between the parentheses */
			const char *in = open + 1, *e = s + n - 1;
			const char *c2 = NULL, *c1 = NULL;
			for (const char *q = e - 1; q >= in; q--)
				if (*q == ':') {
					if (!c2)
						c2 = q;
					else {
						c1 = q;
						break;
					}
				}
			if (c1 && c2) {
				int64_t a = 0, bb = 0;
				bool ok = c2 > c1 + 1 && e > c2 + 1;
				for (const char *q = c1 + 1; ok && q < c2; q++)
					ok = *q >= '0' && *q <= '9' &&
					     (a = a * 10 + (*q - '0')) < 1000000000;
				for (const char *q = c2 + 1; ok && q < e; q++)
					ok = *q >= '0' && *q <= '9' &&
					     (bb = bb * 10 + (*q - '0')) < 1000000000;
				if (ok) {
					url = in;
					url_len = (size_t)(c1 - in);
					fn_len = (size_t)(open - s);
					line = a - 1; /* written 1-based */
					col = bb - 1;
				}
			}
		}
	}
	return script_frame(c, s, fn_len, url, url_len, line, col, ci);
}

int ch_rel(struct ch *c, int64_t t, int64_t zero, int64_t *out)
{
	if (t == PV_TIME_NONE) {
		*out = PV_TIME_NONE;
		return 0;
	}
	if (__builtin_sub_overflow(t, zero, out) || *out == PV_TIME_NONE)
		return pv_error_set(c->err, PV_ELIMIT,
				    "%s: the times span more than the model holds (292 years)",
				    c->in->name);
	return 0;
}

void ch_sort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
	       const void *ctx)
{
	const char *p = base;
	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size, (void *)ctx) > 0) {
			pv_sort_r(base, n, size, cmp, ctx);
			return;
		}
}
