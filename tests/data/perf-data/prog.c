/* tests/data/perf-data: a C program with an inlined function and recursion (README.md) */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) double leaf(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += i * 0.5;
	return s;
}

static inline double mid(int n)
{
	return leaf(n) + leaf(n / 2);
}

__attribute__((noinline)) double rec(int d, int n)
{
	if (d == 0)
		return mid(n);
	return rec(d - 1, n) + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	int k = argc > 2 ? atoi(argv[2]) : 3000;
	for (int i = 0; i < k; i++)
		sink += rec(5, n);
	printf("%f\n", sink);
	return 0;
}
