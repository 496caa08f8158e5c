/*
 * Bad input never crashes, hangs or passes silently: every truncation and many single-byte
 * mutations of real files are either imported into a valid profile or refused with one message
 * naming the file. Run under ASan+UBSan by `make test`, this is a small deterministic fuzzer.
 */
#include <stdlib.h>

#include "pv/import.h"
#include "pv/marker.h"
#include "t.h"
#include "tp.h"

static const char *const files[] = {
    "collapsed/worked-example.txt",
    "collapsed/perf-iperf-stacks-pidtid-01-collapsed-tid.txt",
    "firefox/generated-processed-v70-calltree.json",
    "firefox/generated-gecko-v36.json",
    "firefox/argument-values.json",
};

static const char *const formats[] = {NULL, "firefox-processed", "firefox-gecko", "collapsed"};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

T_TEST(robust_truncations_and_mutations)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len;
		char *buf = t_read_file(t_data(files[i]), &len);
		if (!buf) {
			/* the Firefox copies arrive with their importers */
			if (strstr(files[i], "firefox/"))
				continue;
			t_fail(__FILE__, __LINE__, "cannot read %s", files[i]);
			continue;
		}
		const struct t_damage d = {
		    formats, sizeof(formats) / sizeof(formats[0]), 150,	      NULL,
		    300,     "{}[]\",:0-9e.\\ \n;ax\xff",	   &rng_state};
		t_damage(files[i], buf, len, &d);
		free(buf);
	}
}

#include "pv/format.h"
#include "pv/query.h"
#include "pv/view.h"
#include "view/calltree.h"

/* 100,000 frames deep: views and printers must not recurse per frame */
T_TEST(robust_very_deep_stack)
{
	size_t n = 100000, cap = n * 4 + 16, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		return;
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%c", i ? ";" : "",
					'a' + (int)(i % 3));
	len += (size_t)snprintf(buf + len, cap - len, " 7\n");
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_memory("deep.txt", buf, len, NULL, &p, &err), 0);
	free(buf);
	if (!p)
		return;
	struct pv_calltree *t;
	T_EQ_INT(pv_calltree_build(p, NULL, &t, &err), 0);
	T_EQ_INT(t->len, 100000);
	pv_calltree_free(t);
	FILE *null = fopen("/dev/null", "w");
	static const enum pv_view_kind kinds[] = {PV_VIEW_TREE, PV_VIEW_CALLERS, PV_VIEW_FLAT,
						  PV_VIEW_TOP, PV_VIEW_BUTTERFLY};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct pv_query q;
		pv_query_init(&q);
		q.view = kinds[k];
		pv_query_add_center(&q, "b");
		struct pv_view *v;
		T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
		struct pv_print_opts po = {.json = true};
		pv_print_view(null, v, &po);
		po.json = false;
		pv_print_view(null, v, &po);
		T_EQ_INT(v->center[0], 7);
		pv_view_free(v);
		pv_query_release(&q);
	}
	fclose(null);
	struct pv_top *top;
	T_EQ_INT(pv_top_build(p, NULL, PV_TOP_BY_TOTAL, &top, &err), 0);
	T_EQ_INT(top->len, 3);
	T_EQ_INT(top->total[0], 7); /* recursion: each function counted once */
	T_EQ_INT(top->total[2], 7);
	pv_top_free(top);
	pv_profile_free(p);
}
