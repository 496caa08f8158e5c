/*
 * marker_time.c - the marker work alone, timed in one process: the profile is imported once,
 * then ROUNDS times the markers are derived and summarized by name (what `profview markers
 * --summary` does after the import), each round timed with CLOCK_MONOTONIC and CPU time.
 *
 *   marker-time FILE [ROUNDS]     prints one line: raw and derived markers, names, the median
 *                                 and minimum of the rounds (wall and CPU), and the minimum
 *                                 CPU time per raw marker
 *
 * The import is left out because it is measured elsewhere (bench/run.sh's open benchmarks) and
 * because on a shared machine its page-cache and allocator noise hides the part measured here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pv/import.h"
#include "pv/marker.h"

static double now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fputs("usage: marker-time FILE [ROUNDS]\n", stderr);
		return 2;
	}
	int rounds = argc == 3 ? atoi(argv[2]) : 9;
	if (rounds < 1 || rounds > 1000)
		rounds = 9;
	struct pv_profile *p;
	struct pv_error err;
	if (pv_import_file(argv[1], NULL, &p, &err)) {
		fprintf(stderr, "marker-time: %s\n", err.msg);
		return 2;
	}
	double *wall = malloc((size_t)rounds * sizeof(*wall));
	double *cpu = malloc((size_t)rounds * sizeof(*cpu));
	uint32_t derived = 0, names = 0;
	if (!wall || !cpu)
		return 1;
	for (int r = 0; r < rounds; r++) {
		double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
		struct pv_markers *ms;
		struct pv_marker_summary_row *rows;
		if (pv_markers_derive(p, &ms, &err) || pv_marker_summary(ms, NULL, &rows, &names)) {
			fprintf(stderr, "marker-time: %s\n", err.msg);
			return 1;
		}
		derived = ms->len;
		pv_marker_summary_free(rows);
		pv_markers_free(ms);
		wall[r] = now(CLOCK_MONOTONIC) - w0;
		cpu[r] = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	}
	qsort(wall, (size_t)rounds, sizeof(*wall), cmp);
	qsort(cpu, (size_t)rounds, sizeof(*cpu), cmp);
	uint32_t raw = p->markers.len;
	/* the minimum is the run least disturbed by other processes: the figure to compare */
	printf("raw %u derived %u names %u wall_median %.4f wall_min %.4f cpu_median %.4f "
	       "cpu_min %.4f ns_per_raw %.1f\n",
	       raw, derived, names, wall[rounds / 2], wall[0], cpu[rounds / 2], cpu[0],
	       cpu[0] * 1e9 / (raw ? raw : 1));
	free(wall);
	free(cpu);
	pv_profile_free(p);
	return 0;
}
