/*
 * perf_swap.h - a perf.data of this machine's byte order rewritten in the other one, as perf on a
 * machine of that order would have written it (tests only: perf_swap.c).
 */
#ifndef PV_TEST_PERF_SWAP_H
#define PV_TEST_PERF_SWAP_H

#include <stddef.h>

/*
 * The file (or pipe form) in[0..n) in the other byte order, in *out (malloc'ed, *on bytes).
 * 0, or -1 with the reason in why (a layout the writer does not know, a damaged input).
 */
int perf_swap(const unsigned char *in, size_t n, unsigned char **out, size_t *on, char *why,
	      size_t cap);

/* The same from file to file. */
int perf_swap_file(const char *in, const char *out, char *why, size_t cap);

#endif
