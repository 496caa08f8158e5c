/*
 * ghc.c - GHC's JSON cost-centre profiles (`+RTS -pj`, written to PROGRAM.prof), read the way
 * speedscope's Haskell importer reads them, so the weights are the same.
 *
 * Shape: {program, arguments, rts_arguments, end_time, initial_capabilities, total_time,
 * total_ticks, tick_interval (us), total_alloc, cost_centres: [{id, label, module, src_loc,
 * is_caf}], profile: {id, entries, alloc, ticks, children: [...]}}.
 *
 * What becomes what: one thread named after the program; every cost centre a function named
 * MODULE.LABEL as speedscope names it, its module a module, its src_loc's file the source and
 * its first line and column the function's; every node of the tree one sample whose stack is
 * the node's path, weighing its ticks as "time" (ticks x tick_interval, in ns), its alloc as
 * "bytes" and its entries as "entries". Samples come in speedscope's order: a node after its
 * children. No sample times (the profile is a tree of totals).
 *
 * Not kept (lossy lines): the CAF flags of cost centres, the program's arguments and end time.
 * Errors: a node of a cost centre id not in cost_centres, negative costs, a missing profile.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sbuf.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/json.h"

#define PROBE_WINDOW ((size_t)64 << 10)

struct gnode {
	uint32_t depth;
	int64_t id, entries, alloc, ticks;
	const char *at; /* its '{', for errors */
};

struct ghc {
	struct json j;
	struct pv_input *in;
	struct pv_error *err;
	struct pv_builder *b;
	struct sbuf program, label, module, loc;
	int64_t tick_interval; /* us */
	bool has_profile, has_centres;
	struct vec nodes;   /* struct gnode, pre-order */
	struct vec centres; /* pv_frame_ix */
	struct u64map ids;  /* cost centre id -> row of centres */
	uint64_t cafs, dropped;
};

static int read_centre(struct ghc *s, const struct json_tok *t)
{
	struct json *j = &s->j;
	int rc;
	if ((rc = json_want(j, t, JSON_OBJECT, "a cost centre object ('{')")))
		return rc;
	int64_t id = -1;
	const char *at = t->s;
	sbuf_reset(&s->label);
	sbuf_reset(&s->module);
	sbuf_reset(&s->loc);
	struct json_tok k, v;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		struct sbuf *to = json_is(&k, "label")	   ? &s->label
				  : json_is(&k, "module")  ? &s->module
				  : json_is(&k, "src_loc") ? &s->loc
							   : NULL;
		if (to) {
			if ((rc = json_want(j, &v, JSON_STRING, "a string")) ||
			    (rc = json_text(j, &v, to)))
				return rc;
		} else if (json_is(&k, "id")) {
			if ((rc = json_i64(j, &v, &id)))
				return rc;
			if (id < 0)
				return json_fail_at(j, &v, "cost centre id %lld is negative",
						    (long long)id);
		} else {
			if (json_is(&k, "is_caf") && v.kind == JSON_TRUE)
				s->cafs++;
			if ((rc = json_skip(j, &v)))
				return rc;
		}
	}
	if (rc)
		return rc;
	if (k.kind != JSON_END)
		return json_fail(j, NULL, "the cost centre is cut short");
	if (id < 0)
		return json_fail(j, at, "a cost centre without an 'id'");
	if (u64map_get(&s->ids, (uint64_t)id) != UINT32_MAX)
		return json_fail(j, at, "cost centre id %lld given twice", (long long)id);
	struct pv_builder *b = s->b;
	pv_str_ix name = builder_strf(b, "%s.%s", sbuf_str(&s->module), sbuf_str(&s->label));
	pv_module_ix mod = s->module.len ? builder_module(b, builder_cstr(b, sbuf_str(&s->module)),
							  0, PV_MODULE_UNKNOWN)
					 : PV_NONE;
	/* "Main.hs:8:1-26", "Main.hs:(8,1)-(9,20)"; "<built-in>" and the like are none */
	pv_source_ix src = PV_NONE;
	uint32_t line = 0, col = 0;
	const char *l = sbuf_str(&s->loc), *le = l + s->loc.len;
	if (s->loc.len && *l != '<') {
		const char *c = le;
		for (const char *p = l; p < le; p++)
			if (*p == ':' && p + 1 < le && (text_is_digit(p[1]) || p[1] == '(')) {
				c = p;
				break;
			}
		src = builder_source(b, builder_str(b, l, (size_t)(c - l)));
		const char *p = c < le ? c + 1 : le;
		if (p < le && *p == '(')
			p++;
		for (; p < le && text_is_digit(*p) && line < 100000000; p++)
			line = line * 10 + (uint32_t)(*p - '0');
		if (p < le && (*p == ':' || *p == ','))
			for (p++; p < le && text_is_digit(*p) && col < 100000000; p++)
				col = col * 10 + (uint32_t)(*p - '0');
	}
	pv_frame_ix *f = vec_push(&s->centres, sizeof(*f));
	if (!f || u64map_put(&s->ids, (uint64_t)id, s->centres.len - 1))
		return json_fail(j, NULL, "out of memory");
	*f = builder_func_frame(b, builder_func_at(b, name, mod, src, line, col));
	return 0;
}

