/*
 * contexts_out.c - `profview contexts` as text and JSON (include/pv/contexts.h): one row's
 * values over the execution contexts, their histogram and their summary.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "pv/contexts.h"
#include "pv/format.h"

static void json_double(FILE *out, double x)
{
	if (!isfinite(x))
		x = 0;
	fprintf(out, "%.12g", x);
}

void pv_contexts_summary_json(FILE *out, const struct pv_ctx_summary *s)
{
	fprintf(out, "{\"n\": %u, \"nonzero\": %u, \"sum\": %lld, \"mean\": ", s->n, s->nonzero,
		(long long)s->sum);
	json_double(out, s->mean);
	fprintf(out, ", \"min\": %lld, \"max\": %lld, \"stddev\": ", (long long)s->min,
		(long long)s->max);
	json_double(out, s->stddev);
	fputs(", \"cv\": ", out);
	json_double(out, s->cv);
	fputs(", \"imbalance\": ", out);
	json_double(out, s->imbalance);
	fputc('}', out);
}

/* A mean or a standard deviation in the metric's unit: ms for ns, else the count. */
static void format_real(char *buf, size_t n, double x, enum pv_unit u)
{
	if (u == PV_UNIT_NS)
		snprintf(buf, n, "%.3f", x / 1e6);
	else
		snprintf(buf, n, "%.3f", x);
}

static void print_summary(FILE *out, const char *what, const struct pv_ctx_summary *s,
			  enum pv_unit u)
{
	char sum[32], mean[32], min[32], max[32], sd[32];
	pv_format_cost(sum, sizeof(sum), s->sum, u);
	pv_format_cost(min, sizeof(min), s->min, u);
	pv_format_cost(max, sizeof(max), s->max, u);
	format_real(mean, sizeof(mean), s->mean, u);
	format_real(sd, sizeof(sd), s->stddev, u);
	fprintf(out,
		"# %s: sum %s, mean %s, min %s, max %s, stddev %s, cv %.3f, imbalance %.3f "
		"(max/mean), %u of %u contexts nonzero\n",
		what, sum, mean, min, max, sd, s->cv, s->imbalance, s->nonzero, s->n);
}

int pv_print_contexts(FILE *out, const struct pv_contexts *c,
		      const struct pv_contexts_print_opts *o)
{
	const struct pv_profile *p = c->p;
	enum pv_unit u = (enum pv_unit)p->metrics.unit[c->metric];
	const char *metric = pv_str(p, p->metrics.name[c->metric]);
	uint32_t n = c->len ? c->len : 1;
	uint32_t *order = pv_malloc((size_t)n * sizeof(*order));
	uint32_t *count = o->histogram ? pv_malloc((size_t)o->histogram * sizeof(*count)) : NULL;
	if (!order || (o->histogram && !count)) {
		pv_free(order);
		pv_free(count);
		return PV_ENOMEM;
	}
	if (o->sorted)
		pv_contexts_sort(c, PV_CTX_INCLUSIVE, order);
	else
		for (uint32_t i = 0; i < c->len; i++)
			order[i] = i;
	double width = o->histogram
			   ? pv_contexts_histogram(c, PV_CTX_INCLUSIVE, o->histogram, count, NULL)
			   : 0;
	const struct pv_ctx_summary *si = &c->summary[PV_CTX_INCLUSIVE];
	if (o->json) {
		fputs("{\"metric\": ", out);
		pv_json_string(out, metric);
		fputs(", \"unit\": ", out);
		pv_json_string(out, pv_unit_name(u));
		fputs(", \"row\": ", out);
		pv_json_string(out, c->name);
		fputs(", \"note\": ", out);
		if (c->note)
			pv_json_string(out, c->note);
		else
			fputs("null", out);
		fputs(", \"contexts\": [", out);
		for (uint32_t k = 0; k < c->len && !o->histogram; k++) {
			uint32_t i = order[k];
			pv_thread_ix t = c->thread[i];
			fprintf(out, "%s\n{\"index\": %u, \"name\": ", k ? "," : "", t);
			pv_json_string(out, pv_str(p, p->threads.name[t]));
			if (p->threads.tid[t] == PV_ID_NONE)
				fputs(", \"tid\": null", out);
			else
				fprintf(out, ", \"tid\": %lld", (long long)p->threads.tid[t]);
			fprintf(out, ", \"inclusive\": %lld, \"exclusive\": %lld}",
				(long long)c->value[0][i], (long long)c->value[1][i]);
		}
		fputs(c->len && !o->histogram ? "\n], \"summary\": {\"inclusive\": "
					      : "], \"summary\": {\"inclusive\": ",
		      out);
		pv_contexts_summary_json(out, si);
		fputs(", \"exclusive\": ", out);
		pv_contexts_summary_json(out, &c->summary[PV_CTX_EXCLUSIVE]);
		fputc('}', out);
		if (o->histogram) {
			fprintf(out,
				", \"histogram\": {\"min\": %lld, \"width\": ", (long long)si->min);
			json_double(out, width);
			fputs(", \"counts\": [", out);
			for (uint32_t b = 0; b < o->histogram; b++)
				fprintf(out, "%s%u", b ? ", " : "", count[b]);
			fputs("]}", out);
		}
		fputs("}\n", out);
	} else {
		fprintf(out, "# metric: %s (%s), row: %s, %u contexts\n", metric,
			u == PV_UNIT_NS ? "ms" : pv_unit_name(u), c->name, c->len);
		if (c->note)
			fprintf(out, "# note: %s\n", c->note);
		char a[32], b[32];
		if (o->histogram) {
			fprintf(out, "%14s  %14s  %8s\n", "from", "to", "contexts");
			for (uint32_t k = 0; k < o->histogram; k++) {
				/* the edges in the unit, as the summary's min and max */
				format_real(a, sizeof(a), (double)si->min + k * width, u);
				format_real(b, sizeof(b),
					    k + 1 == o->histogram
						? (double)si->max
						: (double)si->min + (k + 1) * width,
					    u);
				fprintf(out, "%14s  %14s  %8u\n", a, b, count[k]);
			}
		} else {
			fprintf(out, "%6s  %-24s %14s %14s\n", "#", "context", "inclusive",
				"exclusive");
			for (uint32_t k = 0; k < c->len; k++) {
				uint32_t i = order[k];
				pv_format_cost(a, sizeof(a), c->value[0][i], u);
				pv_format_cost(b, sizeof(b), c->value[1][i], u);
				fprintf(out, "%6u  %-24s %14s %14s\n", c->thread[i],
					pv_str(p, p->threads.name[c->thread[i]]), a, b);
			}
		}
		print_summary(out, "inclusive", si, u);
		print_summary(out, "exclusive", &c->summary[PV_CTX_EXCLUSIVE], u);
	}
	pv_free(order);
	pv_free(count);
	return 0;
}
