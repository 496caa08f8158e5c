#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "base/alloc.h"
#include "pv/error.h"

static uint64_t fail_countdown;

void pv_alloc_fail_after(uint64_t k)
{
	fail_countdown = k;
}

static int should_fail(void)
{
	if (fail_countdown == 0)
		return 0;
	if (--fail_countdown == 0)
		return 1;
	return 0;
}

void *pv_malloc(size_t n)
{
	if (should_fail())
		return NULL;
	return malloc(n ? n : 1);
}

void *pv_calloc(size_t n, size_t size)
{
	if (should_fail())
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void *pv_realloc(void *p, size_t n)
{
	if (should_fail())
		return NULL;
	return realloc(p, n ? n : 1);
}

void pv_free(void *p)
{
	free(p);
}

char *pv_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = pv_malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

void pv_huge_hint(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(huge - 1);
	if (p && hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

void pv_populate(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
	const uintptr_t page = 4096;
	uintptr_t lo = (uintptr_t)p & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + n + page - 1) & ~(page - 1);
	if (p && n >= ((size_t)1 << 20)) /* small blocks: the heap's own pages */
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

#if defined(__linux__) && defined(MREMAP_MAYMOVE)
#define COL_MAP ((size_t)2 << 20) /* a column's mapping: from and in these units */

static size_t col_map_len(size_t n)
{
	return (n + COL_MAP - 1) & ~(COL_MAP - 1);
}

void *pv_col_resize(void *p, size_t old, size_t n, bool zero)
{
	char *q;
	if (n < COL_MAP && old < COL_MAP) {
		q = pv_realloc(p, n);
		if (zero && q && n > old)
			memset(q + old, 0, n - old);
		return q;
	}
	if (should_fail() || n > SIZE_MAX - COL_MAP)
		return NULL;
	size_t ol = col_map_len(old), nl = col_map_len(n);
	if (old >= COL_MAP && n >= COL_MAP) {
		/* the mapping's bytes past the column are zero: its new pages, and those it left */
		void *m = ol == nl ? p : mremap(p, ol, nl, MREMAP_MAYMOVE);
		if (m == MAP_FAILED)
			return NULL;
		q = m;
		if (n < old)
			memset(q + n, 0, (old < nl ? old : nl) - n);
		return q;
	}
	if (n < COL_MAP) { /* a mapping shrunk into the heap */
		q = malloc(n ? n : 1);
		if (q) {
			memcpy(q, p, n);
			munmap(p, ol);
		}
		return q;
	}
	/* a length in whole 2 MiB pages: the kernel places the mapping on a 2 MiB boundary */
	void *m = mmap(NULL, nl, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	q = m;
	pv_huge_hint(q, nl);
	if (p) {
		memcpy(q, p, old);
		free(p);
	}
	return q;
}

void pv_col_free(void *p, size_t n)
{
	if (p && n >= COL_MAP)
		munmap(p, col_map_len(n));
	else
		free(p);
}
#else
void *pv_col_resize(void *p, size_t old, size_t n, bool zero)
{
	char *q = pv_realloc(p, n);
	if (zero && q && n > old)
		memset(q + old, 0, n - old);
	return q;
}

void pv_col_free(void *p, size_t n)
{
	(void)n;
	free(p);
}
#endif

int col_realloc(void **col, size_t elt, uint32_t newcap)
{
	if ((uint64_t)newcap > SIZE_MAX / elt)
		return PV_ENOMEM;
	void *n = pv_realloc(*col, (size_t)newcap * elt);
	if (!n)
		return PV_ENOMEM;
	*col = n;
	return 0;
}

uint32_t grow_cap(uint32_t cap, uint64_t need)
{
	if (need > PV_MAX_ROWS)
		return 0;
	uint64_t c = cap ? cap : 16;
	while (c < need)
		c *= 2;
	if (c > PV_MAX_ROWS)
		c = PV_MAX_ROWS;
	return (uint32_t)c;
}
