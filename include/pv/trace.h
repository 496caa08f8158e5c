/*
 * trace.h - the trace view: execution contexts x time (doc/trace.md).
 *
 * A trace is one line per thread (an execution context: a thread, a rank, a GPU stream), each a
 * time-ordered sequence of records (time, stack): the context was in that stack from the
 * record's time until the next record's, the last one until the line's end. The lines are the
 * profile's trace records (HPCToolkit's trace.db, *.hpctrace, experiment.mt) when it has them,
 * else each thread's samples that have a time (Firefox, perf, Chrome, pprof with timestamps):
 * a sample lasts until the thread's next sample, the last one for the sampling interval.
 *
 * Depth counts the code frames of a stack from its root (0): loop and statement frames
 * (HPCToolkit) belong to the function of the code frame above them and have no depth of their
 * own. The function "at depth d" of a stack is that of its code frame at depth d, or of its
 * deepest code frame when the stack is shorter (hpctraceviewer's rule).
 *
 * Every lookup at a time is a binary search in one line's records. A trace and a paint are
 * read-only once made: any number of threads may use them at once. Both borrow the profile.
 */
#ifndef PV_TRACE_H
#define PV_TRACE_H

#include <stdbool.h>
#include <stdio.h>

#include "pv/profile.h"
#include "pv/query.h"

struct pv_trace;

/* The trace of p: one line per thread (a thread without records has an empty line). 0 or
 * PV_ENOMEM. The lines borrow p's columns when they are in order already (no copy). */
int pv_trace_open(const struct pv_profile *p, struct pv_trace **out, struct pv_error *err);
/*
 * A trace of lines the caller holds (benchmarks, tests): line c has lens[c] records times[c][i],
 * stacks[c][i] (stacks of p), in time order, ending at ends[c]. Lines may share arrays. The
 * arrays are borrowed. 0 or PV_ENOMEM.
 */
int pv_trace_from_lines(const struct pv_profile *p, uint32_t nlines, const int64_t *const *times,
			const pv_stack_ix *const *stacks, const uint32_t *lens, const int64_t *ends,
			struct pv_trace **out, struct pv_error *err);
void pv_trace_free(struct pv_trace *t);

uint32_t pv_trace_lines(const struct pv_trace *t);
uint64_t pv_trace_records(const struct pv_trace *t);
/* The earliest record's time and the latest line end (both 0 for an empty trace). */
void pv_trace_range(const struct pv_trace *t, int64_t *start, int64_t *end);
/* One more than the deepest depth of any stack of the profile (0 without stacks). */
uint32_t pv_trace_max_depth(const struct pv_trace *t);

/*
 * The record of line c in force at time: its index in the line, PV_NONE before the line's first
 * record, at or after its end, or past the last line. *start and *end (either may be NULL) get
 * the record's interval, *stack its stack (PV_NONE: the context was not running).
 */
uint32_t pv_trace_at(const struct pv_trace *t, uint32_t c, int64_t time, pv_stack_ix *stack,
		     int64_t *start, int64_t *end);

/*
 * The frames of stack s from its root (at most cap written to frames, with each frame's depth
 * in depth[], PV_NONE for a loop or statement frame, which has none); returns how many there
 * are. s PV_NONE has none.
 */
uint32_t pv_trace_frames(const struct pv_trace *t, pv_stack_ix s, pv_frame_ix *frames,
			 uint32_t *depth, uint32_t cap);
/* A frame as a row names it: "func", "func:line" (a line known), "loop at FILE:LINE". */
const char *pv_trace_frame_name(const struct pv_profile *p, pv_frame_ix f, char *buf, size_t n);

/* ---- a trace under a query, at a depth: what the pixels show ---- */

struct pv_trace_paint;

/*
 * The query's contexts (its threads, in thread order; all without --thread) and which records
 * count: a record is shown when its stack passes the query's filters and, with a center,
 * reaches the center (pv_view_compute_keep's stack mask); other records are blank. The query's
 * time range does not apply (the window is the time range). Each shown record is coloured by
 * the function at depth. 0; PV_EINVAL for a query that does not fit the profile; PV_ENOMEM.
 */
