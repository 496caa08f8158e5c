/*
 * common.c - what the export writers share: the lossy list, the metric and the stacks' frames and
 * depths, the functions a profile uses, the write check. The bottom layer of src/export.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "export/internal.h"

void pv_lossy_add(struct pv_lossy *l, uint64_t count, const char *fmt, ...)
{
	if (!l || !count)
		return;
	char msg[sizeof(l->item[0].msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (uint32_t i = 0; i < l->len; i++)
		if (strcmp(l->item[i].msg, msg) == 0) {
			l->item[i].count += count;
			return;
		}
	if (l->len == PV_LOSSY_MAX) /* the last line stands for every kind past the limit */
		snprintf(msg, sizeof(msg), "other kinds of data");
	uint32_t i = l->len < PV_LOSSY_MAX ? l->len++ : PV_LOSSY_MAX - 1;
	memcpy(l->item[i].msg, msg, sizeof(msg));
	l->item[i].count += count;
}

pv_metric_ix pv__export_metric(const struct pv_profile *p, const struct pv_export_opts *o)
{
	return o->metric < p->metrics.len ? o->metric : p->meta.default_metric;
}

void pv__export_lossy_common(const struct pv_profile *p, pv_metric_ix m, bool times, bool markers,
			     bool labels, const char *format, struct pv_lossy *l)
{
	for (pv_metric_ix k = 0; k < p->metrics.len; k++)
		if (m != PV_NONE && k != m)
			pv_lossy_add(l, p->samples.len, "metric '%s': %s holds one metric",
				     pv_str(p, p->metrics.name[k]), format);
	if (!times) {
		uint64_t n = 0;
		for (uint32_t s = 0; s < p->samples.len; s++)
			n += pv_sample_time(p, s) != PV_TIME_NONE;
		pv_lossy_add(l, n, "sample times (%s has none)", format);
	}
	if (!markers)
		pv_lossy_add(l, p->markers.len, "markers (%s has none)", format);
	if (!labels && p->samples.label_set) {
		uint64_t n = 0;
		for (uint32_t s = 0; s < p->samples.len; s++)
			n += p->samples.label_set[s] != 0;
		pv_lossy_add(l, n, "sample labels (%s has none)", format);
	}
	uint64_t ed = 0;
	for (uint32_t s = 0; p->samples.event_delay_ns && s < p->samples.len; s++)
		ed += p->samples.event_delay_ns[s] != PV_TIME_NONE;
	if (strcmp(format, "firefox") != 0)
		pv_lossy_add(l, ed, "sample event delays (%s has none)", format);
}

uint32_t pv__stack_frames(const struct pv_profile *p, pv_stack_ix st, pv_frame_ix *buf,
			  uint32_t cap)
{
	uint32_t n = 0;
	for (pv_stack_ix s = st; s != PV_NONE; s = p->stacks.prefix[s])
		n++;
	uint32_t k = n;
	for (pv_stack_ix s = st; s != PV_NONE; s = p->stacks.prefix[s]) {
		k--;
		if (k < cap)
			buf[k] = p->stacks.frame[s];
	}
	return n;
}

uint32_t *pv__stack_depths(const struct pv_profile *p, uint32_t *max_depth)
{
	uint32_t *d = pv_malloc((size_t)(p->stacks.len ? p->stacks.len : 1) * sizeof(*d));
	uint32_t mx = 0;
	for (uint32_t s = 0; d && s < p->stacks.len; s++) {
		pv_stack_ix pre = p->stacks.prefix[s];
		d[s] = pre == PV_NONE ? 1 : d[pre] + 1;
		if (d[s] > mx)
			mx = d[s];
	}
	if (max_depth)
		*max_depth = mx;
	return d;
}

pv_func_ix *pv__export_used_funcs(const struct pv_profile *p, uint32_t *n)
{
	*n = 0;
	uint8_t *seen = pv_calloc((size_t)p->stacks.len + 1, 1);
	uint8_t *used = pv_calloc((size_t)p->funcs.len + 1, 1);
	pv_func_ix *out = pv_malloc(((size_t)p->funcs.len + 1) * sizeof(*out));
	if (!seen || !used || !out) {
		pv_free(seen);
		pv_free(used);
		pv_free(out);
		return NULL;
	}
	/* each stack walked up to the first one seen before: linear in the stacks */
	for (uint32_t s = 0; s < p->samples.len; s++)
		for (pv_stack_ix x = p->samples.stack[s]; x != PV_NONE && !seen[x];
		     x = p->stacks.prefix[x]) {
			seen[x] = 1;
			used[p->frames.func[p->stacks.frame[x]]] = 1;
		}
	for (pv_func_ix f = 0; f < p->funcs.len; f++)
		if (used[f])
			out[(*n)++] = f;
	pv_free(seen);
	pv_free(used);
	return out;
}

uint64_t pv__export_merged(const struct pv_profile *p,
			   int (*cmp)(const void *, const void *, void *), void *ctx)
{
	uint32_t n;
	pv_func_ix *f = pv__export_used_funcs(p, &n);
	if (!f)
		return UINT64_MAX;
	if (n > 1)
		qsort_r(f, n, sizeof(*f), cmp, ctx);
	uint64_t merged = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		while (j < n && cmp(&f[i], &f[j], ctx) == 0)
			j++;
		if (j - i > 1)
			merged += j - i;
		i = j;
	}
	pv_free(f);
	return merged;
}

int pv__export_check(FILE *out, struct pv_error *err)
{
	if (fflush(out) || ferror(out))
		return pv_error_set(err, PV_EIO, "cannot write the export: %s", strerror(errno));
	return 0;
}
