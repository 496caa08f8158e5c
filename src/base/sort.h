/*
 * sort.h - sorting an array, with the comparator's context passed explicitly (glibc's qsort_r)
 * instead of through a global, so that two imports or two views may sort at once on different
 * threads. Both accept base == NULL when n is 0 (an empty vector), which qsort itself must not
 * be given.
 */
#ifndef PV_BASE_SORT_H
#define PV_BASE_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/*
 * An index and its key. pv_sort_kix_desc sorts by key, largest first, ties by index, smallest
 * first: a total order (the indices differ), so the result is the one every correct sort gives,
 * without a comparator call per comparison (introsort, sort.c).
 */
struct pv_kix {
	int64_t key;
	uint32_t ix;
};
void pv_sort_kix_desc(struct pv_kix *a, size_t n);

/* int64_t values, ascending (for pv_sort). */
static inline int pv_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * order[0..n) (indices into key) reordered by key[order[i]] ascending, stably: a least
 * significant byte first radix sort that skips the bytes every key shares (a value's high bytes,
 * an interned string index's), so 10,000 contexts or a million names take two to four passes
 * of counting and scattering, a few times less than a comparison sort. tmp holds n indices.
 */
static inline void pv_radix_order_u64(const uint64_t *key, uint32_t n, uint32_t *order,
				      uint32_t *tmp)
{
	uint64_t differ = 0;
	for (uint32_t i = 0; i < n; i++)
		differ |= key[order[i]] ^ key[order[0]];
	uint32_t *from = order, *to = tmp;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!((differ >> shift) & 0xff))
			continue;
		uint32_t count[257] = {0};
		for (uint32_t i = 0; i < n; i++)
			count[((key[from[i]] >> shift) & 0xff) + 1]++;
		for (unsigned d = 1; d < 257; d++)
			count[d] += count[d - 1];
		for (uint32_t i = 0; i < n; i++)
			to[count[(key[from[i]] >> shift) & 0xff]++] = from[i];
		uint32_t *t = from;
		from = to;
		to = t;
	}
	if (from != order)
		for (uint32_t i = 0; i < n; i++)
			order[i] = from[i];
}

/*
 * The k-th smallest of v[0..n) (k < n), as v[k] would be after sorting v; reorders v in place
 * and needs no other memory (the median of millions of sample gaps costs no second array).
 * Hoare's selection on the median of three, which keeps sorted input linear; a range still
 * long after 64 rounds (a hostile order) is sorted instead, so O(n log n) at worst.
 */
static inline int64_t pv_select_i64(int64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	for (int round = 0; hi > lo + 16 && round < 64; round++) {
		int64_t x = v[lo], y = v[lo + (hi - lo) / 2], z = v[hi];
		int64_t piv = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < piv)
				i++;
			while (v[j] > piv)
				j--;
			if (i <= j) {
				int64_t t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	pv_sort(v + lo, hi - lo + 1, sizeof(*v), pv_cmp_i64);
	return v[k];
}

#endif
