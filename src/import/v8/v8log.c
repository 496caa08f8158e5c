/*
 * v8log.c - V8 tick logs as Node's tick processor preprocesses them
 * (`node --prof script.js`, then `node --prof-process --preprocess isolate*.log > x.v8log.json`),
 * read the way speedscope's v8proflog importer reads them, so the weights are the same.
 *
 * Shape: {code: [{name, type: CODE|CPP|JS|SHARED_LIB, kind, func, tm}], functions: [{name,
 * codes}], ticks: [{tm (us), vm, s: [code, offset, code, offset, ...] leaf first]}.
 *
 * What becomes what: one thread; the ticks, in order of time, are samples whose stack is the
 * even entries of s (the JavaScript stack; -1 skipped), root first, each weighing the time since
 * the tick before it (since 0 for the first) as "time" (ns), at the tick before's time. Code
 * entries are named as speedscope names them: "(c++) NAME" for C++ symbols, "(LIB) PATH" for
 * shared libraries (also their module), "(IC) ", "(bytecode) ~", "(stub) ", "(builtin) ",
 * "(regexp) " before code stubs of those kinds, "(TYPE) NAME" for other types; a JavaScript
 * entry "NAME FILE:LINE:COL" is the function NAME (or "(anonymous FILE:LINE)") at that file,
 * line and column. A stack entry past the code table is an address ("0x..."); a code entry
 * without a type "(unknown type)".
 *
 * Not kept (lossy lines): the odd entries of s (the C++ stack and code offsets), the ticks' VM
 * states, the functions table. Errors: a tick without 'tm' or 's', a stack entry below -1, a
 * second code table after ticks (whose stacks were made from the first as they were read).
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/json.h"
#include "import/json_numbers.h"
#include "import/v8/v8log.h"

#define PROBE_WINDOW ((size_t)64 << 10)

static const char *const kind_prefix[] = {
    "", "(IC) ", "(bytecode) ~", "(stub) ", "(builtin) ", "(regexp) ",
};

static uint8_t kind_of(const char *k)
{
	static const struct {
		const char *kind;
		uint8_t prefix;
	} kinds[] = {
	    {"LoadIC", 1},	 {"StoreIC", 1}, {"KeyedStoreIC", 1},	 {"KeyedLoadIC", 1},
	    {"LoadGlobalIC", 1}, {"Handler", 1}, {"BytecodeHandler", 2}, {"Stub", 3},
	    {"Builtin", 4},	 {"RegExp", 5},
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(k, kinds[i].kind) == 0)
			return kinds[i].prefix;
	return 0;
}

static int read_code(struct v8 *s, const struct json_tok *t)
{
	struct json *j = &s->j;
	int rc;
	struct vcode *c = vec_push(&s->codes, sizeof(*c));
	if (!c)
		return json_fail(j, NULL, "out of memory");
	uint32_t me = s->codes.len - 1;
	*c = (struct vcode){.frame = PV_NONE};
	if (t->kind != JSON_OBJECT) /* speedscope: "(unknown type)" */
		return json_skip(j, t);
	sbuf_reset(&s->name);
	sbuf_reset(&s->type);
	sbuf_reset(&s->kind);
	bool typed = false;
	struct json_tok k, v;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		struct sbuf *to = json_is(&k, "name")	? &s->name
				  : json_is(&k, "type") ? &s->type
				  : json_is(&k, "kind") ? &s->kind
							: NULL;
		if (to && v.kind == JSON_STRING) {
			if ((rc = json_text(j, &v, to)))
				return rc;
			typed |= to == &s->type && s->type.len;
		} else if ((rc = json_skip(j, &v))) {
			return rc;
		}
	}
	if (rc)
		return rc;
	v8log_code_set(s, &VEC(s->codes, struct vcode)[me], s->name.buf ? s->name.buf : "",
		       s->name.len, typed ? sbuf_str(&s->type) : NULL, sbuf_str(&s->kind));
	return 0;
}

void v8log_code_set(struct v8 *s, struct vcode *c, const char *name, size_t len, const char *ty,
		    const char *kind)
{
	c->type = !ty				  ? T_NONE
		  : strcmp(ty, "CODE") == 0	  ? T_CODE
		  : strcmp(ty, "CPP") == 0	  ? T_CPP
		  : strcmp(ty, "JS") == 0	  ? T_JS
		  : strcmp(ty, "SHARED_LIB") == 0 ? T_LIB
						  : T_OTHER;
	c->name = builder_str(s->b, name, len);
	if (c->type == T_OTHER)
		c->type_name = builder_cstr(s->b, ty);
	if (c->type == T_CODE)
		c->kind = kind_of(kind);
}

static bool c1(char c)
{
	return text_is_alpha(c) || text_is_digit(c) || c == '.' || c == '_' || c == '-' || c == '$';
}