int pv_trace_paint_new(const struct pv_trace *t, const struct pv_query *q, uint32_t depth,
		       struct pv_trace_paint **out, struct pv_error *err);
void pv_trace_paint_free(struct pv_trace_paint *pt);
uint32_t pv_trace_paint_contexts(const struct pv_trace_paint *pt);
uint32_t pv_trace_paint_depth(const struct pv_trace_paint *pt);
const struct pv_trace *pv_trace_paint_trace(const struct pv_trace_paint *pt);
const struct pv_profile *pv_trace_profile(const struct pv_trace *t);
/* The thread (trace line) of context c of the paint. */
pv_thread_ix pv_trace_paint_thread(const struct pv_trace_paint *pt, uint32_t c);
/* The records (samples) of context c's line, whatever the query (0 past the last context). */
uint32_t pv_trace_paint_records(const struct pv_trace_paint *pt, uint32_t c);
/* The function a shown record of stack s has at the paint's depth; PV_NONE when not shown. */
pv_func_ix pv_trace_paint_func(const struct pv_trace_paint *pt, pv_stack_ix s);
/*
 * Why a context shows what it shows at a time (the one rule of the CLI's `trace --at` and the
 * page's hover): record rec (PV_NONE: none in force) of stack s (PV_NONE: not running) is
 * shown, or blank because there is no record, the context is not running, its stack passes
 * through HPCToolkit's "<no activity>" (idle), or the query leaves it out -- in that order.
 */
enum pv_trace_state {
	PV_TRACE_SHOWN,
	PV_TRACE_NO_RECORD,
	PV_TRACE_NOT_RUNNING,
	PV_TRACE_NO_ACTIVITY,
	PV_TRACE_LEFT_OUT,
};
enum pv_trace_state pv_trace_paint_state(const struct pv_trace_paint *pt, uint32_t rec,
					 pv_stack_ix s);
/* "shown", "no record", "not running", "no activity", "left out" */
const char *pv_trace_state_name(enum pv_trace_state st);

/*
 * A window of the trace: times [t0, t1) by contexts [c0, c1) of the paint, drawn as width x
 * height pixels. Pixel (x, y) shows context c0 + floor((y + 1/2) (c1 - c0) / height) at time
 * t0 + (x + 1/2) (t1 - t0) / width: the middle of its row and column.
 */
struct pv_trace_window {
	int64_t t0, t1;
	uint32_t c0, c1;
	uint32_t width, height;
};

/*
 * Fills px (width x height, row-major) with the function of each pixel at the paint's depth,
 * PV_NONE where no record is shown. A binary search per pixel in its context's records (each
 * search starting where the pixel to its left was found). 0, or PV_EINVAL for an empty or
 * out-of-range window (c1 > contexts, t1 <= t0, a zero size, more than 2^26 pixels).
 */
int pv_trace_image(const struct pv_trace_paint *pt, const struct pv_trace_window *w, pv_func_ix *px,
		   struct pv_error *err);

/* A function's count of pixels (func PV_NONE: the blank pixels). */
struct pv_trace_share {
	pv_func_ix func;
	uint32_t pixels;
};

/*
 * The shares of the functions in columns [x0, x1) of an image of width x height pixels (the
 * summary strip: one column; the statistics of the region: all of them), most pixels first,
 * ties by function index; blank pixels are one entry of func PV_NONE. Returns how many entries
 * (at most cap are written). Costs one pass over those pixels and a sort of the functions.
 */
uint32_t pv_trace_shares(const pv_func_ix *px, uint32_t width, uint32_t height, uint32_t x0,
			 uint32_t x1, struct pv_trace_share *out, uint32_t cap);

/*
 * The depth view of one context (the Firefox Profiler's stack chart): boxes (depth, [start,
 * end), function) over the time window [t0, t1), a box being a run of consecutive shown records
 * whose call paths (functions from the root) agree down to its depth. Boxes shorter than min_ns
 * are left out (a pixel's time: they could not be seen). stack is the stack of the box's code
 * frame in its first record (its call path: pv_trace_frames).
 */
struct pv_trace_box {
	int64_t start, end;
	uint32_t depth;
	pv_func_ix func;
	pv_stack_ix stack;
};

