/*
 * firefox_processed_build.c - a Firefox processed profile's temporary columns into the model:
 * libs and resources as modules, funcs, frames and stacks in index order, then per thread its
 * samples and raw markers (firefox_processed.c tells the format).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "import/firefox/firefox.h"
#include "import/firefox/firefox_processed.h"
#include "import/importer.h"
#include "import/json.h"

static int check_nonnull(struct fxp *x, const struct ucol *c, const char *name)
{
	if (!c->null_pos)
		return 0;
	struct json_tok t = fxp_row_tok(x, c->at, c->null_pos - 1);
	return json_fail(&x->j, t.s, "expected an index for %s, found null or -1", name);
}

/* Row count of a table: its length key, else its main column; every column must match. */
static int table_rows(struct fxp *x, const char *table_at, int64_t length, const struct ucol *main,
		      const char *main_name, uint32_t *n)
{
	*n = 0;
	if (!table_at)
		return 0;
	if (!main->at && length > 0)
		return json_fail(&x->j, table_at, "expected a %s column in this table", main_name);
	*n = main->at ? main->len : 0;
	if (length >= 0 && main->at && (uint64_t)length != main->len)
		return json_fail(&x->j, main->at,
				 "expected %lld values for %s (its length), found %u",
				 (long long)length, main_name, main->len);
	return 0;
}

static int check_len(struct fxp *x, const char *at, uint32_t len, uint32_t n, const char *name)
{
	if (!at || len == n)
		return 0;
	return json_fail(&x->j, at, "expected %u values for %s (one per row), found %u", n, name,
			 len);
}

static pv_module_ix lib_module(struct fxp *x, uint32_t lib)
{
	if (lib >= x->nr_libs)
		return PV_NONE;
	if (!x->lib_module) {
		x->lib_module = pv_malloc((size_t)x->nr_libs * sizeof(*x->lib_module));
		if (!x->lib_module) {
			x->b->status = PV_ENOMEM;
			return PV_NONE;
		}
		for (uint32_t i = 0; i < x->nr_libs; i++)
			x->lib_module[i] = PV_NONE;
	}
	if (x->lib_module[lib] == PV_NONE)
		x->lib_module[lib] =
		    builder_module(x->b, x->lib_name[lib], x->lib_path[lib], PV_MODULE_LIBRARY);
	return x->lib_module[lib];
}

static pv_source_ix source_of(struct fxp *x, uint32_t src)
{
	const struct strs *S = &x->shared.str;
	if (src >= x->src_file.len)
		return PV_NONE;
	if (!x->src_map) {
		x->src_map = pv_malloc((size_t)x->src_file.len * sizeof(*x->src_map));
		if (!x->src_map) {
			x->b->status = PV_ENOMEM;
			return PV_NONE;
		}
		for (uint32_t i = 0; i < x->src_file.len; i++)
			x->src_map[i] = PV_NONE;
	}
	uint32_t f = x->src_file.v[src];
	if (x->src_map[src] == PV_NONE && f != PV_NONE && f < S->len)
		x->src_map[src] = builder_source(x->b, S->ix[f]);
	return x->src_map[src];
}

static enum pv_module_kind resource_kind(uint32_t type)
{
	switch (type) {
	case 1: return PV_MODULE_LIBRARY;
	case 2:
	case 3:
	case 4:
	case 5: return PV_MODULE_RESOURCE;
	default: return PV_MODULE_UNKNOWN;
	}
}

/* The rows of each table, checked against each other and against the indices they hold. */
struct tsize {
	uint32_t ns, nf, nu, nr;
};