/*
 * speedscope's /([a-zA-Z0-9\._\-$]*) ([a-zA-Z0-9\.\-_\/$]*):(\d+):(\d+)/ on [p, e): its
 * groups, or false when it does not match.
 */
static bool js_match(const char *p, const char *e, const char **fn, const char **fn_e,
		     const char **file, const char **file_e, uint32_t *line, uint32_t *col)
{
	for (const char *i = p; i < e;) {
		const char *q = i;
		while (q < e && c1(*q))
			q++;
		if (q >= e || *q != ' ') {
			i = q > i ? q : i + 1;
			continue;
		}
		const char *f = q + 1, *r = f;
		while (r < e && (c1(*r) || *r == '/'))
			r++;
		const char *d = r + 1, *de = d;
		uint64_t l = 0, c = 0;
		while (de < e && text_is_digit(*de) && l < 100000000)
			l = l * 10 + (uint64_t)(*de++ - '0');
		const char *ce = de + 1;
		if (r < e && *r == ':' && de > d && de < e && *de == ':' && ce < e &&
		    text_is_digit(*ce)) {
			while (ce < e && text_is_digit(*ce) && c < 100000000)
				c = c * 10 + (uint64_t)(*ce++ - '0');
			*fn = i;
			*fn_e = q;
			*file = f;
			*file_e = r;
			*line = (uint32_t)l;
			*col = (uint32_t)c;
			return true;
		}
		i++;
	}
	return false;
}

static pv_frame_ix code_frame(struct v8 *s, uint32_t id)
{
	struct pv_builder *b = s->b;
	struct vcode *c = &VEC(s->codes, struct vcode)[id];
	if (c->frame != PV_NONE)
		return c->frame;
	const char *n = pv_str(b->p, c->name);
	size_t len = strlen(n);
	pv_func_ix f = PV_NONE;
	switch (c->type) {
	case T_NONE:
		f = builder_func(b, builder_cstr(b, "(unknown type)"), PV_NONE, PV_NONE, 0);
		break;
	case T_CPP: {
		const char *m = NULL;
		for (size_t i = 0; i + 1 < len && !m; i++)
			if ((n[i] == 't' || n[i] == 'T') && n[i + 1] == ' ')
				m = n + i + 2;
		if (m) {
			size_t k = strcspn(m, "(<");
			f = builder_func(b, builder_strf(b, "(c++) %.*s", (int)k, m), PV_NONE,
					 PV_NONE, 0);
		} else {
			f = builder_func(b, c->name, PV_NONE, PV_NONE, 0);
		}
		break;
	}
	case T_LIB: {
		const char *base = strrchr(n, '/');
		pv_module_ix mod = builder_module(b, builder_cstr(b, base ? base + 1 : n), c->name,
						  PV_MODULE_LIBRARY);
		f = builder_func(b, builder_strf(b, "(LIB) %s", n), mod, PV_NONE, 0);
		break;
	}
	case T_JS: {
		const char *fn, *fn_e, *file, *file_e;
		uint32_t line, col;
		if (!js_match(n, n + len, &fn, &fn_e, &file, &file_e, &line, &col)) {
			f = builder_func(b, c->name, PV_NONE, PV_NONE, 0);
			break;
		}
		pv_str_ix name;
		if (fn_e > fn) {
			name = builder_str(b, fn, (size_t)(fn_e - fn));
		} else if (file_e > file) {
			const char *base = file_e;
			while (base > file && base[-1] != '/')
				base--;
			name = builder_strf(b, "(anonymous %.*s:%u)", (int)(file_e - base), base,
					    line);
		} else {
			name = builder_cstr(b, "(anonymous)");
		}
		pv_source_ix src =
		    builder_source(b, file_e > file ? builder_str(b, file, (size_t)(file_e - file))
						    : builder_cstr(b, "(unknown file)"));
		f = builder_func_at(b, name, PV_NONE, src, line, col);
		break;
	}
	case T_CODE:
		f = builder_func(b, builder_strf(b, "%s%s", kind_prefix[c->kind], n), PV_NONE,
				 PV_NONE, 0);
		break;
	default:
		f = builder_func(b, builder_strf(b, "(%s) %s", pv_str(b->p, c->type_name), n),
				 PV_NONE, PV_NONE, 0);
		break;
	}
	c->frame = builder_func_frame(b, f);
	return c->frame;
}

/* The frame of stack entry id (>= 0): its code's, or an address past the code table. */
static pv_frame_ix entry_frame(struct v8 *s, int64_t id)
{
	struct pv_builder *b = s->b;
	uint32_t ncode = s->codes.len;
	if (id > (int64_t)ncode) /* an address */
		return builder_func_frame(
		    b, builder_func(b, builder_strf(b, "0x%llx", (unsigned long long)id), PV_NONE,
				    PV_NONE, 0));
	if (id == (int64_t)ncode) /* no code entry */
		return builder_func_frame(
		    b, builder_func(b, builder_cstr(b, "(unknown type)"), PV_NONE, PV_NONE, 0));
	return code_frame(s, (uint32_t)id);
}

