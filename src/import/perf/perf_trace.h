/*
 * perf_trace.h - tracepoint payloads of perf.data (doc/perf-data.md): the event formats of the
 * HEADER_TRACING_DATA feature section (what perf copies from the tracing folder's format files
 * at record time) read with libtraceevent, and each tracepoint sample's raw data printed as
 * `perf script` prints it (libtraceevent's print format of the event: "prev_comm=sh
 * prev_pid=12 ... ==> next_comm=..."), which the perf script importer's rule turns into the
 * marker's fields.
 */
#ifndef PV_IMPORT_PERF_TRACE_H
#define PV_IMPORT_PERF_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct perf_trace;

/*
 * The formats of the tracing data section [p, p + n): NULL when it is not one (bad magic, cut
 * short) or out of memory; *why (may be NULL) then says which.
 */
struct perf_trace *perf_trace_new(const unsigned char *p, size_t n, const char **why);
void perf_trace_free(struct perf_trace *t);

/*
 * Event id's raw data [raw, raw + n) as perf script prints it, into *out (its length in *len;
 * valid until the next call or perf_trace_free): 0, or -1 when the event has no format or a
 * field (or a dynamic field's data) lies past the n bytes (damage: nothing is read there).
 */
int perf_trace_print(struct perf_trace *t, uint64_t id, const unsigned char *raw, uint32_t n,
		     int cpu, uint64_t time, const char **out, size_t *len);

#endif