static int check_tables(struct fxp *x, struct tables *T, const struct strs *S, struct tsize *z)
{
	uint32_t ns, nf, nu, nr;
	int rc;
	if ((rc = table_rows(x, T->stack_at, T->stack_n, &T->stack_frame, "stackTable.frame",
			     &ns)) ||
	    (rc = table_rows(x, T->frame_at, T->frame_n, &T->frame_func, "frameTable.func", &nf)) ||
	    (rc = table_rows(x, T->func_at, T->func_n, &T->func_name, "funcTable.name", &nu)) ||
	    (rc = table_rows(x, T->res_at, T->res_n, &T->res_name, "resourceTable.name", &nr)))
		return rc;
	if (ns && !T->stack_prefix.at)
		return json_fail(&x->j, T->stack_at,
				 "expected a prefix or prefixOffset column in this stackTable");
	if ((rc = check_len(x, T->stack_prefix.at, T->stack_prefix.len, ns, "stackTable.prefix")) ||
	    (rc = check_len(x, T->stack_cat.at, T->stack_cat.len, ns, "stackTable.category")) ||
	    (rc = check_len(x, T->frame_line.at, T->frame_line.len, nf, "frameTable.line")) ||
	    (rc = check_len(x, T->frame_col.at, T->frame_col.len, nf, "frameTable.column")) ||
	    (rc = check_len(x, T->frame_cat.at, T->frame_cat.len, nf, "frameTable.category")) ||
	    (rc = check_len(x, T->frame_sub.at, T->frame_sub.len, nf, "frameTable.subcategory")) ||
	    (rc = check_len(x, T->frame_inl.at, T->frame_inl.len, nf, "frameTable.inlineDepth")) ||
	    (rc = check_len(x, T->frame_lib.at, T->frame_lib.len, nf, "frameTable.lib")) ||
	    (rc = check_len(x, T->frame_addr.at, T->frame_addr.len, nf, "frameTable.address")) ||
	    (rc = check_len(x, T->func_res.at, T->func_res.len, nu, "funcTable.resource")) ||
	    (rc = check_len(x, T->func_src.at, T->func_src.len, nu, "funcTable.source")) ||
	    (rc = check_len(x, T->func_line.at, T->func_line.len, nu, "funcTable.lineNumber")) ||
	    (rc = check_len(x, T->func_col.at, T->func_col.len, nu, "funcTable.columnNumber")) ||
	    (rc = check_len(x, T->res_host.at, T->res_host.len, nr, "resourceTable.host")) ||
	    (rc = check_len(x, T->res_lib.at, T->res_lib.len, nr, "resourceTable.lib")) ||
	    (rc = check_len(x, T->res_type.at, T->res_type.len, nr, "resourceTable.type")))
		return rc;
	if ((rc = check_nonnull(x, &T->stack_frame, "stackTable.frame")) ||
	    (rc = check_nonnull(x, &T->frame_func, "frameTable.func")))
		return rc;
	uint32_t nsrc = T->func_src_is_str ? S->len : x->src_file.len;
	if ((rc = fxp_check_ix(x, &T->stack_frame, nf, "a frameTable", "stackTable.frame")) ||
	    (rc = fxp_check_ix(x, &T->frame_func, nu, "a funcTable", "frameTable.func")) ||
	    (rc = fxp_check_ix(x, &T->frame_cat, x->nr_cat, "a category", "frameTable.category")) ||
	    (rc = fxp_check_ix(x, &T->frame_lib, x->nr_libs, "a lib", "frameTable.lib")) ||
	    (rc = fxp_check_ix(x, &T->func_name, S->len, "a string", "funcTable.name")) ||
	    (rc = fxp_check_ix(x, &T->func_res, nr, "a resourceTable", "funcTable.resource")) ||
	    (rc = fxp_check_ix(x, &T->func_src, nsrc, T->func_src_is_str ? "a string" : "a source",
			       T->func_src_is_str ? "funcTable.fileName" : "funcTable.source")) ||
	    (rc = fxp_check_ix(x, &T->res_name, S->len, "a string", "resourceTable.name")) ||
	    (rc = fxp_check_ix(x, &T->res_host, S->len, "a string", "resourceTable.host")) ||
	    (rc = fxp_check_ix(x, &T->res_lib, x->nr_libs, "a lib", "resourceTable.lib")))
		return rc;
	z->ns = ns;
	z->nf = nf;
	z->nu = nu;
	z->nr = nr;
	return 0;
}

/* What build_tables maps a table's rows to while it interns them. */
struct tmaps {
	uint32_t *res_lib, *func_lib;
	pv_module_ix *res_mod;
	pv_func_ix *func_map;
	pv_frame_ix *frame_map;
};

/* The module of each resource: its lib (its own column, v69 and older, or its frames', v70). */
static void build_modules(struct fxp *x, struct tables *T, const struct strs *S,
			  const struct tsize *z, struct tmaps *m)
{
	struct pv_builder *b = x->b;
	uint32_t nf = z->nf, nu = z->nu, nr = z->nr;
	uint32_t *res_lib = m->res_lib, *func_lib = m->func_lib;
	for (uint32_t r = 0; r < nr; r++)
		res_lib[r] = T->res_lib.at ? T->res_lib.v[r] : PV_NONE;
	for (uint32_t f = 0; f < nu; f++)
		func_lib[f] = PV_NONE;
	if (T->frame_lib.at) {
		for (uint32_t i = 0; i < nf; i++) {
			uint32_t lib = T->frame_lib.v[i], fu = T->frame_func.v[i];
			if (lib == PV_NONE)
				continue;
			uint32_t r = T->func_res.at ? T->func_res.v[fu] : PV_NONE;
			if (r != PV_NONE) {
				if (res_lib[r] == PV_NONE)
					res_lib[r] = lib;
			} else if (func_lib[fu] == PV_NONE) {
				func_lib[fu] = lib;
			}
		}
	}
	for (uint32_t r = 0; r < nr; r++) {
		uint32_t lib = res_lib[r], host = T->res_host.at ? T->res_host.v[r] : PV_NONE;
		enum pv_module_kind kind = resource_kind(T->res_type.at ? T->res_type.v[r] : 0);
		pv_str_ix name = T->res_name.v[r] == PV_NONE ? 0 : S->ix[T->res_name.v[r]];
		pv_str_ix path = host == PV_NONE ? 0 : S->ix[host];
		if (lib != PV_NONE) {
			if (x->lib_name[lib])
				name = x->lib_name[lib];
			path = x->lib_path[lib];
		}
		m->res_mod[r] = builder_module(b, name, path, kind);
	}
}

