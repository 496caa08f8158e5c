/*
 * json_numbers.h - an array of numbers read whole into a vec, for the JSON importers whose bulk
 * is such arrays (stackprof's raw, GHC's ticks, V8 logs' ticks): the tokenizer's fast path
 * (json_run_i64) where it can, the general path with its positioned errors where it cannot.
 */
#ifndef PV_IMPORT_JSON_NUMBERS_H
#define PV_IMPORT_JSON_NUMBERS_H

#include "base/vec.h"
#include "import/json.h"

/*
 * Appends the elements of the array whose '[' was just read to v (int64_t): integers when
 * pow10 is 0, else each value * 10^pow10 rounded (json_fixed). An element that is not a number,
 * or too many of them, is a positioned error naming the array what. Returns 0 or the error.
 */
int json_read_i64s(struct json *j, int pow10, struct vec *v, const char *what);

/*
 * The position of element k of the array whose first byte after '[' is at (an array of
 * numbers read by json_read_i64s, for an error found after it was read): a pointer into the
 * input, or at when it has fewer elements.
 */
const char *json_array_elem_at(const struct json *j, const char *at, uint64_t k);

#endif
