/*
 * sort.c - sorting without a comparator call per comparison, for the hot sorts of the importers
 * (sort.h says what each sorts).
 */
#include "base/sort.h"

/* a before b: the larger key first, then the smaller index */
static inline bool kix_before(const struct pv_kix *a, const struct pv_kix *b)
{
	return a->key > b->key || (a->key == b->key && a->ix < b->ix);
}

static inline void kix_swap(struct pv_kix *a, struct pv_kix *b)
{
	struct pv_kix t = *a;
	*a = *b;
	*b = t;
}

static void kix_insertion(struct pv_kix *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct pv_kix x = a[i];
		size_t j = i;
		for (; j > 0 && kix_before(&x, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static void kix_sift(struct pv_kix *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && kix_before(&a[c], &a[c + 1]))
			c++;
		if (!kix_before(&a[i], &a[c]))
			return;
		kix_swap(&a[i], &a[c]);
		i = c;
	}
}

/* heap sort: the bound of a range the partitions did not split well */
static void kix_heap(struct pv_kix *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		kix_sift(a, i, n);
	for (size_t e = n; e-- > 1;) {
		kix_swap(&a[0], &a[e]);
		kix_sift(a, 0, e);
	}
}

static void kix_intro(struct pv_kix *a, size_t n, int depth)
{
	while (n > 16) {
		if (depth-- == 0) {
			kix_heap(a, n);
			return;
		}
		/* median of three to a[0], then Hoare's partition around it */
		size_t m = n / 2;
		if (kix_before(&a[m], &a[0]))
			kix_swap(&a[m], &a[0]);
		if (kix_before(&a[n - 1], &a[m]))
			kix_swap(&a[n - 1], &a[m]);
		if (kix_before(&a[m], &a[0]))
			kix_swap(&a[m], &a[0]);
		kix_swap(&a[0], &a[m]);
		struct pv_kix piv = a[0];
		size_t i = 0, j = n;
		for (;;) {
			do
				i++;
			while (i < n && kix_before(&a[i], &piv));
			do
				j--;
			while (kix_before(&piv, &a[j]));
			if (i >= j)
				break;
			kix_swap(&a[i], &a[j]);
		}
		kix_swap(&a[0], &a[j]);
		/* the smaller side by recursion, the larger in the loop */
		if (j < n - j - 1) {
			kix_intro(a, j, depth);
			a += j + 1;
			n -= j + 1;
		} else {
			kix_intro(a + j + 1, n - j - 1, depth);
			n = j;
		}
	}
	kix_insertion(a, n);
}

void pv_sort_kix_desc(struct pv_kix *a, size_t n)
{
	int depth = 0;
	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	kix_intro(a, n, depth);
}
