/*
 * contexts.h - one row's values over the execution contexts (doc/contexts.md).
 *
 * An execution context is a thread of the profile: a thread, a process, an MPI rank, a GPU
 * stream. For one row of a view and one metric, each selected context gets the row's inclusive
 * value (its samples that pass through the row) and exclusive value (those whose own frame is
 * the row), as the row's total and self would be in a view of that context alone; a summary
 * (sum, mean, min, max, standard deviation, coefficient of variation, imbalance) is taken over
 * all selected contexts, those without the row counting 0. hpcviewer's plot of a calling
 * context's metric over the execution contexts, its sorted plot and its histogram are drawn
 * from these values; for thousands of contexts a plot is reduced to a column of pixels at a
 * time (the min and max of the contexts that fall into it) by pv_contexts_columns.
 *
 * Cost: the query's top-down tree once (one pass over the selected samples, the filters' passes
 * over the distinct stacks), then one pass over the distinct stacks and one over the selected
 * samples. Sorting is n log n in the contexts, the histogram and the columns one pass.
 */
#ifndef PV_CONTEXTS_H
#define PV_CONTEXTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pv/view.h"

/* One step of a row's path from its tree's root: its kind (enum pv_row_kind), id and line. */
struct pv_row_step {
	uint8_t kind;
	uint32_t id, line;
};

enum pv_ctx_value {
	PV_CTX_INCLUSIVE = 0,
	PV_CTX_EXCLUSIVE = 1,
};

struct pv_ctx_summary {
	uint32_t n;	  /* contexts */
	uint32_t nonzero; /* contexts whose value is not 0 */
	int64_t sum, min, max;
	double mean;
	double stddev; /* population standard deviation (as hpcprof's StdDev) */
	/* ratios to the mean, NaN when the mean is 0 (undefined: "-" in text, null in JSON) */
	double cv;	  /* coefficient of variation: stddev / mean */
	double imbalance; /* max / mean */
};

struct pv_contexts {
	const struct pv_profile *p;
	uint32_t len;			  /* the selected contexts */
	pv_thread_ix *thread;		  /* their threads, in index order */
	int64_t *value[2];		  /* [enum pv_ctx_value][context] */
	struct pv_ctx_summary summary[2]; /* [enum pv_ctx_value] */
	pv_metric_ix metric;
	char *name; /* the row as printed: "solve", a center label, "(all)" */
	char *note; /* how exact the values are (a call-graph profile's
		     * estimated contexts); NULL when nothing to say */
};

/*
 * The values of one row over the contexts q selects (its --thread values, all by default):
 * the row of the query's top-down tree (q's view: tree or butterfly, the butterfly's callees;
 * any other view kind is taken as a tree) whose path from the root is path[0..depth) (steps as
 * the tree's kind, id and line; a centered tree's root is its PV_ROW_CENTER row). depth 0: the
 * center row of a centered query, else the whole (every selected sample, "(all)", exclusive 0).
 * The metric is q's first (a statistic NAME:mean is taken as NAME: each context's own value),
 * or the profile's default. Every filter, the time range and the other selections apply.
 * Returns 0; PV_EINVAL with err for a query that does not fit the profile or a path naming no
 * row; PV_ENOMEM.
 */
int pv_contexts_compute(const struct pv_profile *p, const struct pv_query *q,
			const struct pv_row_step *path, uint32_t depth, struct pv_contexts **out,
			struct pv_error *err);
void pv_contexts_free(struct pv_contexts *c);

/* The path of row r of tree t from its root, r last: writes the first min(depth, cap) steps to
 * steps and returns the depth (r's depth + 1). */
uint32_t pv_tree_row_path(const struct pv_tree *t, uint32_t r, struct pv_row_step *steps,
			  uint32_t cap);

/* order[k] = the context (an index of c's arrays) at position k of the sorted plot: by value,
 * largest first, ties by index. order holds c->len entries. */
void pv_contexts_sort(const struct pv_contexts *c, enum pv_ctx_value which, uint32_t *order);

