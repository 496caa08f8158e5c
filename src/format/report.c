/*
 * report.c - text and JSON output of the call tree, the function list and the import report.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pv/format.h"

void pv_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void pv_format_cost(char *buf, size_t n, int64_t v, enum pv_unit u)
{
	if (u == PV_UNIT_NS) {
		/* exact: integer ms and three decimals, rounded half away from zero */
		int64_t a = v < 0 ? -v : v;
		int64_t us = (a + 500) / 1000;
		snprintf(buf, n, "%s%" PRId64 ".%03" PRId64, v < 0 ? "-" : "", us / 1000, us % 1000);
		return;
	}
	snprintf(buf, n, "%" PRId64, v);
}

static const char *unit_label(enum pv_unit u)
{
	return u == PV_UNIT_NS ? "ms" : pv_unit_name(u);
}

static void format_pct(char *buf, size_t n, int64_t v, int64_t whole)
{
	if (whole == 0) {
		snprintf(buf, n, "-");
		return;
	}
	snprintf(buf, n, "%.2f%%", 100.0 * (double)v / (double)whole);
}

static void json_null_or_str(FILE *out, const struct pv_profile *p, pv_str_ix s)
{
	if (s == 0)
		fputs("null", out);
	else
		pv_json_string(out, pv_str(p, s));
}

/* name, module, file, line of a function */
static void json_func_fields(FILE *out, const struct pv_profile *p, pv_func_ix f)
{
	fputs("\"name\": ", out);
	pv_json_string(out, pv_str(p, p->funcs.name[f]));
	fputs(", \"module\": ", out);
	pv_module_ix m = p->funcs.module[f];
	json_null_or_str(out, p, m == PV_NONE ? 0 : p->modules.name[m]);
	fputs(", \"file\": ", out);
	pv_source_ix s = p->funcs.source[f];
	json_null_or_str(out, p, s == PV_NONE ? 0 : p->sources.path[s]);
	fputs(", \"line\": ", out);
	if (p->funcs.line[f])
		fprintf(out, "%u", p->funcs.line[f]);
	else
		fputs("null", out);
}

/* "  [module]  file:line" after a name in text output */
static void text_func_suffix(FILE *out, const struct pv_profile *p, pv_func_ix f)
{
	pv_module_ix m = p->funcs.module[f];
	if (m != PV_NONE && p->modules.name[m]) {
		const char *mn = pv_str(p, p->modules.name[m]);
		const char *fn = pv_str(p, p->funcs.name[f]);
		size_t ml = strlen(mn);
		/* "[libc.so.6]" is already the module's name in brackets: no need to repeat it */
		int same = fn[0] == '[' && strncmp(fn + 1, mn, ml) == 0 && fn[ml + 1] == ']' &&
			   fn[ml + 2] == 0;
		if (!same)
			fprintf(out, mn[0] == '[' ? "  %s" : "  [%s]", mn);
	}
	pv_source_ix s = p->funcs.source[f];
	if (s != PV_NONE && p->sources.path[s]) {
		fprintf(out, "  %s", pv_str(p, p->sources.path[s]));
		if (p->funcs.line[f])
			fprintf(out, ":%u", p->funcs.line[f]);
	}
}

static void header_line(FILE *out, const struct pv_profile *p, pv_metric_ix m, int64_t total,
			const struct pv_print_opts *o)
{
	char tb[32];
	pv_format_cost(tb, sizeof(tb), total, p->metrics.unit[m]);
	fprintf(out, "# metric: %s (%s), total %s, %s\n", pv_str(p, p->metrics.name[m]),
		unit_label(p->metrics.unit[m]), tb,
		o && o->threads_label ? o->threads_label : "all threads");
}

/* ---- tree ---- */

/*
 * The tree is printed depth first with an explicit stack (a profile may be thousands of frames
 * deep). Rows cut by --depth or --min-percent are counted with their whole subtree; subtree sizes
 * come from one backward pass over the nodes, which are numbered parents first.
 */
struct tree_print {
	FILE *out;
	const struct pv_profile *p;
	const struct pv_calltree *t;
	const struct pv_print_opts *o;
	int64_t min_cost;
	uint64_t *rows; /* rows in the subtree of each node, itself included */
	uint64_t cut_pct, cut_depth;
};