static void build_funcs(struct fxp *x, struct tables *T, const struct strs *S,
			const struct tsize *z, struct tmaps *m)
{
	struct pv_builder *b = x->b;
	for (uint32_t f = 0; f < z->nu; f++) {
		uint32_t r = T->func_res.at ? T->func_res.v[f] : PV_NONE;
		uint32_t src = T->func_src.at ? T->func_src.v[f] : PV_NONE;
		uint32_t line = T->func_line.at ? T->func_line.v[f] : PV_NONE;
		uint32_t col = T->func_col.at ? T->func_col.v[f] : PV_NONE;
		uint32_t name = T->func_name.v[f];
		pv_module_ix mod = r != PV_NONE ? m->res_mod[r] : lib_module(x, m->func_lib[f]);
		pv_source_ix so = PV_NONE;
		if (src != PV_NONE)
			so = T->func_src_is_str ? builder_source(b, S->ix[src]) : source_of(x, src);
		m->func_map[f] =
		    builder_func_at(b, name == PV_NONE ? 0 : S->ix[name], mod, so,
				    line == PV_NONE ? 0 : line, col == PV_NONE ? 0 : col);
	}
}

static void build_frames(struct fxp *x, struct tables *T, const struct tsize *z, struct tmaps *m)
{
	struct pv_builder *b = x->b;
	builder_frames_reserve(b, z->nf);
	for (uint32_t i = 0; i < z->nf; i++) {
		uint32_t cat = T->frame_cat.at ? T->frame_cat.v[i] : PV_NONE;
		uint32_t sub = T->frame_sub.at ? T->frame_sub.v[i] : PV_NONE;
		uint32_t line = T->frame_line.at ? T->frame_line.v[i] : PV_NONE;
		uint32_t col = T->frame_col.at ? T->frame_col.v[i] : PV_NONE;
		uint32_t inl = T->frame_inl.at ? T->frame_inl.v[i] : PV_NONE;
		int64_t addr = T->frame_addr.at ? T->frame_addr.v[i] : PV_TIME_NONE;
		/* against the profile's category: two of the file's may share a name, hence one row
		 */
		if (cat == PV_NONE || sub == PV_NONE) {
			sub = 0;
		} else if (sub >= b->p->categories.sub_len[x->cat_map[cat]] && sub != 0) {
			x->subcat_clamped++;
			sub = 0;
		}
		struct frame_key key = {
		    .func = m->func_map[T->frame_func.v[i]],
		    .line = line == PV_NONE ? 0 : line,
		    .column = col == PV_NONE ? 0 : col,
		    .addr = addr == PV_TIME_NONE ? PV_ADDR_NONE : (uint64_t)addr,
		    .inline_depth = inl == PV_NONE     ? 0
				    : inl > UINT16_MAX ? UINT16_MAX
						       : (uint16_t)inl,
		    .category = cat == PV_NONE ? PV_NONE : x->cat_map[cat],
		    .subcategory = (uint16_t)(sub > UINT16_MAX ? 0 : sub),
		};
		m->frame_map[i] = builder_frame(b, &key);
	}
}

/* Stacks in index order (a prefix always comes before its stack, checked while reading). */
static int build_stacks(struct fxp *x, struct tables *T, uint32_t ns, const pv_frame_ix *frame_map)
{
	struct pv_builder *b = x->b;
	uint32_t *eff = NULL;
	builder_stacks_reserve(b, ns);
	/* v52 and older: compare the stack's own category with the one its frames give */
	if (T->stack_cat.at && ns) {
		eff = pv_malloc((size_t)ns * sizeof(*eff));
		if (!eff)
			return fxp_oom(x);
	}
	for (uint32_t i = 0; i < ns; i++) {
		uint32_t p = T->stack_prefix.v[i], fr = T->stack_frame.v[i];
		T->stack_map[i] =
		    builder_stack(b, p == PV_NONE ? PV_NONE : T->stack_map[p], frame_map[fr]);
		if (eff) {
			uint32_t c = T->frame_cat.at ? T->frame_cat.v[fr] : PV_NONE;
			if (c == PV_NONE)
				c = p != PV_NONE ? eff[p] : x->default_cat;
			eff[i] = c;
			/* not kept, so an index past the categories only counts as a difference */
			if (T->stack_cat.v[i] != PV_NONE && T->stack_cat.v[i] != c)
				x->stack_cat_differ++;
		}
	}
	pv_free(eff);
	return 0;
}

