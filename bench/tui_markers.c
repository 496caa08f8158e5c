/*
 * tui_markers.c - issue 26's TUI marker search as it is typed: the CPU time of each key.
 *
 * Imports FILE (a generated marker profile: build/bench/gen-markers), opens the TUI's state
 * machine on it (tui/tui.h, no terminal, 120x40) on the markers tab, then ROUNDS times: '/'
 * (which builds the markers' search text once per profile), each character of each of the
 * words below typed one key at a time (tui_key + tui_render: the search, the table, every
 * line's cells), and Esc. Prints, per word, the median and the largest CPU time of a typed
 * key, and the same search done the old way for comparison: pv_marker_select resolving every
 * marker's payload (what each key cost before the text was prebuilt).
 *
 * usage: tui-markers FILE [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pv/import.h"
#include "pv/marker.h"
#include "pv/query.h"
#include "tui/tui.h"

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* words typed: a name, a field value, a type, one that matches nothing */
static const char *const words[] = {"domevent", "gcminor", "text", "zzqx"};
#define NWORDS (sizeof(words) / sizeof(words[0]))
#define MAXK   1024

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fputs("usage: tui-markers FILE [ROUNDS]\n", stderr);
		return 2;
	}
	int rounds = argc == 3 ? atoi(argv[2]) : 5;
	if (rounds < 1 || rounds > 100)
		rounds = 5;
	struct pv_profile *p;
	struct pv_error err;
	pv_error_clear(&err);
	if (pv_import_file(argv[1], NULL, &p, &err)) {
		fprintf(stderr, "tui-markers: %s\n", err.msg);
		return 2;
	}
	struct pv_query q;
	pv_query_init(&q);
	struct tui_opts o = {.path = argv[1], .p = p, .q = &q, .tab = "markers", .marker = -1};
	struct tui *t;
	if (tui_new(&o, 120, 40, &t, &err)) {
		fprintf(stderr, "tui-markers: %s\n", err.msg);
		return 1;
	}
	const struct tui_screen *scr = tui_render(t);
	struct pv_markers *ms;
	if (pv_markers_derive(p, &ms, &err)) {
		fprintf(stderr, "tui-markers: %s\n", err.msg);
		return 1;
	}
	printf("markers: %u derived from %u raw\n", ms->len, p->markers.len);
	static double keys[NWORDS][MAXK], old[NWORDS][100];
	uint32_t nk[NWORDS] = {0};
	double slash_first = 0, slash_max = 0;
	unsigned check = 0;
	for (int r = 0; r < rounds; r++)
		for (size_t w = 0; w < NWORDS; w++) {
			double c0 = cpu_now();
			tui_key(t, '/');
			scr = tui_render(t);
			double c = cpu_now() - c0;
			if (r == 0 && w == 0)
				slash_first = c;
			else if (c > slash_max)
				slash_max = c;
			for (const char *s = words[w]; *s; s++) {
				c0 = cpu_now();
				tui_key(t, (unsigned char)*s);
				scr = tui_render(t);
				if (nk[w] < MAXK)
					keys[w][nk[w]++] = cpu_now() - c0;
			}
			check += (unsigned)strlen(scr->line[5]) + (unsigned char)scr->line[5][7];
			tui_key(t, TUI_KEY_ESC);
			/* the old way: every marker's payload resolved for the whole word */
			struct pv_marker_search *s;
			if (pv_marker_search_new(words[w], &s))
				return 1;
			struct pv_marker_select sel = {.search = s};
			uint32_t *idx, n;
			c0 = cpu_now();
			if (pv_marker_select(ms, &sel, &idx, &n))
				return 1;
			old[w][r] = cpu_now() - c0;
			check += n;
			pv_free_indexes(idx);
			pv_marker_search_free(s);
		}
	printf("'/' on the tab: %.1f ms the first time (builds the search text), then at most "
	       "%.2f ms\n",
	       slash_first * 1e3, slash_max * 1e3);
	printf("%-10s %6s %12s %12s %14s\n", "word", "keys", "median/key", "max/key",
	       "old way/key");
	double worst = 0;
	for (size_t w = 0; w < NWORDS; w++) {
		qsort(keys[w], nk[w], sizeof(double), cmp);
		qsort(old[w], (size_t)rounds, sizeof(double), cmp);
		if (keys[w][nk[w] - 1] > worst)
			worst = keys[w][nk[w] - 1];
		printf("%-10s %6u %9.2f ms %9.2f ms %11.1f ms\n", words[w], nk[w],
		       keys[w][nk[w] / 2] * 1e3, keys[w][nk[w] - 1] * 1e3,
		       old[w][rounds / 2] * 1e3);
	}
	printf("largest key: %.2f ms CPU (target 10 ms); %d rounds; checksum %u\n", worst * 1e3,
	       rounds, check);
	pv_markers_free(ms);
	tui_free(t);
	pv_query_release(&q);
	pv_profile_free(p);
	return 0;
}