static int has_cost(const struct pv_calltree *t, uint32_t n)
{
	return t->total[n] || t->self[n];
}

/* 0 = print the row; otherwise it is cut, and counted */
static int cut_row(struct tree_print *w, uint32_t n)
{
	if (w->o->min_percent > 0 && w->t->total[n] < w->min_cost) {
		w->cut_pct += w->rows[n];
		return 1;
	}
	if (w->o->max_depth && w->t->depth[n] >= w->o->max_depth) {
		w->cut_depth += w->rows[n];
		return 1;
	}
	return 0;
}

static void text_row(struct tree_print *w, uint32_t n)
{
	const struct pv_calltree *t = w->t;
	enum pv_unit u = w->p->metrics.unit[t->metric];
	char tb[32], sb[32], tp[16], sp[16];
	pv_format_cost(tb, sizeof(tb), t->total[n], u);
	pv_format_cost(sb, sizeof(sb), t->self[n], u);
	format_pct(tp, sizeof(tp), t->total[n], t->total_cost);
	format_pct(sp, sizeof(sp), t->self[n], t->total_cost);
	fprintf(w->out, "%12s %8s %12s %8s  %*s%s", tb, tp, sb, sp, (int)(2 * t->depth[n]), "",
		pv_str(w->p, w->p->funcs.name[t->func[n]]));
	text_func_suffix(w->out, w->p, t->func[n]);
	fputc('\n', w->out);
}

struct frame_it {
	const uint32_t *rows;
	uint32_t nr, next;
	int printed; /* rows printed at this level (JSON commas) */
};

static void walk_tree(struct tree_print *w)
{
	const struct pv_calltree *t = w->t;
	uint32_t maxd = 1;
	for (uint32_t n = 0; n < t->len; n++)
		if (t->depth[n] + 2 > maxd)
			maxd = t->depth[n] + 2;
	struct frame_it *st = malloc(sizeof(*st) * maxd);
	if (!st)
		return;
	uint32_t sp = 0;
	st[sp++] = (struct frame_it){t->roots, t->nr_roots, 0, 0};
	while (sp) {
		struct frame_it *it = &st[sp - 1];
		if (it->next == it->nr) {
			sp--;
			if (w->o->json && sp) { /* close the row that owned this level */
				if (it->printed)
					fprintf(w->out, "\n%*s]}", 2 * (int)sp, "");
				else
					fputs("]}", w->out);
			}
			continue;
		}
		uint32_t n = it->rows[it->next++];
		if (cut_row(w, n))
			continue;
		if (w->o->json) {
			fprintf(w->out, "%s\n%*s{", it->printed ? "," : "", 2 * (int)sp, "");
			json_func_fields(w->out, w->p, t->func[n]);
			fprintf(w->out,
				", \"total\": %" PRId64 ", \"self\": %" PRId64 ", \"children\": [",
				t->total[n], t->self[n]);
		} else {
			text_row(w, n);
		}
		it->printed++;
		st[sp++] = (struct frame_it){t->children + t->child_first[n], t->child_len[n], 0, 0};
	}
	free(st);
}