/*
 * Interns one table set into the profile: resources and libs as modules, funcs, frames, then
 * stacks in index order. Leaves T->stack_map and frees the other columns.
 */
static int build_tables(struct fxp *x, struct tables *T, const struct strs *S)
{
	struct tsize z = {0};
	struct tmaps m = {0};
	int rc = check_tables(x, T, S, &z);
	if (rc)
		return rc;
	uint32_t ns = z.ns, nf = z.nf, nu = z.nu, nr = z.nr;
	m.res_mod = pv_malloc((size_t)(nr ? nr : 1) * sizeof(*m.res_mod));
	m.res_lib = pv_malloc((size_t)(nr ? nr : 1) * sizeof(*m.res_lib));
	m.func_lib = pv_malloc((size_t)(nu ? nu : 1) * sizeof(*m.func_lib));
	m.func_map = pv_malloc((size_t)(nu ? nu : 1) * sizeof(*m.func_map));
	m.frame_map = pv_malloc((size_t)(nf ? nf : 1) * sizeof(*m.frame_map));
	T->stack_map = pv_malloc((size_t)(ns ? ns : 1) * sizeof(*T->stack_map));
	if (!m.res_mod || !m.res_lib || !m.func_lib || !m.func_map || !m.frame_map ||
	    !T->stack_map) {
		rc = fxp_oom(x);
	} else {
		T->nr_stack = ns;
		build_modules(x, T, S, &z, &m);
		build_funcs(x, T, S, &z, &m);
		build_frames(x, T, &z, &m);
		rc = build_stacks(x, T, ns, m.frame_map);
	}
	pv_free(m.res_mod);
	pv_free(m.res_lib);
	pv_free(m.func_lib);
	pv_free(m.func_map);
	pv_free(m.frame_map);
	fxp_tables_free_columns(T);
	return rc;
}

/*
 * Metrics are made on first use, in thread order, so the first thread with samples gives the
 * default metric whether threads are built while reading or at the end.
 */
static pv_metric_ix weight_metric(struct fxp *x, enum wtype w)
{
	static const char *const names[NR_WTYPES] = {"samples", "time", "bytes"};
	static const enum pv_unit units[NR_WTYPES] = {PV_UNIT_COUNT, PV_UNIT_NS, PV_UNIT_BYTES};
	if (x->wmetric[w] == PV_NONE)
		x->wmetric[w] = builder_metric(x->b, builder_cstr(x->b, names[w]), units[w]);
	return x->wmetric[w];
}

static pv_metric_ix cpu_metric(struct fxp *x)
{
	if (x->cpu_metric == PV_NONE) {
		enum pv_unit u = PV_UNIT_OTHER;
		if (x->cpu_unit == CPU_NS || x->cpu_unit == CPU_US)
			u = PV_UNIT_NS;
		else if (x->cpu_unit == CPU_CYCLES)
			u = PV_UNIT_CYCLES;
		x->cpu_metric = builder_metric(x->b, builder_cstr(x->b, "cpu-delta"), u);
	}
	return x->cpu_metric;
}

static int64_t div_round(int64_t v, int64_t d)
{
	return v >= 0 ? (v + d / 2) / d : -((-v + d / 2) / d);
}