/*
 * The stack of a tick's n entries, as speedscope reads them: from ids[n - 2] down by two, the
 * root first, -1 skipped. The entries it shares from the root with the stack before are not
 * looked up again (ticks in a row often share most of their stack).
 */
static pv_stack_ix tick_stack(struct v8 *s, const int64_t *ids, uint32_t n)
{
	uint32_t depth = n / 2, same = 0;
	if (vec_resize(&s->last_ids, sizeof(int64_t), depth) ||
	    vec_resize(&s->last_st, sizeof(pv_stack_ix), depth)) {
		s->b->status = PV_ENOMEM;
		return PV_NONE;
	}
	int64_t *li = VEC(s->last_ids, int64_t);
	pv_stack_ix *ls = VEC(s->last_st, pv_stack_ix), st = PV_NONE;
	while (same < depth && same < s->last_n && li[same] == ids[n - 2 - 2 * (size_t)same])
		same++;
	if (same)
		st = ls[same - 1];
	for (uint32_t d = same; d < depth; d++) {
		int64_t id = ids[n - 2 - 2 * (size_t)d];
		if (id != -1)
			st = builder_stack(s->b, st, entry_frame(s, id));
		li[d] = id;
		ls[d] = st;
	}
	s->last_n = depth;
	return st;
}

/*
 * Keeps tick x whose entries are in one: its stack interned now when the code table came
 * before it, else its entries for build.
 */
static int add_tick(struct v8 *s, struct vtick *x)
{
	const int64_t *ids = VEC(s->one, int64_t);
	if (s->has_code || !x->n) {
		x->stack = tick_stack(s, ids, x->n);
		s->interned |= x->n > 0;
	} else {
		x->lazy = true;
		x->first = s->ids.len;
		if (vec_resize(&s->ids, sizeof(int64_t), x->first + x->n))
			return json_fail(&s->j, NULL, "out of memory");
		memcpy(VEC(s->ids, int64_t) + x->first, ids, x->n * sizeof(int64_t));
	}
	if (s->ticks.len && VEC(s->ticks, struct vtick)[s->ticks.len - 1].tm > x->tm)
		s->unsorted = true;
	struct vtick *p = vec_push(&s->ticks, sizeof(*p));
	if (!p)
		return json_fail(&s->j, NULL, "out of memory");
	*p = *x;
	return 0;
}

static int read_tick(struct v8 *s, const struct json_tok *t)
{
	struct json *j = &s->j;
	int rc;
	if ((rc = json_want(j, t, JSON_OBJECT, "a tick ('{')")))
		return rc;
	struct vtick x = {.tm = INT64_MIN, .stack = PV_NONE, .at = t->s, .order = s->ticks.len};
	bool has_s = false;
	struct json_tok k, v;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		if (json_is(&k, "tm")) {
			if ((rc = json_i64(j, &v, &x.tm)))
				return rc;
			if (x.tm < 0 || x.tm > PV_TIME_MAX / 1000)
				return json_fail_at(j, &v, "tick time %lld out of range",
						    (long long)x.tm);
		} else if (json_is(&k, "s")) {
			if ((rc = json_want(j, &v, JSON_ARRAY, "an array of stack entries")))
				return rc;
			s->one.len = 0;
			if ((rc = json_read_i64s(j, 0, &s->one, "s")))
				return rc;
			const int64_t *ids = VEC(s->one, int64_t);
			x.n = s->one.len;
			for (int64_t i = (int64_t)x.n - 2; i >= 0; i -= 2)
				if (ids[i] < -1)
					return json_fail(
					    j, json_array_elem_at(j, v.s + 1, (uint64_t)i),
					    "stack entry %lld is no code index", (long long)ids[i]);
			has_s = true;
		} else {
			if (json_is(&k, "vm"))
				s->vm_states++;
			if ((rc = json_skip(j, &v)))
				return rc;
		}
	}
	if (rc)
		return rc;
	if (x.tm == INT64_MIN || !has_s)
		return json_fail(j, t->s, "a tick without '%s'", x.tm == INT64_MIN ? "tm" : "s");
	return add_tick(s, &x);
}

