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

/* 0, or PV_EIO with err when out has an error. */
int pv__export_check(FILE *out, struct pv_error *err);

#endif
