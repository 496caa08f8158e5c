/*
 * perf_oracle.h - helpers of the perf.data tests against perf itself (test_perf_data.c), shared
 * with the tests of perf.data's other records (test_perf_records.c).
 */
#ifndef PV_TEST_PERF_ORACLE_H
#define PV_TEST_PERF_ORACLE_H

#include <stdbool.h>

#include "pv/profile.h"

/* The shell command made from fmt, its exit status (-1 when it did not exit). */
int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A new folder /tmp/pv-NAME-XXXXXX in dir (64 bytes); false (a failure said) when none. */
bool temp_dir(char *dir, const char *name);

/* The test skipped, said ("# SKIP WHAT: ..."), where perf may not record; dir removed. */
void skip_unpermitted(const char *dir, const char *what);

/*
 * Every sample of text (perf script's, read by the perf script importer) in nat (the perf.data
 * import): the same threads, and per thread the same samples in order: time, period of the
 * first metric, stack of names and modules (kept: other modules than the test programs' by
 * module only).
 */
void compare_samples(const struct pv_profile *text, const struct pv_profile *nat, bool kept);

#endif
