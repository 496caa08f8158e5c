/*
 * gen_ranks.c - per-rank profiles of one synthetic MPI program, for `profview merge`
 * (bench/merge.sh, bench/RESULTS.md "Merge").
 *
 *   gen-ranks N DIR [STACKS [FORMAT]]   writes DIR/rank-00000.txt .. DIR/rank-(N-1).txt, collapsed
 *                                       stacks (FORMAT collapsed, the default), or the same
 *                                       profiles as DIR/rank-00000.pb.gz .. (FORMAT pprof)
 *
 * The program: a call tree of 400 functions in 8 phases (main > phase > solver layers > kernels
 * and MPI calls), from which a pool of STACKS (default 2,000) distinct call paths is drawn once.
 * Each rank samples 150 paths of the pool (the same hot paths on every rank, a tail that varies:
 * realistic overlap, most stacks shared by many ranks), weights varied by rank (load imbalance),
 * plus 2 paths of its own (a rank-specific communication partner) that no other rank has.
 * Deterministic: the same N gives the same files.
 *
 * pprof: each rank's collapsed text is made in memory, imported (pv_import_memory) and written
 * by libpv's own pprof writer (pv_export_write), so the file is the one `profview export --to
 * pprof` writes from the collapsed file, without a process per rank (10,000 ranks: seconds, not
 * the 20 minutes of 10,000 `profview export` runs on this machine).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/error.h"
#include "pv/export.h"
#include "pv/import.h"

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

/* The collapsed text of one rank, imported, written to file as pprof by libpv's writer. */
static int write_pprof(const char *file, const char *text, size_t len)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	int rc = pv_import_memory(file, text, len, "collapsed", &p, &err);
	FILE *o = rc ? NULL : fopen(file, "wb");
	struct pv_lossy lossy = {0};
	if (!rc && !o) {
		perror(file);
		rc = 1;
	} else if (!rc) {
		rc = pv_export_write(o, p, PV_EXPORT_PPROF, NULL, &lossy, &err);
		if (fclose(o) && !rc)
			rc = pv_error_set(&err, PV_EIO, "cannot write");
	}
	if (rc && rc != 1)
		fprintf(stderr, "gen-ranks: %s: %s\n", file, err.msg);
	pv_profile_free(p);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen-ranks N DIR [STACKS [collapsed|pprof]]\n");
		return 2;
	}
	int n = atoi(argv[1]);
	int pool = argc > 3 ? atoi(argv[3]) : 2000;
	const char *format = argc > 4 ? argv[4] : "collapsed";
	bool pprof = strcmp(format, "pprof") == 0;
	if (n <= 0 || pool < 200 || (!pprof && strcmp(format, "collapsed") != 0)) {
		fprintf(stderr, "gen-ranks: N > 0, STACKS >= 200, FORMAT collapsed or pprof\n");
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
	char *text = NULL;
	size_t text_len = 0;
	for (int r = 0; r < n; r++) {
		snprintf(file, sizeof(file), "%s/rank-%05d.%s", argv[2], r,
			 pprof ? "pb.gz" : "txt");
		FILE *o = pprof ? open_memstream(&text, &text_len) : fopen(file, "w");
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
		if (fclose(o)) {
			perror(file);
			return 1;
		}
		if (pprof && write_pprof(file, text, text_len))
			return 1;
	}
	free(text);
	for (int s = 0; s < pool; s++)
		free(path[s]);
	free(path);
	return 0;
}
