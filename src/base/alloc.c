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
