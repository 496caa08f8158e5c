/*
 * contexts_out.c - `profview contexts` as text and JSON (include/pv/contexts.h): one row's
 * values over the execution contexts, their histogram and their summary.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "format/internal.h"
#include "pv/contexts.h"
#include "pv/format.h"

/* A real of the summaries: 12 significant digits, 0 when not finite (a mean of no context). */
static void json_real(struct pv_json *j, double x)
{
	pv_json_real(j, isfinite(x) ? x : 0, 12);
}

/* A ratio to the mean: null when undefined (a mean of 0). */
static void ratio_json(struct pv_json *j, double x)
{
	if (isfinite(x))
		pv_json_real(j, x, 12);
	else
		pv_json_null(j);
}

/* The same in text: "-" when undefined. */
static const char *ratio_text(char *buf, size_t n, double x)
{
	if (isfinite(x))
		snprintf(buf, n, "%.3f", x);
	else
		snprintf(buf, n, "-");
	return buf;
}

void pv_json_contexts_summary(struct pv_json *j, const struct pv_ctx_summary *s)
{
	pv_json_object(j);
	pv_json_kuint(j, "n", s->n);
	pv_json_kuint(j, "nonzero", s->nonzero);
	pv_json_kint(j, "sum", s->sum);
	pv_json_key(j, "mean");
	json_real(j, s->mean);
	pv_json_kint(j, "min", s->min);
	pv_json_kint(j, "max", s->max);
	pv_json_key(j, "stddev");
	json_real(j, s->stddev);
	pv_json_key(j, "cv");
	ratio_json(j, s->cv);
	pv_json_key(j, "imbalance");
	ratio_json(j, s->imbalance);
	pv_json_end(j);
}