static int build_samples(struct fxp *x, struct thread *th, pv_thread_ix ti, const struct tables *T)
{
	struct pv_builder *b = x->b;
	uint32_t n = th->s_stack.len;
	int rc;
	if (!th->samples_at)
		return 0;
	fxp_tail_sync(x, th);
	if (!th->s_stack.at && th->s_n > 0)
		return json_fail(&x->j, th->samples_at, "expected a stack column in these samples");
	if (th->s_n >= 0 && th->s_stack.at && (uint64_t)th->s_n != n)
		return json_fail(&x->j, th->s_stack.at,
				 "expected %lld values for samples.stack (its length), found %u",
				 (long long)th->s_n, n);
	if (n && !th->s_time.at)
		return json_fail(&x->j, th->samples_at,
				 "expected a time or timeDeltas column in these samples");
	if ((rc = check_len(x, th->s_time.at, th->s_time.len, n, "samples.time")) ||
	    (rc = check_len(x, th->s_weight.at, th->s_weight.len, n, "samples.weight")) ||
	    (rc = check_len(x, th->s_cpu.at, th->s_cpu.len, n, "samples.threadCPUDelta")) ||
	    (rc = check_len(x, th->s_delay.at, th->s_delay.len, n,
			    th->s_delay_event ? "samples.eventDelay" : "samples.responsiveness")) ||
	    (rc = fxp_check_ix(x, &th->s_stack, T->nr_stack, "a stackTable", "samples.stack")))
		return rc;
	if (n == 0)
		return 0;
	pv_metric_ix wm = weight_metric(x, th->wtype);
	pv_metric_ix cm = th->s_cpu.len ? cpu_metric(x) : PV_NONE;
	if (wm == PV_NONE || (th->s_cpu.len && cm == PV_NONE))
		return b->status ? b->status : fxp_oom(x);
	/* the file's stack indices become the profile's, in place */
	uint32_t *sv = th->s_stack.v;
	const pv_stack_ix *map = T->stack_map;
	for (uint32_t i = 0; i < n; i++)
		sv[i] = sv[i] == PV_NONE ? PV_NONE : map[sv[i]];
	uint32_t first = b->p->samples.len;
	builder_samples_commit(b, ti, th->s_base, n);
	if (b->status)
		return b->status;
	/* weights: the thread's type from its column (1 per sample without), the CPU delta, 0
	 * for the other metrics */
	int64_t *wv = th->s_weight.at ? th->s_weight.v : NULL;
	for (uint32_t i = 0; wv && i < n; i++) {
		if (wv[i] ==
		    PV_TIME_NONE) { /* no weight: one unit of the type (1 ms for tracing-ms) */
			wv[i] = th->wtype == W_TRACING_MS ? 1000000 : 1;
		} else if (th->wtype != W_TRACING_MS) {
			int64_t r = div_round(wv[i], 1000000);
			x->weight_rounded += r * 1000000 != wv[i];
			wv[i] = r;
		}
	}
	int64_t *dv = th->s_delay.at ? builder_samples_event_delay(b) : NULL;
	if (th->s_delay.at && !dv)
		return b->status;
	if (dv)
		memcpy(dv + first, th->s_delay.v, (size_t)n * sizeof(*dv));
	int64_t *cv = cm != PV_NONE ? th->s_cpu.v : NULL;
	for (uint32_t i = 0; cv && i < n; i++) {
		int64_t c = i > 0 ? cv[i] : 0;
		if (c == PV_TIME_NONE)
			c = 0;
		else if (x->cpu_unit != CPU_US)
			c = div_round(c, 1000);
		cv[i] = c;
	}
	for (pv_metric_ix m = 0; m < b->p->metrics.len; m++) {
		if (m == wm)
			ff_set_weights(b, m, first, n, wv, 1,
				       th->wtype == W_TRACING_MS ? 1000000 : 1);
		else if (m == cm)
			ff_set_weights(b, m, first, n, cv, 1, 0);
		else
			ff_set_weights(b, m, first, n, NULL, 1, 0);
	}
	return b->status;
}

/* ---- marker payloads ---- */

/* Appends s[0..n) to the capture buffer. */
static int cap_put(struct fxp *x, const char *s, size_t n)
{
	return sbuf_put(&x->cap, s, n) ? fxp_oom(x) : 0;
}

/*
 * s as a JSON string literal appended to the capture buffer: only '"', '\\' and control
 * characters escaped, the last as \u00XX (not sbuf_json_string's \n: the text is kept as is).
 */
static int cap_quote(struct fxp *x, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	if (sbuf_grow(&x->cap, 6 * n + 2))
		return fxp_oom(x);
	char *o = x->cap.buf + x->cap.len;
	*o++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20) {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
		} else {
			*o++ = (char)c;
		}
	}
	*o++ = '"';
	sbuf_setlen(&x->cap, (size_t)(o - x->cap.buf));
	return 0;
}

/* Whether key k of a payload of type (t, tn) holds a string index. */
static bool is_strfield(const struct fxp *x, const char *t, size_t tn, const char *k, size_t kn)
{
	const struct pv_profile *p = x->b->p;
	if (tn == 20 && memcmp(t, "CompositorScreenshot", 20) == 0 && kn == 3 &&
	    memcmp(k, "url", 3) == 0)
		return true; /* no schema says so (upstream #5303): hard-wired there too */
	for (uint32_t i = 0; i < x->nr_strfields; i++) {
		pv_str_ix a = x->strfields[i].type, b = x->strfields[i].key;
		if (p->strings.size[a] == tn && memcmp(p->strings.ptr[a], t, tn) == 0 &&
		    p->strings.size[b] == kn && memcmp(p->strings.ptr[b], k, kn) == 0)
			return true;
	}
	return false;
}

