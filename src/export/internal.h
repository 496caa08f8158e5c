/*
 * internal.h - what the export modules (src/export/) share.
 */
#ifndef PV_EXPORT_INTERNAL_H
#define PV_EXPORT_INTERNAL_H

#include "pv/export.h"

/* One writer per format; opts is never NULL here. */
int pv__export_firefox(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
		       struct pv_lossy *lossy, struct pv_error *err);
int pv__export_speedscope(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
			  struct pv_lossy *lossy, struct pv_error *err);
int pv__export_pprof(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
		     struct pv_lossy *lossy, struct pv_error *err);
int pv__export_collapsed(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
			 struct pv_lossy *lossy, struct pv_error *err);
int pv__export_svg(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
		   struct pv_lossy *lossy, struct pv_error *err);

/* The metric an export of one metric writes: opts', else the profile's default. */
pv_metric_ix pv__export_metric(const struct pv_profile *p, const struct pv_export_opts *o);

/*
 * Lists what a format loses of the common kinds, each in one line: the metrics other than m
 * (PV_NONE: the format holds them all), and unless it holds them sample times, markers,
 * labels; sample event delays (only firefox holds them).
 */
void pv__export_lossy_common(const struct pv_profile *p, pv_metric_ix m, bool times, bool markers,
			     bool labels, const char *format, struct pv_lossy *l);

/* The frames of stack st, root first, into buf (cap entries); returns how many there are. */
uint32_t pv__stack_frames(const struct pv_profile *p, pv_stack_ix st, pv_frame_ix *buf,
			  uint32_t cap);
/* The depth of each stack (a root 1), a new array to pv_free; NULL when out of memory. */
uint32_t *pv__stack_depths(const struct pv_profile *p, uint32_t *max_depth);

/*
 * The functions the samples' stacks reach, ascending, into a new array to pv_free (*n of them);
 * NULL when out of memory.
 */
pv_func_ix *pv__export_used_funcs(const struct pv_profile *p, uint32_t *n);
/*
 * How many of the functions the samples reach a format writes alike, so that a reader takes
 * them for one: cmp orders two functions (pointers to pv_func_ix) by what the format writes of
 * them, 0 when it writes them alike; every function of such a group counts. UINT64_MAX when out
 * of memory.
 */
uint64_t pv__export_merged(const struct pv_profile *p,
			   int (*cmp)(const void *, const void *, void *), void *ctx);
/* The lossy line of pv__export_merged's count. */
#define PV_LOSSY_MERGED "functions of one name merged (%s)"

/* 0, or PV_EIO with err when out has an error. */
int pv__export_check(FILE *out, struct pv_error *err);

#endif