/* *out (to free with pv_free_boxes) and *n; 0, PV_EINVAL (bad context or window), PV_ENOMEM. */
int pv_trace_boxes(const struct pv_trace_paint *pt, uint32_t c, int64_t t0, int64_t t1,
		   int64_t min_ns, struct pv_trace_box **out, uint32_t *n, struct pv_error *err);
void pv_free_boxes(struct pv_trace_box *b);
/* The same boxes, each given to fn as it is closed (each depth's in time order, the depths
 * interleaved: a deeper box before the one holding it); a non-zero return of fn stops the walk
 * and is returned (PV_ENOMEM: err set). */
int pv_trace_boxes_each(const struct pv_trace_paint *pt, uint32_t c, int64_t t0, int64_t t1,
			int64_t min_ns, int (*fn)(void *arg, const struct pv_trace_box *b),
			void *arg, struct pv_error *err);

/*
 * The stack chart as drawn width pixels wide (the page's Stack Chart, `profview trace --boxes
 * --width`): the boxes above, at most one a pixel column and depth. Column x of a depth shows
 * the box holding its middle time, t0 + (x + 1/2) (t1 - t0) / width (the trace view's pixel
 * rule), or nothing. A box as wide as a column or more is one chart box with its own times; the
 * narrower boxes of consecutive columns are one chart box from the first one's start to the
 * last one's end, of their function when they share it, else PV_NONE (several functions, each
 * under a pixel), n saying how many boxes it stands for. Sorted by depth, then time. stack is
 * the first box's.
 */
struct pv_trace_chart_box {
	int64_t start, end;
	uint32_t depth, x0, x1; /* the columns [x0, x1) */
	pv_func_ix func;
	pv_stack_ix stack;
	uint32_t n;
};

/* *out (to free with pv_free_chart) and *n; 0, PV_EINVAL (bad context, window or width: 1 to
 * 2^20), PV_ENOMEM. */
int pv_trace_chart(const struct pv_trace_paint *pt, uint32_t c, int64_t t0, int64_t t1,
		   uint32_t width, struct pv_trace_chart_box **out, uint32_t *n,
		   struct pv_error *err);
void pv_free_chart(struct pv_trace_chart_box *b);

/* ---- renderings shared by the CLI (profview trace) and the web API (doc/trace.md) ---- */

/*
 * The call stack of context c of the paint (the query's c-th thread) at time (ns), root first,
 * each frame with its depth (blank for loops and statements). JSON: {"context", "thread",
 * "thread_index", "shown", "state", "time", "record", "start", "end", "frames": [{"depth",
 * "name", "function", "id", "scope", "kind"}]} (times in ms; record, start, end null and frames
 * empty where no record is in force; shown false when the record is blank, state saying why:
 * pv_trace_state_name of pv_trace_paint_state). Returns 0 or
 * PV_ENOMEM; a context past the paint's has no record.
 */
int pv_print_trace_stack(FILE *out, const struct pv_trace_paint *pt, uint32_t c, int64_t time,
			 bool json);

struct pv_trace_print {
	bool json;
	bool runs;    /* JSON rows as [id, count, id, count, ...] runs instead of one id a pixel */
	bool summary; /* JSON: the shares of each column too ("summary") */
	bool records; /* JSON: each context's records too ("records": [N, ...] from c0) */
};

/*
 * A window (pv_trace_image) and the statistics of its pixels (pv_trace_shares). Text: the share
 * of each function. JSON: {"t0", "t1", "c0", "c1", "contexts", "width", "height", "depth",
 * "max_depth", "names", "labels": [[C, NAME], ...], "functions": [{"id", "name", "scope"}],
 * "shares": [{"id", "pixels", "percent"}], "rows": [[ID, ...], ...], "summary": [[ID, PIXELS, ...],
 * ...], "records": [N, ...]} (records with o->records: pv_trace_paint_records of each context
 * of the window) with ID -1 for a blank pixel; "labels" has one context per pixel row when they
 * outnumber the rows (the row's), else each. 0, PV_EINVAL (a bad window, err set), PV_ENOMEM.
 */
int pv_print_trace_window(FILE *out, const struct pv_trace_paint *pt,
			  const struct pv_trace_window *w, const struct pv_trace_print *o,
			  struct pv_error *err);