void pv_print_tree(FILE *out, const struct pv_profile *p, const struct pv_calltree *t,
		   const struct pv_print_opts *o)
{
	struct pv_print_opts defaults = {0};
	if (!o)
		o = &defaults;
	struct tree_print w = {out, p, t, o, 0, NULL, 0, 0};
	if (o->min_percent > 0) {
		double c = (double)t->total_cost * o->min_percent / 100.0;
		w.min_cost = (int64_t)c;
		if ((double)w.min_cost < c)
			w.min_cost++;
	}
	w.rows = calloc(t->len ? t->len : 1, sizeof(*w.rows));
	if (!w.rows)
		return;
	for (uint32_t n = t->len; n-- > 0;) {
		if (!has_cost(t, n))
			continue;
		w.rows[n] += 1;
		if (t->parent[n] != PV_NONE)
			w.rows[t->parent[n]] += w.rows[n];
	}
	if (o->json) {
		fputs("{\"metric\": ", out);
		pv_json_string(out, pv_str(p, p->metrics.name[t->metric]));
		fputs(", \"unit\": ", out);
		pv_json_string(out, pv_unit_name(p->metrics.unit[t->metric]));
		fprintf(out, ", \"total\": %" PRId64 ", \"rows\": [", t->total_cost);
		walk_tree(&w);
		fputs(t->nr_roots && w.rows ? "\n]}\n" : "]}\n", out);
		free(w.rows);
		return;
	}
	header_line(out, p, t->metric, t->total_cost, o);
	fprintf(out, "%12s %8s %12s %8s  %s\n", "total", "total%", "self", "self%", "name");
	walk_tree(&w);
	if (w.cut_pct)
		fprintf(out, "# %" PRIu64 " rows below %g%% of the total not shown\n", w.cut_pct,
			o->min_percent);
	if (w.cut_depth)
		fprintf(out, "# %" PRIu64 " rows deeper than %u not shown\n", w.cut_depth,
			o->max_depth);
	if (t->nostack_cost) {
		char nb[32];
		pv_format_cost(nb, sizeof(nb), t->nostack_cost, p->metrics.unit[t->metric]);
		fprintf(out, "# %s in samples without a stack not shown\n", nb);
	}
	free(w.rows);
}

/* ---- top ---- */

void pv_print_top(FILE *out, const struct pv_profile *p, const struct pv_top *t,
		  const struct pv_print_opts *o)
{
	struct pv_print_opts defaults = {0};
	if (!o)
		o = &defaults;
	uint32_t n = o->limit && o->limit < t->len ? o->limit : t->len;
	enum pv_unit u = p->metrics.unit[t->metric];
	if (o->json) {
		fputs("{\"metric\": ", out);
		pv_json_string(out, pv_str(p, p->metrics.name[t->metric]));
		fputs(", \"unit\": ", out);
		pv_json_string(out, pv_unit_name(u));
		fprintf(out, ", \"total\": %" PRId64 ", \"rows\": [", t->total_cost);
		for (uint32_t i = 0; i < n; i++) {
			fprintf(out, "%s\n  {", i ? "," : "");
			json_func_fields(out, p, t->func[i]);
			fprintf(out, ", \"total\": %" PRId64 ", \"self\": %" PRId64 "}", t->total[i],
				t->self[i]);
		}
		fputs(n ? "\n]}\n" : "]}\n", out);
		return;
	}
	header_line(out, p, t->metric, t->total_cost, o);
	fprintf(out, "%12s %8s %12s %8s  %s\n", "self", "self%", "total", "total%", "name");
	for (uint32_t i = 0; i < n; i++) {
		char tb[32], sb[32], tp[16], sp[16];
		pv_format_cost(sb, sizeof(sb), t->self[i], u);
		pv_format_cost(tb, sizeof(tb), t->total[i], u);
		format_pct(sp, sizeof(sp), t->self[i], t->total_cost);
		format_pct(tp, sizeof(tp), t->total[i], t->total_cost);
		fprintf(out, "%12s %8s %12s %8s  %s", sb, sp, tb, tp,
			pv_str(p, p->funcs.name[t->func[i]]));
		text_func_suffix(out, p, t->func[i]);
		fputc('\n', out);
	}
	if (n < t->len)
		fprintf(out, "# %u more functions not shown\n", t->len - n);
}

/* ---- info ---- */

static void fmt_time(char *buf, size_t n, int64_t ns)
{
	if (ns == PV_TIME_NONE)
		snprintf(buf, n, "-");
	else
		pv_format_cost(buf, n, ns, PV_UNIT_NS);
}

static void thread_span(const struct pv_profile *p, pv_thread_ix t, int64_t *lo, int64_t *hi)
{
	*lo = *hi = PV_TIME_NONE;
	for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
		int64_t x = p->samples.time_ns[s];
		if (x == PV_TIME_NONE)
			continue;
		if (*lo == PV_TIME_NONE || x < *lo)
			*lo = x;
		if (*hi == PV_TIME_NONE || x > *hi)
			*hi = x;
	}
}

