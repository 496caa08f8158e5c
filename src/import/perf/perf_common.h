/*
 * perf_common.h - what the two perf importers share (perf_script_text.c defines it), so that a
 * perf.data file and its perf script text name things alike.
 */
#ifndef PV_IMPORT_PERF_COMMON_H
#define PV_IMPORT_PERF_COMMON_H

#include "model/builder.h"

/*
 * Shared with the perf.data importer (perf_data.c):
 * the module of a dso path or "[name]" (its name the path's last part, its kind by the path),
 * the name of a frame perf could not name ("[unknown]", "[MODULE]" in a known module, as
 * stackcollapse-perf.pl names it), and the unit of an event's metric.
 */
pv_module_ix perf_module_new(struct pv_builder *b, const char *d, size_t n);
pv_str_ix perf_unknown_name(struct pv_builder *b, pv_module_ix mod);
enum pv_unit perf_event_unit(const char *n, size_t len);
/* Every sample and marker time made relative to z (the earliest), said in the report. */
void perf_rebase_times(struct pv_builder *b, int64_t z);

/*
 * A tracepoint's printed fields "k=v k=v ..." (perf script's text, or a perf.data sample's raw
 * data printed by its format) into a marker payload {"k":v,...} (perf_script_text.c): a token
 * without '=' continues the previous value ("comm=Web Content"), "==>" (sched_switch)
 * separates, canonical integers are numbers; anything else is {"text":"..."}. j is the buffer
 * reused from one call to the next (free j->buf at the end).
 */
struct perf_json {
	char *buf;
	size_t len, cap;
};
pv_str_ix perf_payload_json(struct pv_builder *b, struct perf_json *j, const char *p,
			    const char *e);

#endif
