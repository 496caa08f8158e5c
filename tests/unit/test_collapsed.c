/*
 * Collapsed stacks on real files. Expected totals were computed independently with
 *   awk 'NF>1 && $NF ~ /^[0-9]+$/ {s+=$NF; n++} END {print n, s}'
 * (after iconv -f utf-16 for the UTF-16 file and tr -d '\r' for CRLF).
 */
#include "pv/import.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"
#include "view/calltree.h"

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

/*
 * Issue 25: a count past int64 (18446744072893896645, a negative count printed unsigned) in a
 * two- or three-line file made the probe turn the file down ("not a profile format", no
 * position), while with 20 lines it was a skipped line with a positioned note. The probe judges
 * the form, the importer the value: every length gets the same note, a file of nothing else the
 * error at the count.
 */
T_TEST(collapsed_count_past_int64)
{
	static const char *const files[] = {
	    "main;foo 10\nmain;bar 18446744072893896645\n",
	    "main;foo 10\nmain;bar 3\nmain;baz 18446744072893896645\n",
	    "a;b 1\na;c 2\na;d 3\na;e 4\na;f 5\na;g 6\na;h 7\na;i 8\na;j 9\na;k 10\na;l 11\na;m "
	    "12\n"
	    "a;n 13\na;o 14\na;p 15\na;q 16\na;r 17\na;s 18\na;t 19\na;u 18446744072893896645\n",
	};
	static const int64_t totals[] = {10, 13, 190};
	static const char *const notes[] = {
	    "skipped stacks whose count is past 9223372036854775807 (2^63 - 1; first at line 2)",
	    "skipped stacks whose count is past 9223372036854775807 (2^63 - 1; first at line 3)",
	    "skipped stacks whose count is past 9223372036854775807 (2^63 - 1; first at line 20)",
	};
	for (int i = 0; i < 3; i++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		T_EQ_INT(t_import_str("c.txt", files[i], NULL, &p, &err), 0);
		if (!p)
			continue;
		T_EQ_STR(pv_str(p, p->meta.format), "collapsed");
		T_EQ_INT(t_total(p, 0), totals[i]);
		T_EQ_INT(t_diag_count(p, notes[i]), 1);
		pv_profile_free(p);
	}
	/* nothing else: the error at the count; the largest int64 is a count */
	struct pv_profile *p = NULL;
	struct pv_error err;
	const char *one = "main;bar 18446744072893896645\n";
	T_EQ_INT(t_import_str("c.txt", one, NULL, &p, &err), PV_EPARSE);
	T_EQ_STR(err.msg, "c.txt: line 1, column 10: count 18446744072893896645 is past "
			  "9223372036854775807 (2^63 - 1)");
	T_EQ_INT(t_import_str("c.txt", "a;b 9223372036854775807\n", NULL, &p, &err), 0);
	if (p) {
		/* a count the model's range saturates (profile.h) */
		T_EQ_INT(t_total(p, 0), PV_WEIGHT_SUM_MAX);
		pv_profile_free(p);
	}
}

/*
 * A file only in part of a format's form is claimed as damaged (importer.h's PROBE_DAMAGED): its
 * importer says where, rather than "not a profile format". Half stacks, half other lines:
 * collapsed, with its positioned note; a perf script sample among more other lines: perf script,
 * with its. Less than that (one stack in three lines), binary data or damaged JSON: not claimed.
 */
T_TEST(probe_damaged_claims)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(t_import_str("c.txt", "main;foo 1\nhello world\n", NULL, &p, &err), 0);
	if (p) {
		T_EQ_STR(pv_str(p, p->meta.format), "collapsed");
		T_EQ_INT(t_diag_count(p, "skipped lines that are not 'frame;frame;... COUNT' "
					 "(first at line 2)"),
			 1);
		pv_profile_free(p);
	}
	const char *perf =
	    "prog 123/123 [000] 1.000000: 100 cycles:\n"
	    "\t4005d0 main+0x10 (/bin/prog)\n\nGARBAGE here\nmore garbage\nand more\n";
	T_EQ_INT(t_import_str("p.txt", perf, NULL, &p, &err), 0);
	if (p) {
		T_EQ_STR(pv_str(p, p->meta.format), "perf-script");
		T_EQ_INT(t_diag_count(p, "skipped lines that are neither sample headers nor frames "
					 "(first at line 4)"),
			 3);
		pv_profile_free(p);
	}
	T_EQ_INT(t_import_str("c.txt", "main;foo 1\nhello\nworld\n", NULL, &p, &err), PV_EFORMAT);
	T_CONTAINS(err.msg, "c.txt: not a profile format profview reads");
	/* JSON that a claim of damage would take: its syntax error, positioned */
	T_EQ_INT(t_import_str("j.json", "{\"a;b\": 1,\n\"x\" 2\n", NULL, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "j.json: line 2, column 5: ");
	T_CONTAINS(err.msg, "(not valid JSON: the file is damaged or cut short)");
}