static int64_t metric_total(const struct pv_profile *p, pv_metric_ix m)
{
	int64_t sum = 0;
	for (uint32_t s = 0; s < p->samples.len; s++)
		sum += pv_sample_weight(p, m, s);
	return sum;
}

static void id_text(char *buf, size_t n, int64_t id)
{
	if (id == PV_ID_NONE)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%" PRId64, id);
}

void pv_print_info(FILE *out, const struct pv_profile *p, const char *path, bool json)
{
	uint64_t phases[4] = {0};
	for (uint32_t i = 0; i < p->markers.len; i++)
		phases[p->markers.phase[i] & 3]++;
	uint64_t nostack = 0;
	for (uint32_t s = 0; s < p->samples.len; s++)
		nostack += p->samples.stack[s] == PV_NONE;
	if (json) {
		fputs("{\"file\": ", out);
		pv_json_string(out, path);
		fputs(", \"format\": ", out);
		pv_json_string(out, pv_str(p, p->meta.format));
		fputs(", \"version\": ", out);
		json_null_or_str(out, p, p->meta.format_version);
		fputs(", \"product\": ", out);
		json_null_or_str(out, p, p->meta.product);
		fprintf(out, ", \"interval_ns\": %" PRId64 ", \"threads\": [", p->meta.interval_ns);
		for (uint32_t t = 0; t < p->threads.len; t++) {
			int64_t lo, hi;
			thread_span(p, t, &lo, &hi);
			fprintf(out, "%s\n  {\"name\": ", t ? "," : "");
			pv_json_string(out, pv_str(p, p->threads.name[t]));
			fputs(", \"process\": ", out);
			json_null_or_str(out, p, p->threads.process_name[t]);
			fputs(", \"pid\": ", out);
			if (p->threads.pid[t] == PV_ID_NONE)
				fputs("null", out);
			else
				fprintf(out, "%" PRId64, p->threads.pid[t]);
			fputs(", \"tid\": ", out);
			if (p->threads.tid[t] == PV_ID_NONE)
				fputs("null", out);
			else
				fprintf(out, "%" PRId64, p->threads.tid[t]);
			fprintf(out, ", \"samples\": %u, \"first_sample_ns\": ",
				p->threads.sample_end[t] - p->threads.sample_begin[t]);
			if (lo == PV_TIME_NONE)
				fputs("null, \"last_sample_ns\": null}", out);
			else
				fprintf(out, "%" PRId64 ", \"last_sample_ns\": %" PRId64 "}", lo, hi);
		}
		fputs("\n], \"metrics\": [", out);
		for (uint32_t m = 0; m < p->metrics.len; m++) {
			fprintf(out, "%s\n  {\"name\": ", m ? "," : "");
			pv_json_string(out, pv_str(p, p->metrics.name[m]));
			fputs(", \"unit\": ", out);
			pv_json_string(out, pv_unit_name(p->metrics.unit[m]));
			fprintf(out, ", \"total\": %" PRId64 ", \"default\": %s}", metric_total(p, m),
				m == p->meta.default_metric ? "true" : "false");
		}
		fprintf(out,
			"\n], \"samples\": %u, \"samples_without_stack\": %" PRIu64
			", \"functions\": %u, \"frames\": %u, \"stacks\": %u, \"modules\": %u"
			", \"sources\": %u, \"categories\": %u"
			", \"markers\": {\"total\": %u, \"instant\": %" PRIu64 ", \"interval\": %" PRIu64
			", \"start\": %" PRIu64 ", \"end\": %" PRIu64 "}, \"lossy\": [",
			p->samples.len, nostack, p->funcs.len, p->frames.len, p->stacks.len,
			p->modules.len, p->sources.len, p->categories.len, p->markers.len, phases[0],
			phases[1], phases[2], phases[3]);
		for (uint32_t i = 0; i < p->diags.len; i++) {
			fprintf(out, "%s\n  {\"what\": ", i ? "," : "");
			pv_json_string(out, pv_str(p, p->diags.msg[i]));
			fprintf(out, ", \"count\": %" PRIu64 "}", p->diags.count[i]);
		}
		fputs(p->diags.len ? "\n]}\n" : "]}\n", out);
		return;
	}
	fprintf(out, "file:       %s\n", path);
	fprintf(out, "format:     %s", pv_str(p, p->meta.format));
	if (p->meta.format_version)
		fprintf(out, " version %s", pv_str(p, p->meta.format_version));
	fputc('\n', out);
	if (p->meta.product)
		fprintf(out, "product:    %s\n", pv_str(p, p->meta.product));
	if (p->meta.interval_ns) {
		char ib[32];
		pv_format_cost(ib, sizeof(ib), p->meta.interval_ns, PV_UNIT_NS);
		fprintf(out, "interval:   %s ms\n", ib);
	}
	fprintf(out, "samples:    %u rows", p->samples.len);
	if (nostack)
		fprintf(out, " (%" PRIu64 " without a stack)", nostack);
	fputc('\n', out);
	fprintf(out, "threads:    %u\n", p->threads.len);
	int nw = 4;
	for (uint32_t t = 0; t < p->threads.len; t++) {
		int l = (int)strlen(pv_str(p, p->threads.name[t]));
		if (l > nw)
			nw = l;
	}
	if (nw > 40)
		nw = 40;
	pv_metric_ix dm = p->meta.default_metric;
	char wh[64] = "";
	if (p->metrics.len)
		snprintf(wh, sizeof(wh), "%s", pv_str(p, p->metrics.name[dm]));
	if (p->threads.len)
		fprintf(out, "  %3s  %-*s %8s %8s %9s %12s %14s %14s  %s\n", "#", nw, "name", "pid",
			"tid", "rows", wh, "first (ms)", "last (ms)", "process");
	for (uint32_t t = 0; t < p->threads.len; t++) {
		int64_t lo, hi;
		thread_span(p, t, &lo, &hi);
		char pb[24], tb[24], lb[32], hb[32];
		id_text(pb, sizeof(pb), p->threads.pid[t]);
		id_text(tb, sizeof(tb), p->threads.tid[t]);
		fmt_time(lb, sizeof(lb), lo);
		fmt_time(hb, sizeof(hb), hi);
		int64_t wsum = 0;
		for (uint32_t s = p->threads.sample_begin[t]; p->metrics.len && s < p->threads.sample_end[t]; s++)
			wsum += pv_sample_weight(p, dm, s);
		char wb[32] = "";
		if (p->metrics.len)
			pv_format_cost(wb, sizeof(wb), wsum, p->metrics.unit[dm]);
		const char *pn = pv_str(p, p->threads.process_name[t]);
		fprintf(out, "  %3u  %-*s %8s %8s %9u %12s %14s %14s%s%s\n", t, nw,
			pv_str(p, p->threads.name[t]), pb, tb,
			p->threads.sample_end[t] - p->threads.sample_begin[t], wb, lb, hb,
			*pn ? "  " : "", pn);
	}
	fprintf(out, "metrics:    %u\n", p->metrics.len);
	for (uint32_t m = 0; m < p->metrics.len; m++) {
		char vb[32];
		enum pv_unit u = p->metrics.unit[m];
		pv_format_cost(vb, sizeof(vb), metric_total(p, m), u);
		fprintf(out, "  %s (%s): total %s%s\n", pv_str(p, p->metrics.name[m]), unit_label(u),
			vb, m == p->meta.default_metric ? " [default]" : "");
	}
	fprintf(out, "tables:     %u functions, %u frames, %u stacks, %u modules, %u sources, %u categories\n",
		p->funcs.len, p->frames.len, p->stacks.len, p->modules.len, p->sources.len,
		p->categories.len);
	fprintf(out,
		"markers:    %u raw (instant %" PRIu64 ", interval %" PRIu64 ", start %" PRIu64
		", end %" PRIu64 ")\n",
		p->markers.len, phases[0], phases[1], phases[2], phases[3]);
	if (p->diags.len == 0) {
		fputs("lossy:      nothing\n", out);
	} else {
		fprintf(out, "lossy:      %u kind%s of data not kept\n", p->diags.len,
			p->diags.len == 1 ? "" : "s");
		for (uint32_t i = 0; i < p->diags.len; i++)
			fprintf(out, "  %8" PRIu64 "  %s\n", p->diags.count[i],
				pv_str(p, p->diags.msg[i]));
	}
}
