/*
 * speedscope.c - speedscope's file format (https://www.speedscope.app/file-format-schema.json),
 * what speedscope opens (doc/export.md).
 *
 * One "sampled" profile per thread, named after it, in the unit of one metric (nanoseconds,
 * bytes, else "none"); its samples are the thread's samples in order, each a list of shared
 * frame indices root first, with its weight. A shared frame is a function: its name, its file
 * (its source, else its module's file, as speedscope's own perf importer writes native frames)
 * and its first line and column when known (speedscope's frames are functions, not lines).
 * Speedscope keys frames by their index, and so does profview's importer: two functions of one
 * name stay two.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "export/internal.h"
#include "pv/format.h"

static const char *unit_name(enum pv_unit u)
{
	switch (u) {
	case PV_UNIT_NS: return "nanoseconds";
	case PV_UNIT_BYTES: return "bytes";
	default: return "none";
	}
}

int pv__export_speedscope(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
			  struct pv_lossy *lossy, struct pv_error *err)
{
	pv_metric_ix m = pv__export_metric(p, o);
	enum pv_unit u = (enum pv_unit)p->metrics.unit[m];
	pv__export_lossy_common(p, m, false, false, false, "speedscope", lossy);
	if (u != PV_UNIT_NS && u != PV_UNIT_BYTES && u != PV_UNIT_COUNT)
		pv_lossy_add(lossy, 1,
			     "the unit of '%s' (%s): speedscope's units are times, bytes "
			     "or none",
			     pv_str(p, p->metrics.name[m]), pv_unit_name(u));
	uint32_t maxd = 0;
	uint32_t *depth = pv__stack_depths(p, &maxd);
	pv_frame_ix *fr = depth ? pv_malloc(((size_t)maxd + 1) * sizeof(*fr)) : NULL;
	if (!fr) {
		pv_free(depth);
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"profview\",\"name\":",
	      out);
	pv_json_fput_string(out, pv_str(p, p->metrics.name[m]));
	fputs(",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[", out);
	for (pv_func_ix f = 0; f < p->funcs.len; f++) {
		const char *name = pv_str(p, p->funcs.name[f]);
		fputs(f ? ",\n{\"name\":" : "\n{\"name\":", out);
		pv_json_fput_string(out, *name ? name : "[unknown]");
		/* the source file, else the module's file as speedscope's perf importer writes it
		 */
		pv_source_ix src = pv_func_source(p, f);
		pv_module_ix mod = pv_func_module(p, f);
		const char *file = src != PV_NONE ? pv_str(p, p->sources.path[src])
				   : mod != PV_NONE
				       ? pv_str(p, p->modules.path[mod] ? p->modules.path[mod]
									: p->modules.name[mod])
				       : "";
		if (*file) {
			fputs(",\"file\":", out);
			pv_json_fput_string(out, file);
		}
		if (pv_func_line(p, f))
			fprintf(out, ",\"line\":%u", pv_func_line(p, f));
		if (pv_func_line(p, f) && pv_func_column(p, f))
			fprintf(out, ",\"col\":%u", pv_func_column(p, f));
		fputc('}', out);
	}
	fputs("]},\n\"profiles\":[", out);
	for (pv_thread_ix t = 0; t < p->threads.len; t++) {
		uint32_t b = p->threads.sample_begin[t], e = p->threads.sample_end[t];
		int64_t sum = 0;
		for (uint32_t s = b; s < e; s++)
			sum += pv_sample_weight(p, m, s);
		fputs(t ? ",\n{\"type\":\"sampled\",\"name\":"
			: "\n{\"type\":\"sampled\",\"name\":",
		      out);
		const char *name = pv_str(p, p->threads.name[t]);
		pv_json_fput_string(out, *name ? name : "thread");
		fprintf(out,
			",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRId64
			",\n\"samples\":[",
			unit_name(u), sum);
		for (uint32_t s = b; s < e; s++) {
			pv_stack_ix st = p->samples.stack[s];
			uint32_t k = st == PV_NONE ? 0 : pv__stack_frames(p, st, fr, maxd + 1);
			fputs(s > b ? ",[" : "[", out);
			for (uint32_t j = 0; j < k; j++)
				fprintf(out, j ? ",%u" : "%u", p->frames.func[fr[j]]);
			fputc(']', out);
		}
		fputs("],\n\"weights\":[", out);
		for (uint32_t s = b; s < e; s++) {
			int64_t w = pv_sample_weight(p, m, s);
			fprintf(out, s > b ? ",%" PRId64 : "%" PRId64, w);
		}
		fputs("]}", out);
	}
	fputs("]}\n", out);
	pv_free(fr);
	pv_free(depth);
	return pv__export_check(out, err);
}
