/*
 * gen_ranks.c - per-rank profiles of one synthetic MPI program, for `profview merge`
 * (bench/merge.sh, bench/RESULTS.md "Merge").
 *
 *   gen-ranks N DIR [STACKS]   writes DIR/rank-00000.txt .. DIR/rank-(N-1).txt, collapsed stacks
 *
 * The program: a call tree of 400 functions in 8 phases (main > phase > solver layers > kernels
 * and MPI calls), from which a pool of STACKS (default 2,000) distinct call paths is drawn once.
 * Each rank samples 150 paths of the pool (the same hot paths on every rank, a tail that varies:
 * realistic overlap, most stacks shared by many ranks), weights varied by rank (load imbalance),
 * plus 2 paths of its own (a rank-specific communication partner) that no other rank has.
 * Deterministic: the same N gives the same files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

#define FUNCS	  400
#define DEPTH_MAX 14

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen-ranks N DIR [STACKS]\n");
		return 2;
	}
	int n = atoi(argv[1]);
	int pool = argc > 3 ? atoi(argv[3]) : 2000;
	if (n <= 0 || pool < 200) {
		fprintf(stderr, "gen-ranks: N > 0 and STACKS >= 200\n");
		return 2;
	}
	static char name[FUNCS][48];
	static const char *const layer[] = {"solver",	"assemble", "precond", "smooth",
					    "exchange", "reduce",   "io",      "update"};
	for (int f = 0; f < FUNCS; f++)
		snprintf(name[f], sizeof(name[f]), "%s_%s_%d", f < 16 ? "MPI" : "app", layer[f % 8],
			 f);
	/* the pool: paths main;phase_k;f1;f2;...; ends in a kernel or an MPI call */
	char **path = malloc((size_t)pool * sizeof(*path));
	for (int s = 0; s < pool; s++) {
		char buf[1024];
		int len = snprintf(buf, sizeof(buf), "main;phase_%d", s % 8);
		int depth = 3 + (int)(next() % (DEPTH_MAX - 3));
		uint32_t f = 16 + (uint32_t)(s % 8) * 48;
		for (int d = 0; d < depth; d++) {
			f = 16 + (f * 7 + next() % 5) % (FUNCS - 16);
			len += snprintf(buf + len, sizeof(buf) - (size_t)len, ";%s", name[f]);
		}
		if (s % 3 == 0)
			len += snprintf(buf + len, sizeof(buf) - (size_t)len, ";%s", name[s % 16]);
		path[s] = strdup(buf);
	}
	char file[4096];
	for (int r = 0; r < n; r++) {
		snprintf(file, sizeof(file), "%s/rank-%05d.txt", argv[2], r);
		FILE *o = fopen(file, "w");
		if (!o) {
			perror(file);
			return 1;
		}
		/* hot paths: the first 100 of the pool on every rank; then 50 of the tail */
		for (int k = 0; k < 150; k++) {
			int s = k < 100 ? k : 100 + (int)(next() % (uint32_t)(pool - 100));
			int w = (k < 100 ? 200 - k : 5) + (int)(next() % 20) + (r % 7) * 3;
			fprintf(o, "%s %d\n", path[s], w);
		}
		for (int k = 0; k < 2; k++)
			fprintf(o, "main;phase_%d;MPI_exchange_4;wait_for_rank_%d %d\n", k,
				(r + k + 1) % n, 10 + (int)(next() % 10));
		fclose(o);
	}
	for (int s = 0; s < pool; s++)
		free(path[s]);
	free(path);
	return 0;
}