/*
 * The histogram of the values: bins of equal width w = (max - min) / bins from the summary's
 * min; bin k holds the values in [min + k w, min + (k + 1) w), the last bin also max (every
 * value in bin 0 when max == min, w then 0). count holds bins entries; bin, when not NULL, gets
 * each context's bin (c->len entries). Returns w.
 */
double pv_contexts_histogram(const struct pv_contexts *c, enum pv_ctx_value which, uint32_t bins,
			     uint32_t *count, uint32_t *bin);

/* A pixel column of a plot: the contexts at positions [first, first + n) of the plot's order. */
struct pv_ctx_column {
	uint32_t first, n;
	int64_t min, max;
	uint32_t at_min, at_max; /* the contexts (indexes of c's arrays) holding min and max */
};

/*
 * A window of a plot reduced to pixel columns: positions [from, to) of order (NULL: the
 * contexts' own order) over at most width columns, each the min and max of its positions
 * (column x holds positions from + floor(x (to - from) / n) up to the next column's first,
 * n = min(width, to - from): one position a column when they fit). Writes and returns n.
 */
uint32_t pv_contexts_columns(const struct pv_contexts *c, enum pv_ctx_value which,
			     const uint32_t *order, uint32_t from, uint32_t to, uint32_t width,
			     struct pv_ctx_column *cols);

/* What a plot shows: which value, in which order, which window, at how many columns and bins. */
struct pv_contexts_plot_opts {
	enum pv_ctx_value which;
	bool by_value;	   /* the sorted plot (pv_contexts_sort), else index order */
	uint32_t from, to; /* the window: positions [from, to) of the order, clamped to the
			    * contexts (to UINT32_MAX: to the last) */
	uint32_t width;	   /* at most this many pixel columns (0: none) */
	uint32_t bins;	   /* histogram bins (0: no histogram) */
};

/* A plot of c as the page draws it and the CLI prints it (pv_contexts_plot). */
struct pv_contexts_plot {
	enum pv_ctx_value which;
	uint32_t *order;   /* by_value: the context at each position (c->len); NULL: index
			    * order */
	uint32_t from, to; /* the window, clamped: from <= to <= c->len */
	uint32_t nr_cols;  /* pv_contexts_columns over the window */
	struct pv_ctx_column *cols;
	uint32_t bins; /* pv_contexts_histogram: count[bins], each context's bin[c->len]
			* (NULL without bins), the bins' width */
	uint32_t *count, *bin;
	double bin_width;
};

/* The plot of c that o asks for (order, window, columns, histogram). Returns 0 or PV_ENOMEM
 * (pl then holds nothing). Release it with pv_contexts_plot_release. */
int pv_contexts_plot(const struct pv_contexts *c, const struct pv_contexts_plot_opts *o,
		     struct pv_contexts_plot *pl);
void pv_contexts_plot_release(struct pv_contexts_plot *pl);

/* A summary as one JSON object: {"n", "nonzero", "sum", "mean", "min", "max", "stddev", "cv",
 * "imbalance"}, cv and imbalance null when the mean is 0 (the CLI's --json and the web API
 * write it alike). */
struct pv_json;
void pv_json_contexts_summary(struct pv_json *j, const struct pv_ctx_summary *s);

struct pv_contexts_print_opts {
	bool json;
	bool sorted;	    /* --sort value: the contexts by inclusive value, largest first */
	uint32_t histogram; /* --histogram N: N bins of the inclusive values instead of the
			     * contexts (0: the contexts) */
};

/*
 * `profview contexts`: one line per context (index, name, inclusive, exclusive) or the
 * histogram's bins, then the summary lines; JSON {"metric", "unit", "row", "note", "contexts":
 * [{"index", "name", "tid", "inclusive", "exclusive"}], "summary": {"inclusive": SUMMARY,
 * "exclusive": SUMMARY}, ["histogram": {"min", "width", "counts": [N...]}]}. Returns 0 or
 * PV_ENOMEM.
 */
int pv_print_contexts(FILE *out, const struct pv_contexts *c,
		      const struct pv_contexts_print_opts *o);

#endif
