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
#include "base/text.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/json.h"
#include "import/json_numbers.h"
#include "import/v8/v8_tables.h"

#define PROBE_WINDOW ((size_t)64 << 10)

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
	v8_code_set(s, &VEC(s->codes, struct vcode)[me], s->name.buf ? s->name.buf : "",
		    s->name.len, typed ? sbuf_str(&s->type) : NULL, sbuf_str(&s->kind));
	return 0;
}

/*
 * Keeps tick x whose entries are in one: its stack interned now when the code table came
 * before it, else its entries for build.
 */
static int add_tick(struct v8 *s, struct vtick *x)
{
	const int64_t *ids = VEC(s->one, int64_t);
	if (s->has_code || !x->n) {
		x->stack = v8_tick_stack(s, ids, x->n, false);
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
		rc = v8_build(s);
	json_release(&s->j);
	v8_release(s);
	pv_free(s);
	return rc;
}

const struct importer importer_v8log = {
    .name = "v8log",
    .description = "V8 --prof tick log preprocessed by node --prof-process --preprocess (JSON)",
    .probe = probe,
    .import = import,
};
