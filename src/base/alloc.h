/*
 * alloc.h - the one allocation hook of libprofview, and growable columns.
 *
 * All library allocation goes through pv_malloc/pv_realloc/pv_free so tests can make the k-th
 * allocation fail (pv_alloc_fail_after). Growth of a column checks for overflow and caps at
 * PV_MAX_ROWS rows.
 */
#ifndef PV_BASE_ALLOC_H
#define PV_BASE_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PV_MAX_ROWS (UINT32_MAX - 1u)

void *pv_malloc(size_t n);
void *pv_calloc(size_t n, size_t size);
void *pv_realloc(void *p, size_t n);
void pv_free(void *p);
char *pv_strdup(const char *s);

/* Test hook: the k-th allocation from now fails (k >= 1); 0 turns failures off. */
void pv_alloc_fail_after(uint64_t k);

/*
 * Grows *col (elements of size elt) so it holds at least need elements; *cap is shared by the
 * columns of one table, so call it for each column and update cap once with grow_cap().
 * Returns 0 or PV_ENOMEM (the column is unchanged on failure).
 */
/*
 * Asks the kernel to back the 2 MiB pages wholly inside [p, p + n) with huge pages where it
 * offers them on request (transparent huge pages in madvise mode): for a large block that is
 * about to be written once from start to end (glibc maps such blocks apart from the heap, which
 * main() advises for one-shot commands), so that its first writes fault once per 2 MiB, not
 * once per 4 KiB. Pages never written still cost nothing. A hint: nothing happens elsewhere.
 */
void pv_huge_hint(void *p, size_t n);
/* Maps the pages of [p, p + n) now, in one call (Linux's MADV_POPULATE_WRITE; nothing
 * elsewhere): memory the caller is about to fill whole, not faulted in page by page. */
void pv_populate(void *p, size_t n);
int col_realloc(void **col, size_t elt, uint32_t newcap);
/*
 * A column that may grow large by doubling (an importer's own tables): p (allocated by these
 * two with old bytes, or NULL with 0) resized to n bytes, the bytes past old zero with zero
 * (else as they come). From 2 MiB on it is a mapping of its own, in whole 2 MiB pages advised
 * as huge ones, that grows by moving its pages (Linux's mremap): nothing is copied nor written
 * again, where a heap block's growth copies it into fresh memory, and its new bytes are zero
 * untouched. NULL when out of memory (p unchanged). pv_col_free frees it (n: its size).
 */
void *pv_col_resize(void *p, size_t old, size_t n, bool zero);
void pv_col_free(void *p, size_t n);

/* New capacity for need rows from cap (doubling); 0 when past PV_MAX_ROWS. */
uint32_t grow_cap(uint32_t cap, uint64_t need);

#define COL_GROW(col, newcap) col_realloc((void **)&(col), sizeof(*(col)), (newcap))

#endif
