/*
 * v8_tables.c - the tables V8's tick logs make (code entries, ticks and their stacks), shared by
 * the preprocessed JSON reader (v8log.c) and the raw `--prof` log reader (v8raw.c): code entries
 * named as speedscope names them, the stacks of ticks, and the one step that makes the profile of
 * them as speedscope does (v8_build).
 */
#include <stdio.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/sort.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/v8/v8_tables.h"

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

void v8_code_set(struct v8 *s, struct vcode *c, const char *name, size_t len, const char *ty,
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
/* Stack entry d (0: the root) of a tick's n entries. */
static inline int64_t tick_entry(const int64_t *ids, uint32_t n, uint32_t d, bool packed)
{
	return packed ? ids[n / 2 - 1 - d] : ids[n - 2 - 2 * (size_t)d];
}

pv_stack_ix v8_tick_stack(struct v8 *s, const int64_t *ids, uint32_t n, bool packed)
{
	uint32_t depth = n / 2, same = 0;
	if (vec_resize(&s->last_ids, sizeof(int64_t), depth) ||
	    vec_resize(&s->last_st, sizeof(pv_stack_ix), depth)) {
		s->b->status = PV_ENOMEM;
		return PV_NONE;
	}
	int64_t *li = VEC(s->last_ids, int64_t);
	pv_stack_ix *ls = VEC(s->last_st, pv_stack_ix), st = PV_NONE;
	while (same < depth && same < s->last_n && li[same] == tick_entry(ids, n, same, packed))
		same++;
	if (same)
		st = ls[same - 1];
	for (uint32_t d = same; d < depth; d++) {
		int64_t id = tick_entry(ids, n, d, packed);
		if (id != -1)
			st = builder_stack(s->b, st, entry_frame(s, id));
		li[d] = id;
		ls[d] = st;
	}
	s->last_n = depth;
	return st;
}

static int tick_cmp(const void *a, const void *b)
{
	const struct vtick *x = a, *y = b;
	if (x->tm != y->tm)
		return x->tm < y->tm ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int v8_build(struct v8 *s)
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
		pv_stack_ix st =
		    t[i].lazy ? v8_tick_stack(s, ids + t[i].first, n, t[i].packed) : t[i].stack;
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

void v8_release(struct v8 *s)
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
