/*
 * export.h - writing profiles in the formats other tools open (doc/export.md).
 *
 * An export is two steps: pv_profile_select() turns a profile and a query into the profile the
 * query selects (its threads, its time range, its filters and transforms applied to the stacks,
 * re-rooted at the center when the query has one), then pv_export_write() writes a whole
 * profile in one format. Each format is one module of src/export/. What the target format cannot
 * carry is listed in a struct pv_lossy (one line per kind, with how many values it cost), never
 * dropped silently.
 */
#ifndef PV_EXPORT_H
#define PV_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "pv/profile.h"
#include "pv/query.h"

enum pv_export_format {
	PV_EXPORT_FIREFOX = 0, /* the Firefox Profiler's processed format (JSON) */
	PV_EXPORT_SPEEDSCOPE,  /* speedscope's file format (JSON) */
	PV_EXPORT_PPROF,       /* profile.proto, gzip */
	PV_EXPORT_COLLAPSED,   /* folded stacks: a;b;c N */
	PV_EXPORT_SVG,	       /* an interactive flame graph (icicle: bottom-up) */
	PV_EXPORT_NR,
};

/* "firefox", "speedscope", "pprof", "collapsed", "svg". */
const char *pv_export_format_name(enum pv_export_format f);
/* 0, or PV_EINVAL for a name not in the list above. */
int pv_export_format_parse(const char *s, enum pv_export_format *out);

/* What an export (or a selection) could not carry: message and how many values it concerned. */
#define PV_LOSSY_MAX 32
struct pv_lossy {
	uint32_t len;
	struct {
		char msg[200];
		uint64_t count;
	} item[PV_LOSSY_MAX];
};
/* Adds count to the line msg (a new line when it is new); nothing when count is 0. */
void pv_lossy_add(struct pv_lossy *l, uint64_t count, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Folded stacks: how a thread shows in each line (stackcollapse-perf.pl's default, --pid, --tid).
 */
enum pv_collapsed_threads {
	PV_COLLAPSED_AUTO = 0, /* tid when the profile has several threads, else none */
	PV_COLLAPSED_NONE,     /* threads merged, no thread frame */
	PV_COLLAPSED_COMM,     /* "comm;" first (stackcollapse-perf.pl's default) */
	PV_COLLAPSED_PID,      /* "comm-PID;" */
	PV_COLLAPSED_TID,      /* "comm-PID/TID;" */
};
/*
 * The comment line a folded file starts with when its first frames are functions although the
 * first one looks like a thread frame ("worker-3": comm-PID): the collapsed importer then reads
 * no thread frame. flamegraph.pl, inferno and speedscope skip it.
 */
#define PV_COLLAPSED_NO_THREADS "# no thread frames"
/* "auto", "none", "comm", "pid", "tid"; parse returns 0 or PV_EINVAL. */
const char *pv_collapsed_threads_name(enum pv_collapsed_threads t);
int pv_collapsed_threads_parse(const char *s, enum pv_collapsed_threads *out);

struct pv_export_opts {
	/* the metric of the formats that carry one (collapsed, svg; firefox's samples): PV_NONE =
	 * the profile's default */
	pv_metric_ix metric;
	enum pv_collapsed_threads collapsed_threads;
	bool plain;  /* collapsed: no "_[k]" (kernel), "_[j]" (JIT), "_[i]" (inlined) suffixes */
	bool tidy;   /* collapsed: names tidied as stackcollapse-perf.pl does (C++ arguments and
		      * quotes removed; Java's 'L' prefix in a thread named java) */
	bool icicle; /* svg: a bottom-up view, leaves on top (the callers of each function) */
	const char *title; /* svg: the title; NULL = "Flame Graph" / "Icicle Graph" */
};

/*
 * The part of p that q selects, as a profile of its own: the selected threads (all when q names
 * none), their samples that the query keeps (range, tags, inside-markers, include/drop), on the
 * stacks its transforms (merge, collapse, focus, prune, --inline fold) leave, cut at the center
 * when q has one (stacks start at the center's frame: the center's subtree). Metrics: those q
 * names (none: all). Markers: those of the selected threads that overlap the range, their cause
 * stacks through the same transforms (a cause stack outside the center is dropped, in lossy).
 * The view kind and the printing options of q do not matter. Returns 0, PV_EINVAL (a query that
 * does not fit p, err says why) or PV_ENOMEM; *out is the caller's (pv_profile_free).
 */
int pv_profile_select(const struct pv_profile *p, const struct pv_query *q, struct pv_profile **out,
		      struct pv_lossy *lossy, struct pv_error *err);

/*
 * Writes p whole in format f to out (opened in binary mode for pprof). opts may be NULL (the
 * defaults). Returns 0, PV_EIO (a write failed), PV_EINVAL (a bad option) or PV_ENOMEM.
 */
int pv_export_write(FILE *out, const struct pv_profile *p, enum pv_export_format f,
		    const struct pv_export_opts *opts, struct pv_lossy *lossy,
		    struct pv_error *err);

#endif