static int read_top(struct v8 *s)
{
	struct json *j = &s->j;
	struct json_tok k, v;
	int rc = json_next(j, &k);
	if (rc)
		return rc;
	if ((rc = json_want(j, &k, JSON_OBJECT, "a V8 log object ('{')")))
		return rc;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		bool code = json_is(&k, "code"), ticks = json_is(&k, "ticks");
		if (code && s->interned) /* its frames would change ticks interned before */
			return json_fail_at(j, &k, "a second 'code' table after the ticks");
		if (code || ticks || json_is(&k, "functions")) {
			if ((rc = json_want(j, &v, JSON_ARRAY, "an array")))
				return rc;
			struct json_tok x;
			while (!(rc = json_next(j, &x)) && x.kind != JSON_END) {
				rc = code ? read_code(s, &x) : ticks ? read_tick(s, &x) : 0;
				if (!code && !ticks) {
					s->functions++;
					rc = json_skip(j, &x);
				}
				if (rc)
					return rc;
			}
			if (rc)
				return rc;
			s->has_code |= code;
			s->has_ticks |= ticks;
		} else if ((rc = json_skip(j, &v))) {
			return rc;
		}
	}
	if (rc)
		return rc;
	if (k.kind != JSON_END)
		return json_fail(j, NULL, "the V8 log object is cut short");
	if (!s->has_code || !s->has_ticks)
		return json_fail(j, NULL, "a V8 log needs 'code' and 'ticks' (%s missing)",
				 !s->has_code ? "'code'" : "'ticks'");
	return 0;
}

static int tick_cmp(const void *a, const void *b)
{
	const struct vtick *x = a, *y = b;
	if (x->tm != y->tm)
		return x->tm < y->tm ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int v8log_build(struct v8 *s)
{
	struct pv_builder *b = s->b;
	builder_metric(b, builder_cstr(b, "time"), PV_UNIT_NS);
	b->p->meta.product = builder_cstr(b, "V8");
	pv_thread_ix th = builder_thread(b, builder_cstr(b, "main"), PV_ID_NONE, PV_ID_NONE, 0);
	struct vtick *t = VEC(s->ticks, struct vtick);
	if (s->unsorted)
		pv_sort(t, s->ticks.len, sizeof(*t), tick_cmp); /* ties by file order */
	const int64_t *ids = VEC(s->ids, int64_t);
	uint64_t cxx = 0;
	int64_t last = 0;
	for (uint32_t i = 0; i < s->ticks.len && !b->status; i++) {
		uint32_t n = t[i].n;
		cxx += n - n / 2;
		pv_stack_ix st = t[i].lazy ? tick_stack(s, ids + t[i].first, n) : t[i].stack;
		int64_t w = (t[i].tm - last) * 1000;
		builder_sample(b, th, st, last * 1000, &w);
		last = t[i].tm;
	}
	builder_lossy(b, cxx,
		      "C++ stack entries and code offsets of ticks (the odd entries of 's')");
	builder_lossy(b, s->vm_states, "VM states of ticks");
	builder_lossy(b, s->functions, "entries of the functions table");
	return 0;
}

void v8log_release(struct v8 *s)
{
	vec_free(&s->codes);
	vec_free(&s->ticks);
	vec_free(&s->ids);
	vec_free(&s->one);
	vec_free(&s->last_ids);
	vec_free(&s->last_st);
	sbuf_release(&s->name);
	sbuf_release(&s->type);
	sbuf_release(&s->kind);
}

/* ---- probe and import ---- */

static int probe(const struct pv_input *in)
{
	if (probe_first_char(in) != '{')
		return 0;
	size_t n = in->len < PROBE_WINDOW ? in->len : PROBE_WINDOW;
	if (!probe_has(in, n, "\"code\""))
		return 0;
	if (probe_has(in, n, "\"ticks\"") && probe_has(in, n, "\"functions\""))
		return 75;
	/* the code table first, the ticks last */
	size_t tail = in->len < PROBE_WINDOW ? in->len : PROBE_WINDOW;
	if (memmem(in->data + in->len - tail, tail, "\"ticks\"", 7) &&
	    memmem(in->data + in->len - tail, tail, "\"tm\"", 4))
		return 75;
	if (probe_has(in, n, "\"type\":\"SHARED_LIB\"") || probe_has(in, n, "\"type\":\"CPP\""))
		return 70;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct v8 *s = pv_calloc(1, sizeof(*s));
	if (!s)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	s->b = b;
	s->in = in;
	s->err = err;
	json_init(&s->j, in, err);
	int rc = read_top(s);
	if (!rc)
		rc = v8log_build(s);
	if (!rc && b->status)
		rc = pv_error_set(err, b->status, "%s: %s while importing", in->name,
				  pv_strerror(b->status));
	json_release(&s->j);
	v8log_release(s);
	pv_free(s);
	return rc;
}

const struct importer importer_v8log = {
    .name = "v8log",
    .description = "V8 --prof tick log preprocessed by node --prof-process --preprocess (JSON)",
    .probe = probe,
    .import = import,
};