/* The node whose '{' is t, at depth, and its children, in pre-order into nodes. */
static int read_node(struct ghc *s, const struct json_tok *t, uint32_t depth)
{
	struct json *j = &s->j;
	int rc;
	if ((rc = json_want(j, t, JSON_OBJECT, "a profile node ('{')")))
		return rc;
	uint32_t me = s->nodes.len;
	struct gnode *n = vec_push(&s->nodes, sizeof(*n));
	if (!n)
		return json_fail(j, NULL, "out of memory");
	*n = (struct gnode){.depth = depth, .id = -1, .at = t->s};
	struct json_tok k, v;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		int64_t *to = json_is(&k, "id")	       ? &VEC(s->nodes, struct gnode)[me].id
			      : json_is(&k, "entries") ? &VEC(s->nodes, struct gnode)[me].entries
			      : json_is(&k, "alloc")   ? &VEC(s->nodes, struct gnode)[me].alloc
			      : json_is(&k, "ticks")   ? &VEC(s->nodes, struct gnode)[me].ticks
						       : NULL;
		if (to) {
			if ((rc = json_i64(j, &v, to)))
				return rc;
			if (*to < 0)
				return json_fail_at(j, &v, "'%.*s' is negative", (int)k.len, k.s);
		} else if (json_is(&k, "children")) {
			if ((rc = json_want(j, &v, JSON_ARRAY, "an array of nodes")))
				return rc;
			struct json_tok c;
			while (!(rc = json_next(j, &c)) && c.kind != JSON_END)
				if ((rc = read_node(s, &c, depth + 1)))
					return rc;
			if (rc)
				return rc;
		} else if ((rc = json_skip(j, &v))) {
			return rc;
		}
	}
	if (rc)
		return rc;
	if (k.kind != JSON_END)
		return json_fail(j, NULL, "the profile node is cut short");
	if (VEC(s->nodes, struct gnode)[me].id < 0)
		return json_fail(j, t->s, "a profile node without an 'id'");
	return 0;
}

static int read_top(struct ghc *s)
{
	struct json *j = &s->j;
	struct json_tok k, v;
	int rc = json_next(j, &k);
	if (rc)
		return rc;
	if ((rc = json_want(j, &k, JSON_OBJECT, "a GHC profile object ('{')")))
		return rc;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		if (json_is(&k, "program")) {
			if ((rc = json_want(j, &v, JSON_STRING, "the program's name")) ||
			    (rc = json_text(j, &v, &s->program)))
				return rc;
		} else if (json_is(&k, "tick_interval")) {
			if ((rc = json_i64(j, &v, &s->tick_interval)))
				return rc;
			if (s->tick_interval < 0 || s->tick_interval > 1000000000)
				return json_fail_at(j, &v, "tick_interval %lld out of range",
						    (long long)s->tick_interval);
		} else if (json_is(&k, "cost_centres")) {
			if ((rc = json_want(j, &v, JSON_ARRAY, "an array of cost centres")))
				return rc;
			struct json_tok c;
			while (!(rc = json_next(j, &c)) && c.kind != JSON_END)
				if ((rc = read_centre(s, &c)))
					return rc;
			if (rc)
				return rc;
			s->has_centres = true;
		} else if (json_is(&k, "profile")) {
			if ((rc = read_node(s, &v, 0)))
				return rc;
			s->has_profile = true;
		} else {
			if (json_is(&k, "arguments") || json_is(&k, "rts_arguments") ||
			    json_is(&k, "end_time"))
				s->dropped++;
			if ((rc = json_skip(j, &v)))
				return rc;
		}
	}
	if (rc)
		return rc;
	if (k.kind != JSON_END)
		return json_fail(j, NULL, "the GHC profile object is cut short");
	if (!s->has_centres || !s->has_profile)
		return json_fail(j, NULL,
				 "a GHC profile needs 'cost_centres' and 'profile' (%s missing)",
				 !s->has_centres ? "'cost_centres'" : "'profile'");
	return 0;
}

