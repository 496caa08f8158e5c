/*
 * ranges.h - the value ranges of the model (profile.h: PV_TIME_MAX, PV_WEIGHT_SUM_MAX): checked
 * by pv_profile_validate, enforced by builder_finish (ranges.c).
 */
#ifndef PV_MODEL_RANGES_H
#define PV_MODEL_RANGES_H

#include "pv/profile.h"

struct pv_lossy;

/* 0, or PV_EPARSE with err naming the first value past its range (column, row). */
int pv__ranges_check(const struct pv_profile *p, struct pv_error *err);
/*
 * Brings every value of the builder's profile inside its range: times past +-PV_TIME_MAX and the
 * interval to the bound (a negative interval to 0: unknown); in a weight column, from the value
 * that takes the sum of absolute values past PV_WEIGHT_SUM_MAX on, each value cut to what is
 * left of it. One line in notes per kind, with the count of values changed.
 */
void pv__ranges_saturate(struct pv_profile *p, struct pv_lossy *notes);

#endif