/* Whether payloads of type (t, tn) have string-index fields at all. */
static bool type_has_strfields(const struct fxp *x, const char *t, size_t tn)
{
	const struct pv_profile *p = x->b->p;
	if (tn == 20 && memcmp(t, "CompositorScreenshot", 20) == 0)
		return true;
	for (uint32_t i = 0; i < x->nr_strfields; i++) {
		pv_str_ix a = x->strfields[i].type;
		if (p->strings.size[a] == tn && memcmp(p->strings.ptr[a], t, tn) == 0)
			return true;
	}
	return false;
}

/*
 * A payload whose schema says some of its fields hold string-array indexes, with each such index
 * replaced by its string, so the model's payloads stand alone (the Gecko importer does the same
 * with its string tables). Returns the payload to keep: the same one when nothing changed.
 */
static pv_str_ix resolve_strings(struct fxp *x, const struct strs *S, pv_str_ix payload)
{
	const struct pv_profile *p = x->b->p;
	const char *text = p->strings.ptr[payload];
	size_t len = p->strings.size[payload];
	if (!x->nr_strfields && !memmem(text, len, "CompositorScreenshot", 20))
		return payload;
	struct pv_input sin;
	struct pv_error serr;
	struct json sj;
	struct json_tok o, k, v;
	/* the type first: the fields to replace depend on it, wherever it comes */
	const char *type = NULL;
	size_t tn = 0;
	ff_sub_json(&sj, &sin, &serr, x->in->name, text, len);
	bool ok = !json_next(&sj, &o) && o.kind == JSON_OBJECT;
	while (ok && !json_next_member(&sj, &k, &v) && k.kind == JSON_KEY) {
		if (json_is(&k, "type") && v.kind == JSON_STRING && !v.escaped) {
			type = v.s;
			tn = v.len;
			break;
		}
		ok = !json_skip(&sj, &v);
	}
	json_release(&sj);
	if (!type || !type_has_strfields(x, type, tn))
		return payload;
	/* copied member by member (keys as written), the index values replaced */
	sbuf_reset(&x->cap);
	bool changed = false;
	int rc = cap_put(x, "{", 1);
	ff_sub_json(&sj, &sin, &serr, x->in->name, text, len);
	if (!rc)
		rc = json_next(&sj, &o);
	while (!rc && !(rc = json_next_member(&sj, &k, &v)) && k.kind == JSON_KEY) {
		bool comma = changed || x->cap.len > 1 || x->cap.buf[x->cap.len - 1] != '{';
		if ((comma && (rc = cap_put(x, ",", 1))) || (rc = cap_put(x, "\"", 1)) ||
		    (rc = cap_put(x, k.s, k.len)) || (rc = cap_put(x, "\":", 2)))
			break;
		int64_t ix;
		if (v.kind == JSON_NUMBER && !k.escaped && is_strfield(x, type, tn, k.s, k.len)) {
			if (small_int(&v, &ix) && ix >= 0 && ix < (int64_t)S->len) {
				pv_str_ix s = S->ix[ix];
				rc = cap_quote(x, p->strings.ptr[s], p->strings.size[s]);
				changed = true;
				continue;
			}
			x->str_ix_bad++;
		}
		rc = json_capture(&sj, &v, &x->cap);
	}
	json_release(&sj);
	if (rc || !changed || cap_put(x, "}", 1))
		return payload;
	pv_str_ix r = builder_str(x->b, x->cap.buf, x->cap.len);
	return r == PV_NONE ? payload : r;
}

