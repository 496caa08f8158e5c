/*
 * tedge.h - profiles at the edges of the model, made through the builder as an importer makes
 * them (issue 25): the unit tests' value-range checks (test_ranges.c) and the API fuzz target
 * (fuzz/fuzz_api.c) share them.
 */
#ifndef PV_TEST_TEDGE_H
#define PV_TEST_TEDGE_H

#include "pv/profile.h"

/*
 * Values past the model's ranges, saturated by builder_finish: sample times INT64_MIN + 1, 0 and
 * INT64_MAX - 1 (two stacks, f and f;g, one thread), weights INT64_MAX, 5 and INT64_MAX of one
 * ns metric "cpu", event delays INT64_MAX, none and 7, an interval marker "long" from INT64_MIN +
 * 1 to INT64_MAX - 1, trace records at INT64_MIN + 1 (f) and 0 (f;g) ending at INT64_MAX, the
 * thread's lifetime as wide, the interval INT64_MIN and the start INT64_MAX. NULL when out of
 * memory or the builder failed.
 */
struct pv_profile *t_profile_edges(void);
/*
 * Samples without a stack and without a time only (four, on two threads, weights 1 to 4 of one
 * count metric): no frame, no stack, no marker.
 */
struct pv_profile *t_profile_nostack(void);

#endif
