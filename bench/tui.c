/*
 * tui.c - issue 17's "large profiles stay responsive": moving the center in the TUI against the
 * library's view of the same query.
 *
 * Builds the seeded profile of bench/center.c (default 10 M samples over 1 M distinct stacks,
 * 50 k functions), opens the TUI's state machine on it (tui/tui.h: no terminal), 120x40, on the
 * top-down tab, then each round
 *   - untimed: Backspace (back to the whole profile), '/' and the name of a function of middling
 *     weight (a different one each round), Enter: the search selects its first row;
 *   A  timed: the key 'c' and one screen (tui_key + tui_render: the query, the view, the rows,
 *      the cells of every line);
 *   B  timed: pv_view_compute of the very query the TUI now shows (tui_query), and its free;
 *   A' A again with the tab as a flame graph (f: pv_flame_build and the icicle's cells too);
 * alternating A B A' A B A' ..., and prints the medians (wall, and the process's CPU time) and
 * the ratios A / B and A' / B (target: at most 2).
 *
 * usage: tui [SAMPLES [STACKS [ROUNDS]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pv/query.h"
#include "pv/view.h"
#include "synth.h"
#include "tui/tui.h"

/* seconds of CPU this process used (the machine is shared: less noisy than the wall clock) */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void keys(struct tui *t, const char *text)
{
	for (const char *s = text; *s; s++)
		tui_key(t, (unsigned char)*s);
}

/* Round r (-1: the warm-up): back to the whole profile (the rows or the flame graph), a
 * search for a function of middling weight (untimed), then the key c and the next screen
 * (timed: s .. e on the wall clock, sc .. ec in CPU). */
static int move_center(struct tui *t, int r, bool flame, double *s, double *sc, double *e,
		       double *ec, const struct tui_screen **scr)
{
	if (tui_query(t)->nr_center)
		tui_key(t, TUI_KEY_BACKSPACE);
	if (flame)
		tui_key(t, 'f');
	tui_render(t);
	char name[64];
	snprintf(name, sizeof(name), "/method_%u(", 200u + 37u * (unsigned)(r + 1));
	keys(t, name);
	tui_key(t, TUI_KEY_ENTER);
	tui_render(t);
	*s = synth_now();
	*sc = cpu_now();
	tui_key(t, 'c');
	*scr = tui_render(t);
	*e = synth_now();
	*ec = cpu_now();
	if (flame)
		tui_key(t, 'f');
	if (!tui_query(t)->nr_center) {
		fprintf(stderr, "tui: no row matched %s: %s\n", name + 1,
			(*scr)->line[(*scr)->h - 1]);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rounds;
	double built;
	struct pv_profile *p = synth_args(argc, argv, "tui", &rounds, &built);
	if (!p)
		return 1;
	printf("profile: %u samples, %u stacks, %u functions (built in %.2f s)\n", p->samples.len,
	       p->stacks.len, p->funcs.len, built);
	struct pv_query q0;
	pv_query_init(&q0);
	struct tui_opts o = {.path = "synthetic", .p = p, .q = &q0, .marker = -1, .ascii = true};
	struct tui *t = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	double t0 = synth_now();
	if (tui_new(&o, 120, 40, &t, &err)) {
		fprintf(stderr, "tui: %s\n", err.msg);
		return 1;
	}
	tui_render(t);
	printf("first screen: %.1f ms\n", (synth_now() - t0) * 1e3);
	double a[101], b[101], f[101], ac[101], bc[101], fc[101];
	int64_t sink = 0;
	for (int r = -1; r < rounds; r++) { /* round -1 warms up */
		const struct tui_screen *scr;
		double s, sc, e, ec;
		/* A: the rows */
		if (move_center(t, r, false, &s, &sc, &e, &ec, &scr))
			return 1;
		sink += (int64_t)strlen(scr->line[scr->h / 2]);
		if (r >= 0) {
			a[r] = e - s;
			ac[r] = ec - sc;
		}
		if (r == rounds - 1) {
			fprintf(stderr, "last screen (center %s):\n", tui_query(t)->center[0]);
			for (int y = 0; y < scr->h && y < 12; y++)
				fprintf(stderr, "  |%s|\n", scr->line[y]);
		}
		/* B: the library's view of the same query */
		struct pv_view *v;
		s = synth_now();
		sc = cpu_now();
		if (pv_view_compute(p, tui_query(t), &v, &err)) {
			fprintf(stderr, "tui: %s\n", err.msg);
			return 1;
		}
		sink += v->center[0];
		pv_view_free(v);
		if (r >= 0) {
			b[r] = synth_now() - s;
			bc[r] = cpu_now() - sc;
		}
		/* A': the same as a flame graph (f) */
		if (move_center(t, r, true, &s, &sc, &e, &ec, &scr))
			return 1;
		sink += (int64_t)strlen(scr->line[scr->h / 2]);
		if (r >= 0) {
			f[r] = e - s;
			fc[r] = ec - sc;
		}
	}
	double ma = synth_median(a, rounds), mb = synth_median(b, rounds);
	double mf = synth_median(f, rounds);
	double mac = synth_median(ac, rounds), mbc = synth_median(bc, rounds);
	double mfc = synth_median(fc, rounds);
	printf("                                wall          CPU\n");
	printf("TUI: key c + screen (rows)     %8.1f ms %8.1f ms  %.2fx / %.2fx\n", ma * 1e3,
	       mac * 1e3, ma / mb, mac / mbc);
	printf("TUI: key c + screen (flame)    %8.1f ms %8.1f ms  %.2fx / %.2fx\n", mf * 1e3,
	       mfc * 1e3, mf / mb, mfc / mbc);
	printf("library: pv_view_compute       %8.1f ms %8.1f ms\n", mb * 1e3, mbc * 1e3);
	printf(
	    "(medians of %d alternated rounds, A B A'; the ratios are to the library, wall / CPU; "
	    "checksum %lld)\n",
	    rounds, (long long)sink);
	tui_free(t);
	pv_query_release(&q0);
	pv_profile_free(p);
	return 0;
}