static int build_markers(struct fxp *x, struct thread *th, pv_thread_ix ti, const struct tables *T,
			 const struct strs *S)
{
	uint32_t n = th->m_name.len;
	int rc;
	if (!th->markers_at)
		return 0;
	if (!th->m_name.at && th->m_n > 0)
		return json_fail(&x->j, th->markers_at, "expected a name column in these markers");
	if (th->m_n >= 0 && th->m_name.at && (uint64_t)th->m_n != n)
		return json_fail(&x->j, th->m_name.at,
				 "expected %lld values for markers.name (its length), found %u",
				 (long long)th->m_n, n);
	if ((rc = check_len(x, th->m_start.at, th->m_start.len, n, "markers.startTime")) ||
	    (rc = check_len(x, th->m_end.at, th->m_end.len, n, "markers.endTime")) ||
	    (rc = check_len(x, th->m_phase.at, th->m_phase.len, n, "markers.phase")) ||
	    (rc = check_len(x, th->m_cat.at, th->m_cat.len, n, "markers.category")) ||
	    (rc = check_len(x, th->m_payload.at, th->m_payload.len, n, "markers.data")) ||
	    (rc = fxp_check_ix(x, &th->m_name, S->len, "a string", "markers.name")) ||
	    (rc = fxp_check_ix(x, &th->m_cat, x->nr_cat, "a category", "markers.category")))
		return rc;
	if (th->m_phase.max_pos && th->m_phase.max > 3)
		return json_fail(&x->j, fxp_row_tok(x, th->m_phase.at, th->m_phase.max_pos - 1).s,
				 "expected a marker phase from 0 to 3, found %u", th->m_phase.max);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t name = th->m_name.v[i];
		uint32_t cat = th->m_cat.at ? th->m_cat.v[i] : PV_NONE;
		int64_t start = th->m_start.at ? th->m_start.v[i] : PV_TIME_NONE;
		int64_t end = th->m_end.at ? th->m_end.v[i] : PV_TIME_NONE;
		uint32_t phase = th->m_phase.at ? th->m_phase.v[i] : PV_NONE;
		/* before phases (and for a null one): an end time makes an interval */
		if (phase == PV_NONE)
			phase = end == PV_TIME_NONE ? PV_PHASE_INSTANT : PV_PHASE_INTERVAL;
		/* unused slots may hold anything (stale values in real files): keep only used ones
		 */
		if (phase == PV_PHASE_INSTANT || phase == PV_PHASE_START)
			end = PV_TIME_NONE;
		else if (phase == PV_PHASE_END)
			start = PV_TIME_NONE;
		else if (start != PV_TIME_NONE && end != PV_TIME_NONE && end < start) {
			/* the model wants intervals forward; one bad row should not sink the file
			 */
			end = start;
			x->ends_clamped++;
		}
		struct raw_marker m = {
		    .name = name == PV_NONE ? 0 : S->ix[name],
		    .category = cat == PV_NONE ? PV_NONE : x->cat_map[cat],
		    .phase = (enum pv_marker_phase)phase,
		    .start_ns = start,
		    .end_ns = end,
		    .thread = ti,
		    .payload = th->m_payload.at && th->m_payload.v[i]
				   ? resolve_strings(x, S, th->m_payload.v[i])
				   : 0,
		    .cause_stack = PV_NONE,
		    .cause_time_ns = th->m_payload.at ? th->m_cause_time.v[i] : PV_TIME_NONE,
		};
		/*
		 * A cause stack indexes the table its thread uses: the shared one (v60+), else the
		 * thread's own (the cause's tid names the marker's own thread in those files).
		 */
		uint32_t cs = th->m_payload.at ? th->m_cause.v[i] : PV_NONE;
		if (cs != PV_NONE) {
			if (cs < T->nr_stack)
				m.cause_stack = T->stack_map[cs];
			else
				x->cause_dropped++;
		}
		builder_marker(x->b, &m);
	}
	return 0;
}

void fxp_thread_free(struct thread *th)
{
	fxp_tables_free(&th->t);
	fxp_ucol_free(&th->s_stack);
	fxp_lcol_free(&th->s_time);
	fxp_lcol_free(&th->s_weight);
	fxp_lcol_free(&th->s_cpu);
	fxp_lcol_free(&th->s_delay);
	fxp_ucol_free(&th->m_name);
	fxp_ucol_free(&th->m_phase);
	fxp_ucol_free(&th->m_cat);
	fxp_ucol_free(&th->m_payload);
	fxp_ucol_free(&th->m_cause);
	fxp_lcol_free(&th->m_start);
	fxp_lcol_free(&th->m_end);
	fxp_lcol_free(&th->m_cause_time);
}

static bool has_tables(const struct tables *T)
{
	return T->stack_at || T->frame_at || T->func_at || T->res_at;
}

