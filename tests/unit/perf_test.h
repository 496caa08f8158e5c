/*
 * perf_test.h - helpers of the perf.data tests (defined in test_perf_data.c), shared with
 * test_perf_symbols.c and test_perf_records.c: a shell command, a temporary folder, the skip
 * where perf may not record, and a profile's samples against perf script's.
 */
#ifndef PV_TEST_PERF_TEST_H
#define PV_TEST_PERF_TEST_H

#include <stdbool.h>
#include <stddef.h>

#include "pv/profile.h"

/* A shell command (printf-formatted, at most 4 KiB): its exit status, -1 when it did not run. */
int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A new folder /tmp/pv-NAME-XXXXXX in dir (64 bytes); false (a failure said) when none. */
bool temp_dir(char *dir, const char *name);

/* The test skipped, said, where perf may not record; its folder removed. */
void skip_unpermitted(const char *dir, const char *what);

/* The names of a stack, leaf first: "name [module]; ..."; kept: the frames of other modules than
 * the kept recording's programs by their module only. */
void stack_text(const struct pv_profile *p, pv_stack_ix st, bool kept, char *out, size_t cap);

/* Every sample of text (perf script's, read by the perf script importer) in the perf.data import
 * nat: the same thread, time, period and stack of names, frame by frame (the known differences of
 * doc/perf-data.md counted and bounded). */
void compare_samples(const struct pv_profile *text, const struct pv_profile *nat, bool kept);

#endif
