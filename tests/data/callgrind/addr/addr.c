/* addr.c - a small program for profview's address tests (callgrind --dump-instr=yes). */
#include <stdio.h>

static unsigned mix(unsigned x)
{
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	x ^= x >> 15;
	return x;
}

static unsigned sum(const unsigned *v, int n)
{
	unsigned s = 0;
	for (int i = 0; i < n; i++)
		s += mix(v[i]) & 0xff;
	return s;
}

int main(void)
{
	static unsigned v[4096];
	for (int i = 0; i < 4096; i++)
		v[i] = (unsigned)i * 2654435761u;
	unsigned t = 0;
	for (int r = 0; r < 8; r++)
		t += sum(v, 4096);
	printf("%u\n", t);
	return 0;
}
