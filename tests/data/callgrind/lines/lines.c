/* lines.c - per-line costs: a loop of several lines, a callee, inlined header code */
#include <stdio.h>
#include "lines.h"

__attribute__((noinline)) static unsigned hash(const unsigned *a, int n, unsigned seed)
{
	unsigned h = 2166136261u ^ seed;
	for (int i = 0; i < n; i++)
		h = mix(h, a[i]);
	return h;
}

__attribute__((noinline)) static long sum_squares(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++) {
		long x = i % 7;
		s += x * x;
	}
	return s;
}

int main(void)
{
	static unsigned a[4096];
	unsigned h = 0;
	for (int i = 0; i < 4096; i++)
		a[i] = (unsigned)i * 2654435761u;
	for (int r = 0; r < 20; r++)
		h ^= hash(a, 4096, (unsigned)r);
	long s = sum_squares(50000);
	printf("%u %ld\n", h, s);
	return 0;
}
