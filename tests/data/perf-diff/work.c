/*
 * work.c - a small deterministic program for profview's diff test: three kinds of work whose
 * shares change with the arguments (work HASH SORT MIX: rounds of each).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state = 88172645463325252ull;

__attribute__((noipa)) static uint64_t next_rand(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

__attribute__((noipa)) static uint64_t hash_block(const uint32_t *v, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ v[i]) * 1099511628211ull;
	return h;
}

__attribute__((noipa)) static void insertion_sort(uint32_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = v[i];
		size_t j = i;
		while (j > 0 && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

__attribute__((noipa)) static uint64_t mix(uint64_t x, long rounds)
{
	for (long i = 0; i < rounds; i++)
		x = (x * 6364136223846793005ull + 1442695040888963407ull) ^ (x >> 29);
	return x;
}

__attribute__((noipa)) static void fill(uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)next_rand();
}

__attribute__((noipa)) static uint64_t do_hash(uint32_t *v, size_t n, long rounds)
{
	uint64_t acc = 0;
	for (long r = 0; r < rounds; r++)
		v[r % n] ^= (uint32_t)r;
		acc += hash_block(v, n);
	return acc;
}

__attribute__((noipa)) static uint64_t do_sort(uint32_t *v, size_t n, long rounds)
{
	uint64_t acc = 0;
	for (long r = 0; r < rounds; r++) {
		fill(v, n);
		insertion_sort(v, n);
		acc += v[n / 2];
	}
	return acc;
}

int main(int argc, char **argv)
{
	long hash = argc > 1 ? atol(argv[1]) : 1000;
	long sort = argc > 2 ? atol(argv[2]) : 100;
	long rounds = argc > 3 ? atol(argv[3]) : 1000000;
	size_t n = 4096;
	uint32_t *v = malloc(n * sizeof(*v));
	if (!v)
		return 1;
	fill(v, n);
	uint64_t acc = do_hash(v, n, hash);
	acc += do_sort(v, n, sort);
	acc += mix(acc, rounds);
	printf("%llu\n", (unsigned long long)acc);
	free(v);
	return 0;
}
