/*
 * Collapsed stacks on real files. Expected totals were computed independently with
 *   awk 'NF>1 && $NF ~ /^[0-9]+$/ {s+=$NF; n++} END {print n, s}'
 * (after iconv -f utf-16 for the UTF-16 file and tr -d '\r' for CRLF).
 */
#include "pv/import.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"

T_TEST(collapsed_speedscope_variants)
{
	static const char *const files[] = {"collapsed/simple-crlf.txt",
					    "collapsed/simple-utf16-le.txt",
					    "collapsed/simple-with-invalids.txt"};
	for (size_t i = 0; i < 3; i++) {
		struct pv_profile *p = t_load(t_data(files[i]));
		if (!p)
			continue;
		T_EQ_INT(p->samples.len, 5);
		T_EQ_INT(t_total(p, 0), 14);
		/* a;b;c 1, a;b;c 1, a;b;d 4, a;b;c 3, a;b 5: c self 5, d self 4, b self 5 */
		struct pv_top *t;
		struct pv_error err;
		T_EQ_INT(pv_top_build(p, NULL, PV_TOP_BY_SELF, &t, &err), 0);
		T_EQ_INT(t->len, 4);
		T_EQ_STR(pv_str(p, p->funcs.name[t->func[0]]), "b");
		T_EQ_INT(t->self[0], 5);
		T_EQ_INT(t->total[0], 14);
		T_EQ_STR(pv_str(p, p->funcs.name[t->func[1]]), "c");
		T_EQ_INT(t->self[1], 5);
		T_EQ_STR(pv_str(p, p->funcs.name[t->func[2]]), "d");
		T_EQ_INT(t->self[2], 4);
		T_EQ_STR(pv_str(p, p->funcs.name[t->func[3]]), "a");
		T_EQ_INT(t->total[3], 14);
		pv_top_free(t);
		if (i == 2) {
			/* the comment lines are comments; "invalid line" is skipped and reported */
			T_EQ_INT(p->diags.len, 1);
			T_EQ_U64(p->diags.count[0], 1);
			T_EQ_STR(
			    pv_str(p, p->diags.msg[0]),
			    "skipped lines that are not 'frame;frame;... COUNT' (first at line 8)");
		} else {
			/* speedscope's two files end without a newline: said, as a cut would be */
			T_EQ_INT(p->diags.len, 1);
			T_EQ_STR(
			    pv_str(p, p->diags.msg[0]),
			    "the last line has no newline and its record may be cut short (read "
			    "as it is)");
		}
		pv_profile_free(p);
	}
}

/* recursion.txt: a;a / b;b / a;b / a;b;a;b / ... ten samples of weight 1 */
T_TEST(collapsed_recursion_counted_once)
{
	struct pv_profile *p = t_load(t_data("collapsed/recursion.txt"));
	if (!p)
		return;
	T_EQ_INT(t_total(p, 0), 10);
	struct pv_top *t;
	struct pv_error err;
	T_EQ_INT(pv_top_build(p, NULL, PV_TOP_BY_TOTAL, &t, &err), 0);
	/* a appears in 9 of the 10 stacks, b in 9, c in 4 (grep -c a / b / c over the lines) */
	for (uint32_t i = 0; i < t->len; i++) {
		const char *n = pv_str(p, p->funcs.name[t->func[i]]);
		T_TRUE(t->total[i] <= 10);
		if (strcmp(n, "a") == 0)
			T_EQ_INT(t->total[i], 9);
		if (strcmp(n, "b") == 0)
			T_EQ_INT(t->total[i], 9);
		if (strcmp(n, "c") == 0)
			T_EQ_INT(t->total[i], 4);
	}
	pv_top_free(t);
	pv_profile_free(p);
}

/* stackcollapse-perf.pl --tid: "comm-PID/TID" first frames become threads */
T_TEST(collapsed_tid_threads)
{
	struct pv_profile *p =
	    t_load(t_data("collapsed/perf-iperf-stacks-pidtid-01-collapsed-tid.txt"));
	if (!p)
		return;
	T_EQ_INT(p->samples.len, 134);
	T_EQ_INT(t_total(p, 0), 200);
	T_EQ_INT(p->threads.len, 11);
	T_EQ_STR(pv_str(p, p->threads.name[0]), "iperf");
	T_EQ_INT(p->threads.pid[0], 27409);
	T_EQ_INT(p->threads.tid[0], 28741);
	T_EQ_INT(p->threads.sample_end[0] - p->threads.sample_begin[0], 16);
	/* tid 28797 ran as "run" and then as "multilog" (exec): two threads */
	pv_thread_ix th[4];
	T_EQ_INT(pv_thread_find(p, "28797", th, 4), 2);
	/* thread selection: iperf 27409/28741 alone (awk: 16 lines, weights sum to 27) */
	struct pv_view_opts o = {.metric = PV_NONE, .threads = th, .nr_threads = 1};
	th[0] = 0;
	struct pv_calltree *t;
	struct pv_error err;
	T_EQ_INT(pv_calltree_build(p, &o, &t, &err), 0);
	T_EQ_INT(t->total_cost, 27);
	T_EQ_INT(t->nr_samples, 16);
	pv_calltree_free(t);
	pv_profile_free(p);
}

T_TEST(collapsed_errors)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	const char *bad = "just some text\nwithout counts\n";
	T_EQ_INT(pv_import_memory("bad.txt", bad, strlen(bad), "collapsed", &p, &err), PV_EPARSE);
	T_EQ_STR(err.msg, "bad.txt: line 1, column 1: expected 'frame;frame;... COUNT'");
	T_EQ_INT(pv_import_memory("bad.txt", bad, strlen(bad), NULL, &p, &err), PV_EFORMAT);
	T_CONTAINS(err.msg, "bad.txt: not a profile format profview reads (tried ");
	T_EQ_INT(pv_import_memory("x", "a;b 1", 5, "nosuch", &p, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "unknown format 'nosuch' (known: ");
	T_TRUE(p == NULL);
}