static int build(struct ghc *s)
{
	struct pv_builder *b = s->b;
	struct json *j = &s->j;
	enum { W_TIME, W_BYTES, W_ENTRIES, NR_W };
	builder_metric(b, builder_cstr(b, "time"), PV_UNIT_NS);
	builder_metric(b, builder_cstr(b, "bytes"), PV_UNIT_BYTES);
	builder_metric(b, builder_cstr(b, "entries"), PV_UNIT_COUNT);
	b->p->meta.default_metric = W_TIME;
	b->p->meta.product = builder_cstr(b, "GHC");
	int64_t tick_ns = s->tick_interval * 1000;
	b->p->meta.interval_ns = tick_ns;
	pv_thread_ix th =
	    builder_thread(b, builder_cstr(b, s->program.len ? sbuf_str(&s->program) : "haskell"),
			   PV_ID_NONE, PV_ID_NONE, 0);
	/* a stack and at most a sample per node: the tables made once, not grown */
	builder_stacks_reserve(b, s->nodes.len);
	builder_samples_room(b, s->nodes.len);
	const struct gnode *n = VEC(s->nodes, struct gnode);
	const pv_frame_ix *cf = VEC(s->centres, pv_frame_ix);
	/* open nodes by depth: their stacks and rows, emitted after their children */
	struct vec open = {0};
	int rc = 0;
	for (uint32_t i = 0; i <= s->nodes.len && !b->status; i++) {
		uint32_t d = i < s->nodes.len ? n[i].depth : 0;
		while (open.len / 2 > d) { /* pairs: stack, node */
			uint32_t k = VEC(open, uint32_t)[open.len - 1];
			pv_stack_ix st = (pv_stack_ix)VEC(open, uint32_t)[open.len - 2];
			open.len -= 2;
			int64_t w[NR_W] = {0, n[k].alloc, n[k].entries};
			if (__builtin_mul_overflow(n[k].ticks, tick_ns, &w[W_TIME])) {
				rc = json_fail(j, n[k].at, "ticks x tick_interval out of range");
				goto out;
			}
			if (w[W_TIME] || w[W_BYTES] || w[W_ENTRIES])
				builder_sample(b, th, st, PV_TIME_NONE, w);
		}
		if (i == s->nodes.len)
			break;
		uint32_t row = u64map_get(&s->ids, (uint64_t)n[i].id);
		if (row == UINT32_MAX) {
			rc = json_fail(j, n[i].at, "cost centre %lld is not in 'cost_centres'",
				       (long long)n[i].id);
			goto out;
		}
		pv_stack_ix prefix = d ? (pv_stack_ix)VEC(open, uint32_t)[open.len - 2] : PV_NONE;
		uint32_t *o = vec_push(&open, sizeof(uint32_t));
		uint32_t *o2 = o ? vec_push(&open, sizeof(uint32_t)) : NULL;
		if (!o2) {
			rc = json_fail(j, NULL, "out of memory");
			goto out;
		}
		VEC(open, uint32_t)[open.len - 2] = builder_stack(b, prefix, cf[row]);
		VEC(open, uint32_t)[open.len - 1] = i;
	}
	builder_lossy(b, s->cafs, "CAF flags of cost centres");
	builder_lossy(b, s->dropped, "the program's arguments, RTS arguments and end time");
out:
	vec_free(&open);
	return rc;
}

/* ---- probe and import ---- */

static int probe(const struct pv_input *in)
{
	if (probe_first_char(in) != '{')
		return 0;
	size_t n = in->len < PROBE_WINDOW ? in->len : PROBE_WINDOW;
	return probe_has(in, n, "\"rts_arguments\"") && probe_has(in, n, "\"initial_capabilities\"")
		   ? 85
		   : 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct ghc *s = pv_calloc(1, sizeof(*s));
	if (!s)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	s->b = b;
	s->in = in;
	s->err = err;
	s->tick_interval = 1000;
	json_init(&s->j, in, err);
	int rc = read_top(s);
	if (!rc)
		rc = build(s);
	json_release(&s->j);
	vec_free(&s->nodes);
	vec_free(&s->centres);
	u64map_release(&s->ids);
	sbuf_release(&s->program);
	sbuf_release(&s->label);
	sbuf_release(&s->module);
	sbuf_release(&s->loc);
	pv_free(s);
	return rc;
}

const struct importer importer_ghc = {
    .name = "ghc",
    .description = "GHC JSON cost-centre profile (+RTS -pj)",
    .probe = probe,
    .import = import,
};