/* Once, before the first thread is built: the checks and tables every thread relies on. */
static int prepare(struct fxp *x)
{
	struct pv_builder *b = x->b;
	struct pv_meta *m = &b->p->meta;
	int rc;
	if (x->prepared)
		return 0;
	x->prepared = true;
	if (!x->have_version)
		return pv_error_set(
		    x->err, PV_EFORMAT,
		    "%s: not a Firefox processed profile (no meta.preprocessedProfileVersion)",
		    x->in->name);
	if (x->gecko_version)
		m->format_version = builder_strf(b, "%lld (gecko %lld)", (long long)x->version,
						 (long long)x->gecko_version);
	else
		m->format_version = builder_strf(b, "%lld", (long long)x->version);
	if (x->nr_cat == 0) {
		/* the front-end substitutes a default list; its first entry is enough here */
		if (col_realloc((void **)&x->cat_map, sizeof(*x->cat_map), 16))
			return fxp_oom(x);
		x->cat_map[0] =
		    builder_category(b, builder_cstr(b, "Other"), builder_cstr(b, "grey"));
		builder_subcategory(b, x->cat_map[0], builder_cstr(b, "Other"));
		x->nr_cat = 1;
	}
	if (x->default_cat == PV_NONE)
		x->default_cat = 0;
	if (x->sources_at) {
		uint32_t nsrc;
		if ((rc = table_rows(x, x->sources_at, x->sources_n, &x->src_file,
				     "sources.filename", &nsrc)) ||
		    (rc = fxp_check_ix(x, &x->src_file, x->shared.str.len, "a string",
				       "sources.filename")))
			return rc;
	}
	if (!has_tables(&x->shared))
		return 0;
	if ((rc = build_tables(x, &x->shared, &x->shared.str)))
		return rc;
	/* the threads map their stack indices through shared.stack_map from now on */
	builder_stacks_done(b);
	return 0;
}

/* Hands thread i (the next in file order) to the builder and frees its columns. */
int fxp_build_thread(struct fxp *x, uint32_t i)
{
	struct pv_builder *b = x->b;
	struct thread *th = &x->threads[i];
	const struct strs *S = th->t.str.at ? &th->t.str : &x->shared.str;
	struct tables *T = has_tables(&th->t) ? &th->t : &x->shared;
	int rc = prepare(x);
	if (rc)
		return rc;
	if (T == &th->t && (rc = build_tables(x, T, S)))
		return rc;
	pv_thread_ix ti = builder_thread(b, th->name, th->pid, th->tid, th->process_name);
	if (ti != PV_NONE)
		b->p->threads.process_type[ti] = th->process_type;
	if (ti == PV_NONE)
		return b->status ? b->status : fxp_oom(x);
	if (th->reg_ns != PV_TIME_NONE && th->unreg_ns != PV_TIME_NONE &&
	    th->unreg_ns < th->reg_ns) {
		th->unreg_ns = th->reg_ns;
		x->lifetimes_clamped++;
	}
	b->p->threads.start_ns[ti] = th->reg_ns;
	b->p->threads.end_ns[ti] = th->unreg_ns;
	if ((rc = build_samples(x, th, ti, T)) || (rc = build_markers(x, th, ti, T, S)))
		return rc;
	fxp_thread_free(th);
	x->nr_built++;
	return b->status;
}

/* Whether the thread just read can be built now: all it refers to was read before it. */
bool fxp_can_build_now(const struct fxp *x, const struct thread *th)
{
	if (x->nr_built + 1 != x->nr_threads || !x->have_version || !x->libs_done)
		return false;
	if (x->shared_done)
		return true;
	/* an older file: the thread holds all its tables and strings */
	return has_tables(&th->t) && th->t.str.at &&
	       (th->t.func_src_is_str || !th->t.func_src.max_pos);
}

int fxp_build(struct fxp *x)
{
	struct pv_builder *b = x->b;
	int rc = prepare(x);
	for (uint32_t i = x->nr_built; !rc && i < x->nr_threads; i++)
		rc = fxp_build_thread(x, i);
	if (rc)
		return rc;
	if (b->p->metrics.len == 0)
		weight_metric(x, W_SAMPLES);
	b->p->meta.default_metric = 0;
	if (x->subcat_clamped)
		builder_lossy(b, x->subcat_clamped,
			      "frame subcategories out of their category's range, set to 0");
	if (x->stack_cat_differ)
		builder_lossy(b, x->stack_cat_differ,
			      "stackTable category/subcategory columns not kept (stacks whose "
			      "category differs from their frames')");
	if (x->cause_dropped)
		builder_lossy(b, x->cause_dropped, "marker cause stacks out of range, dropped");
	if (x->str_ix_bad)
		builder_lossy(b, x->str_ix_bad,
			      "marker fields of a string format that index no string (kept as "
			      "numbers)");
	if (x->cause_tids)
		builder_lossy(b, x->cause_tids,
			      "marker cause thread ids (tid of a marker's stack)");
	if (x->weight_rounded)
		builder_lossy(b, x->weight_rounded, "fractional sample weights rounded");
	if (x->lifetimes_clamped)
		builder_lossy(b, x->lifetimes_clamped,
			      "threads that unregister before they register: end set to the start");
	if (x->ends_clamped)
		builder_lossy(b, x->ends_clamped,
			      "interval markers that end before they start: end set to the start");
	return 0;
}
