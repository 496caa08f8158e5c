/*
 * sort.h - sorting an array, with the comparator's context passed explicitly (glibc's qsort_r)
 * instead of through a global, so that two imports or two views may sort at once on different
 * threads. Both accept base == NULL when n is 0 (an empty vector), which qsort itself must not
 * be given.
 */
#ifndef PV_BASE_SORT_H
#define PV_BASE_SORT_H

#include <stddef.h>
#include <stdlib.h>

/*
 * Sorts base[0..n) of size-byte elements by cmp(a, b, ctx). Not stable. The comparators only
 * read their context, so a const one is taken (qsort_r's type has no const).
 */
static inline void pv_sort_r(void *base, size_t n, size_t size,
			     int (*cmp)(const void *, const void *, void *), const void *ctx)
{
	if (n > 1)
		qsort_r(base, n, size, cmp, (void *)ctx);
}

/* The same for a comparator that needs no context. */
static inline void pv_sort(void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