/* `profview contexts --json` */
static int contexts_json(FILE *out, const struct pv_contexts *c,
			 const struct pv_contexts_print_opts *o, const struct pv_contexts_plot *pl)
{
	const struct pv_profile *p = c->p;
	const struct pv_ctx_summary *si = &c->summary[PV_CTX_INCLUSIVE];
	struct pv_json *j = pv_json_new(out);
	if (!j)
		return PV_ENOMEM;
	pv_json_object(j);
	pv_json_kstr(j, "metric", pv_str(p, p->metrics.name[c->metric]));
	pv_json_kstr(j, "unit", pv_unit_name((enum pv_unit)p->metrics.unit[c->metric]));
	struct pv_cost_unit cu;
	pv_cost_unit(pv_str(p, p->metrics.name[c->metric]),
		     (enum pv_unit)p->metrics.unit[c->metric], si->sum, &cu);
	pv_json_key(j, "shown");
	pv_json_cost_unit(j, &cu);
	pv_json_kstr(j, "row", c->name);
	pv_json_key(j, "note");
	pv_json_str_or_null(j, c->note);
	pv_json_key(j, "contexts");
	pv_json_open(j, '[', PV_JSON_LINES, 0);
	for (uint32_t k = 0; k < c->len && !o->histogram; k++) {
		uint32_t i = pl->order ? pl->order[k] : k;
		pv_json_object(j);
		json_thread(j, p, c->thread[i]);
		pv_json_kint(j, "inclusive", c->value[0][i]);
		pv_json_kint(j, "exclusive", c->value[1][i]);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_key(j, "summary");
	pv_json_object(j);
	pv_json_key(j, "inclusive");
	pv_json_contexts_summary(j, si);
	pv_json_key(j, "exclusive");
	pv_json_contexts_summary(j, &c->summary[PV_CTX_EXCLUSIVE]);
	pv_json_end(j);
	if (o->histogram) {
		pv_json_key(j, "histogram");
		pv_json_object(j);
		pv_json_kint(j, "min", si->min);
		pv_json_key(j, "width");
		json_real(j, pl->bin_width);
		pv_json_key(j, "counts");
		pv_json_array(j);
		for (uint32_t b = 0; b < o->histogram; b++)
			pv_json_uint(j, pl->count[b]);
		pv_json_end(j);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_eol(j);
	int rc = pv_json_finish(j);
	pv_json_free(j);
	return rc;
}

/* A mean or a standard deviation in the metric's unit (pv_cost_unit), three decimals or the
 * unit's. */
static void format_real(char *buf, size_t n, double x, const struct pv_cost_unit *cu)
{
	snprintf(buf, n, "%.*f", cu->decimals > 3 ? cu->decimals : 3, x / (double)cu->per);
}

static void print_summary(FILE *out, const char *what, const struct pv_ctx_summary *s,
			  const struct pv_cost_unit *cu)
{
	char sum[32], mean[32], min[32], max[32], sd[32], cv[32], imb[32];
	pv_cost_text(cu, s->sum, PV_NUM_EXACT, sum, sizeof(sum));
	pv_cost_text(cu, s->min, PV_NUM_EXACT, min, sizeof(min));
	pv_cost_text(cu, s->max, PV_NUM_EXACT, max, sizeof(max));
	format_real(mean, sizeof(mean), s->mean, cu);
	format_real(sd, sizeof(sd), s->stddev, cu);
	fprintf(out,
		"# %s: sum %s, mean %s, min %s, max %s, stddev %s, cv %s, imbalance %s "
		"(max/mean), %u of %u contexts nonzero\n",
		what, sum, mean, min, max, sd, ratio_text(cv, sizeof(cv), s->cv),
		ratio_text(imb, sizeof(imb), s->imbalance), s->nonzero, s->n);
}

int pv_print_contexts(FILE *out, const struct pv_contexts *c,
		      const struct pv_contexts_print_opts *o)
{
	const struct pv_profile *p = c->p;
	enum pv_unit u = (enum pv_unit)p->metrics.unit[c->metric];
	const char *metric = pv_str(p, p->metrics.name[c->metric]);
	/* the sorted or index order and the histogram of the inclusive values, as the page's */
	struct pv_contexts_plot pl;
	struct pv_contexts_plot_opts po = {
	    .which = PV_CTX_INCLUSIVE, .by_value = o->sorted, .bins = o->histogram};
	if (pv_contexts_plot(c, &po, &pl))
		return PV_ENOMEM;
	double width = pl.bin_width;
	const struct pv_ctx_summary *si = &c->summary[PV_CTX_INCLUSIVE];
	int rc = 0;
	if (o->json) {
		rc = contexts_json(out, c, o, &pl);
	} else {
		char e1[FMT_NAME], e2[FMT_NAME];
		struct pv_cost_unit cu;
		pv_cost_unit(metric, u, si->sum, &cu);
		fprintf(out, "# metric: %s%s%s%s, row: %s, %u contexts\n", fmt_name(e1, metric),
			cu.named ? "" : " (", cu.named ? "" : cu.name, cu.named ? "" : ")",
			fmt_name(e2, c->name), c->len);
		if (c->note)
			fprintf(out, "# note: %s\n", fmt_name(e1, c->note));
		char a[32], b[32];
		if (o->histogram) {
			fprintf(out, "%14s  %14s  %8s\n", "from", "to", "contexts");
			for (uint32_t k = 0; k < o->histogram; k++) {
				/* the edges in the unit, as the summary's min and max */
				format_real(a, sizeof(a), (double)si->min + k * width, &cu);
				format_real(b, sizeof(b),
					    k + 1 == o->histogram
						? (double)si->max
						: (double)si->min + (k + 1) * width,
					    &cu);
				fprintf(out, "%14s  %14s  %8u\n", a, b, pl.count[k]);
			}
		} else {
			fprintf(out, "%6s  %-24s %14s %14s\n", "#", "context", "inclusive",
				"exclusive");
			for (uint32_t k = 0; k < c->len; k++) {
				uint32_t i = pl.order ? pl.order[k] : k;
				pv_cost_text(&cu, c->value[0][i], PV_NUM_EXACT, a, sizeof(a));
				pv_cost_text(&cu, c->value[1][i], PV_NUM_EXACT, b, sizeof(b));
				fprintf(out, "%6u  %-24s %14s %14s\n", c->thread[i],
					fmt_name(e1, pv_str(p, p->threads.name[c->thread[i]])), a,
					b);
			}
		}
		print_summary(out, "inclusive", si, &cu);
		print_summary(out, "exclusive", &c->summary[PV_CTX_EXCLUSIVE], &cu);
	}
	pv_contexts_plot_release(&pl);
	return rc;
}
