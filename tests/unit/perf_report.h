/*
 * perf_report.h - a profile against `perf report --stdio --sort symbol -g none` of the same
 * recording (test_perf_script.c), shared by the perf script and perf.data tests.
 */
#ifndef PV_TEST_PERF_REPORT_H
#define PV_TEST_PERF_REPORT_H

#include "pv/profile.h"

/* CMP_LOOSE: to 0.05 points (a recording made at test time, compared through perf report's
 * two-decimal rounding and its own period sums) instead of 0.01 */
enum { CMP_SELF = 1, CMP_CHILDREN = 2, CMP_BOTH = 3, CMP_DWARF = 4, CMP_LOOSE = 8 };

/*
 * profview's `top` of p (freed here; the view of the query opts, NULL-terminated name/value
 * pairs) against perf report's self and children files: every symbol's self (and children)
 * percentage to 0.01 points, the view's base equal to perf's event count. frameless_path lists
 * the samples perf script printed without a call chain (a missing file: none); at least
 * expect_rows symbols are compared; name labels the failures.
 */
void compare_report_files(const char *name, struct pv_profile *p, const char *frameless_path,
			  const char *self_path, const char *children_path, int expect_rows,
			  const char *const *opts, int how);

#endif