/*
 * The depth view (the stack chart) of context c over [t0, t1) (pv_trace_boxes). Text: a line
 * per box (depth, start, end in ms, the function indented by its depth); JSON: {"context",
 * "thread", "t0", "t1", "boxes": [{"depth", "start", "end", "id", "name", "stack"}]} (times in
 * ms). 0, PV_EINVAL (a bad context or window, err set), PV_ENOMEM, PV_EIO.
 */
int pv_print_trace_boxes(FILE *out, const struct pv_trace_paint *pt, uint32_t c, int64_t t0,
			 int64_t t1, int64_t min_ns, bool json, struct pv_error *err);

/*
 * The stack chart of context c over [t0, t1) as drawn width pixels wide (pv_trace_chart). Text:
 * a line per box (depth, its columns, start, end in ms, the boxes it stands for, the function
 * indented by its depth); JSON (the web API's form): {"context", "thread", "t0", "t1", "width",
 * "boxes", "functions": [[ID, NAME], ...], "rows": [[GAP, WIDTH, ID, N, ...], ...]}, a row per
 * depth from 0, four numbers a box: its first column less the previous box's end (0 for the
 * first box), its columns, ID -1 for several functions. 0, PV_EINVAL (err set), PV_ENOMEM,
 * PV_EIO.
 */
int pv_print_trace_chart(FILE *out, const struct pv_trace_paint *pt, uint32_t c, int64_t t0,
			 int64_t t1, uint32_t width, bool json, struct pv_error *err);

/*
 * The trace as a whole: text "trace: N contexts, N records (trace records|timed samples), T0 to
 * T1 ms, depths 0 to D"; JSON {"contexts", "records", "start", "end", "max_depth"} (times in ms
 * with 6 decimals). 0, PV_ENOMEM or PV_EIO.
 */
int pv_print_trace_overview(FILE *out, const struct pv_trace *t, bool json);

/* The JSON answers above written through j (pv/jsonw.h: the web API's writer), each one object
 * and a newline; the same errors. */
struct pv_json;
int pv_json_trace_stack(struct pv_json *j, const struct pv_trace_paint *pt, uint32_t c,
			int64_t time);
int pv_json_trace_window(struct pv_json *j, const struct pv_trace_paint *pt,
			 const struct pv_trace_window *w, const struct pv_trace_print *o,
			 struct pv_error *err);
/* compact: "functions": [[ID, NAME], ...] once and "boxes": [[DEPTH, START, END, ID, STACK], ...]
 * (the web API's form: a long C++ name is not repeated in every box) */
int pv_json_trace_boxes(struct pv_json *j, const struct pv_trace_paint *pt, uint32_t c, int64_t t0,
			int64_t t1, int64_t min_ns, bool compact, struct pv_error *err);
int pv_json_trace_chart(struct pv_json *j, const struct pv_trace_paint *pt, uint32_t c, int64_t t0,
			int64_t t1, uint32_t width, struct pv_error *err);
/* The chart's answer of boxes b, n (pv_trace_chart's) with the names of named[0..nnamed) in
 * "functions" instead of those of its boxes (the web API: the page keeps the names it was sent,
 * each name is sent once a session) and, when known is not NULL, "known": [known[0], known[1]]
 * (the session's names log and how many names it has sent) after "functions". */
int pv_json_trace_chart_named(struct pv_json *j, const struct pv_trace_paint *pt, uint32_t c,
			      int64_t t0, int64_t t1, uint32_t width,
			      const struct pv_trace_chart_box *b, uint32_t n,
			      const pv_func_ix *named, uint32_t nnamed, const uint32_t *known,
			      struct pv_error *err);
/* The chart box of depth holding column x (pv_trace_chart), its times exact (the page's hover):
 * {"context", "thread", "t0", "t1", "width", "box": {"depth", "x0", "x1", "start", "end", "n",
 * "id", "name", "stack"}} (times in ms, id -1 and name null for several functions), "box" null
 * where no box is. */
int pv_json_trace_chart_box(struct pv_json *j, const struct pv_trace_paint *pt, uint32_t c,
			    int64_t t0, int64_t t1, uint32_t width, uint32_t depth, uint32_t x,
			    struct pv_error *err);

#endif
