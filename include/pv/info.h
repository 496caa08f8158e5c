/*
 * info.h - the figures of a profile that `profview info` and the page's profile answer show:
 * per-thread sample counts and time spans, per-metric totals, samples without a stack, the
 * raw markers by phase, the label keys, the time span of the whole profile. One pass over the
 * samples and one over the raw markers; the names and table sizes are read from the profile.
 */
#ifndef PV_INFO_H
#define PV_INFO_H

#include <stdbool.h>

#include "pv/profile.h"
#include "pv/query.h"

struct pv_thread_info {
	uint32_t samples;
	int64_t first_ns, last_ns; /* the first and last sample time, PV_TIME_NONE when none */
	int64_t weight;		   /* the default metric's total (0 without a metric) */
	int64_t active;		   /* of it, the samples with a stack whose leaf category is not
				    * "Idle" (the Firefox Profiler's thread sample score) */
	bool idle;		   /* active below PV_IDLE_PERCENT % of the busiest thread's (a
				    * thread without samples included): a track hidden by default */
};

#define PV_IDLE_PERCENT 5 /* the Firefox Profiler's IDLE_THRESHOLD_FRACTION */

struct pv_label_info {
	pv_str_ix key, unit; /* unit 0: none */
	uint64_t values;     /* rows of the key (its distinct values) */
};

#define PV_INFO_LABELS 64 /* label keys listed, at most (pprof has a handful) */

struct pv_profile_info {
	const struct pv_profile *p;
	struct pv_thread_info *threads; /* per thread */
	int64_t *metric_total;		/* per metric */
	uint64_t samples_without_stack;
	uint64_t marker_phases[4]; /* raw markers: instant, interval, start, end */
	uint32_t nr_labels;	   /* label keys in first-seen order */
	struct pv_label_info labels[PV_INFO_LABELS];
	int64_t start_ns, end_ns; /* pv_profile_span */
	bool timed;		  /* some sample or marker has a time (pv_profile_span): else the
				   * profile has no time axis (no timeline) */
	pv_thread_ix busiest;	  /* the thread with the most active cost (the lowest index of a
				   * tie); PV_NONE when no thread has any */
	bool one_program;	  /* pv_profile_one_program: the threads add up to one program */
	/*
	 * What a viewer (the page, the TUI) opens on when the user names no thread: PV_NONE, all
	 * threads summed — a profile of one program (hpcviewer opens a database so), or of one
	 * thread — else the busiest thread (the Firefox Profiler's habit for a browser's or a
	 * system's independent threads). The CLI's views always sum every thread, as perf report,
	 * pprof and callgrind_annotate do.
	 */
	pv_thread_ix open_thread;
	/*
	 * The granularities (--by) whose rows the profile has, what a viewer offers: function
	 * always; line when a frame has a line, file when a function has a source file, module
	 * when one has a module, loop when a frame is a loop (HPCToolkit). inlines: some frame is
	 * inlined code (--inline fold changes something).
	 */
	bool by[PV_BY_LOOP + 1];
	bool inlines;
};

/* Returns 0 or PV_ENOMEM; free with pv_profile_info_free. */
int pv_profile_info(const struct pv_profile *p, struct pv_profile_info **out);
void pv_profile_info_free(struct pv_profile_info *in);

/* The first and last sample times (ns); false, and both 0, when no sample has a time. */
bool pv_samples_span(const struct pv_profile *p, int64_t *first_ns, int64_t *last_ns);
/* The span of the sample times and the raw markers' times (ns); false, and both 0, when none has
 * a time (collapsed stacks, callgrind, an HPCToolkit database's summary values): no time axis. */
bool pv_profile_span(const struct pv_profile *p, int64_t *start_ns, int64_t *end_ns);

#endif
