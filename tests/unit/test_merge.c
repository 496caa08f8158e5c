/*
 * profview merge (pv/merge.h, doc/merge.md): each input's threads become contexts named by the
 * pattern, tables are unified across formats, and the merge is associative: a partial merge of
 * the later inputs, sent as snapshot bytes and added after the earlier ones, gives the same bytes
 * as adding every input one by one, wherever the inputs are split.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pv/import.h"
#include "pv/merge.h"
#include "pv/snapshot.h"
#include "t.h"

static int64_t thread_total(const struct pv_profile *p, pv_thread_ix t, pv_metric_ix m)
{
	int64_t sum = 0;
	for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++)
		sum += pv_sample_weight(p, m, s);
	return sum;
}

/*
 * The merge of paths[lo, hi) as a finished profile (NULL on failure, reported); a partial one
 * (pv_merge_finish_partial) when partial.
 */
static struct pv_profile *merge_part(const struct pv_merge_opts *o, char *const *paths, uint64_t lo,
				     uint64_t hi, struct pv_merge **keep, bool partial)
{
	struct pv_merge *m = NULL;
	struct pv_error err;
	if (pv_merge_new(o, &m, &err)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return NULL;
	}
	for (uint64_t i = lo; i < hi; i++) {
		if (pv_merge_add_file(m, paths[i], i, &err)) {
			t_fail(__FILE__, __LINE__, "%s", err.msg);
			pv_merge_free(m);
			return NULL;
		}
	}
	if (keep) {
		*keep = m;
		return NULL;
	}
	struct pv_profile *p = NULL;
	if ((partial ? pv_merge_finish_partial : pv_merge_finish)(m, &p, &err))
		t_fail(__FILE__, __LINE__, "%s", err.msg);
	pv_merge_free(m);
	return p;
}

static struct pv_profile *merge_range(const struct pv_merge_opts *o, char *const *paths,
				      uint64_t lo, uint64_t hi, struct pv_merge **keep)
{
	return merge_part(o, paths, lo, hi, keep, false);
}

static void *bytes_of(const struct pv_profile *p, size_t *len)
{
	void *buf = NULL;
	struct pv_error err;
	if (pv_snapshot_write_memory(p, &buf, len, &err))
		t_fail(__FILE__, __LINE__, "%s", err.msg);
	return buf;
}

T_TEST(merge_ranks_of_two_formats)
{
	char *args[] = {(char *)t_data("merge/ranks")};
	char **paths = NULL;
	uint64_t n = 0;
	struct pv_error err;
	T_EQ_INT(pv_merge_inputs(args, 1, &paths, &n, &err), 0);
	T_EQ_U64(n, 4);
	if (n != 4)
		return;
	/* folders list in byte order of the names */
	T_TRUE(strstr(paths[0], "/merge/ranks/rank-0.txt") != NULL);
	T_TRUE(strstr(paths[3], "/merge/ranks/rank-3.pb.gz") != NULL);
	struct pv_merge_opts o = {.context_regex = "rank-([0-9]+)", .context_name = "rank {1}"};
	struct pv_profile *p = merge_range(&o, paths, 0, n, NULL);
	pv_merge_inputs_free(paths, n);
	if (!p)
		return;
	T_EQ_INT(p->threads.len, 4);
	static const char *const names[] = {"rank 0", "rank 1", "rank 2", "rank 3"};
	static const int64_t totals[] = {10, 4, 10, 4}; /* the lines of each file, summed */
	for (uint32_t t = 0; t < 4 && t < p->threads.len; t++) {
		T_EQ_STR(pv_str(p, p->threads.name[t]), names[t]);
		T_EQ_INT(thread_total(p, t, 0), totals[t]);
	}
	/* main, solve, kernel, io: one function each, whether from collapsed or pprof */
	T_EQ_INT(p->funcs.len, 4);
	T_EQ_INT(p->metrics.len, 1);
	T_EQ_STR(pv_str(p, p->meta.format), "merged"); /* collapsed and pprof */
	pv_profile_free(p);
}

/* A merge is one program whatever its inputs' format (collapsed stacks alone are not): its
 * threads open summed, and its snapshot says so (meta.one_program, flag 8). */
T_TEST(merge_is_one_program)
{
	char *paths[] = {(char *)t_data("merge/ranks/rank-0.txt"),
			 (char *)t_data("merge/ranks/rank-1.txt")};
	struct pv_profile *one = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_file(paths[0], NULL, &one, &err), 0);
	if (!one)
		return;
	T_TRUE(!pv_profile_one_program(one));
	pv_profile_free(one);
	struct pv_merge_opts o = {0};
	struct pv_profile *p = merge_range(&o, paths, 0, 2, NULL);
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format), "collapsed"); /* the inputs agree */
	T_TRUE(p->meta.one_program);
	T_TRUE(pv_profile_one_program(p));
	size_t len = 0;
	void *buf = bytes_of(p, &len);
	pv_profile_free(p);
	p = NULL;
	T_EQ_INT(pv_import_memory("merged.pvs", buf, len, NULL, &p, &err), 0);
	free(buf);
	if (!p)
		return;
	T_TRUE(p->meta.one_program);
	T_TRUE(pv_profile_one_program(p));
	pv_profile_free(p);
}

T_TEST(merge_context_names)
{
	char *paths[] = {(char *)t_data("firefox/gecko-2.json"),
			 (char *)t_data("merge/ranks/rank-1.txt")};
	struct pv_merge_opts o = {0};
	struct pv_profile *p = merge_range(&o, paths, 0, 2, NULL);
	if (!p)
		return;
	/* default: the file, and the thread's name for an input of several threads */
	T_EQ_INT(p->threads.len, 4);
	if (p->threads.len == 4) {
		T_EQ_STR(pv_str(p, p->threads.name[0]), "gecko-2.json GeckoMain");
		T_EQ_STR(pv_str(p, p->threads.name[1]), "gecko-2.json Compositor");
		/* a name taken before is numbered (the Gecko profile has two GeckoMain threads) */
		T_EQ_STR(pv_str(p, p->threads.name[2]), "gecko-2.json GeckoMain #2");
		T_EQ_STR(pv_str(p, p->threads.name[3]), "rank-1.txt");
	}
	/* the Gecko profile's markers follow its threads; 28 raw markers (profview info) */
	T_EQ_INT(p->markers.len, 28);
	pv_profile_free(p);
	struct pv_merge_opts o2 = {.context_regex = "^([a-z]+)-([0-9]+)",
				   .context_name = "{2}/{1} #{input} pid {pid} [{thread}]"};
	p = merge_range(&o2, paths, 0, 2, NULL);
	if (!p)
		return;
	if (p->threads.len == 4) {
		T_EQ_STR(pv_str(p, p->threads.name[1]), "2/gecko #0 pid  [Compositor]");
		T_EQ_STR(pv_str(p, p->threads.name[3]), "1/rank #1 pid  [all samples]");
	}
	pv_profile_free(p);
}

T_TEST(merge_option_errors)
{
	struct pv_merge *m = NULL;
	struct pv_error err;
	struct pv_merge_opts o = {.context_regex = "rank-("};
	T_EQ_INT(pv_merge_new(&o, &m, &err), PV_EINVAL);
	T_TRUE(strstr(err.msg, "--context-regex 'rank-(': ") == err.msg);
	o = (struct pv_merge_opts){.context_name = "rank {rank}"};
	T_EQ_INT(pv_merge_new(&o, &m, &err), PV_EINVAL);
	T_EQ_STR(err.msg, "--context-name: unknown placeholder '{rank}' (known: {0}..{9}, {file}, "
			  "{dir}, {path}, {thread}, {process}, {pid}, {tid}, {input})");
	o = (struct pv_merge_opts){.context_regex = "rank-[0-9]+", .context_name = "rank {1}"};
	T_EQ_INT(pv_merge_new(&o, &m, &err), PV_EINVAL);
	T_EQ_STR(err.msg, "--context-name: {1} names a group of --context-regex, which has 0");
	o = (struct pv_merge_opts){.context_regex = "^node"};
	T_EQ_INT(pv_merge_new(&o, &m, &err), 0);
	const char *path = t_data("merge/ranks/rank-0.txt");
	T_EQ_INT(pv_merge_add_file(m, path, 0, &err), PV_EINVAL);
	T_TRUE(strstr(err.msg,
		      "rank-0.txt: the file name does not match --context-regex '^node'") != NULL);
	T_EQ_U64(pv_merge_count(m), 0);
	pv_merge_free(m);
	/* the regex over the whole path: the file name alone does not match it */
	o = (struct pv_merge_opts){.context_regex = "/nodes/", .regex_on_path = true};
	T_EQ_INT(pv_merge_new(&o, &m, &err), 0);
	T_EQ_INT(pv_merge_add_file(m, path, 0, &err), PV_EINVAL);
	T_TRUE(strstr(err.msg, "rank-0.txt: the path does not match --context-regex-path "
			       "'/nodes/'") != NULL);
	pv_merge_free(m);
}

/* Per-rank folders holding files of one name: the context named from the path. */
T_TEST(merge_context_names_from_path)
{
	char *paths[] = {(char *)t_data("merge/ranks/rank-0.txt"),
			 (char *)t_data("merge/ranks/rank-3.pb.gz")};
	struct pv_merge_opts o = {.context_regex = "/(merge)/([a-z]+)/rank-([0-9]+)",
				  .regex_on_path = true,
				  .context_name = "{2} {3} of {1} in {dir}: {file}"};
	struct pv_profile *p = merge_range(&o, paths, 0, 2, NULL);
	if (!p)
		return;
	T_EQ_INT(p->threads.len, 2);
	if (p->threads.len == 2) {
		T_EQ_STR(pv_str(p, p->threads.name[0]), "ranks 0 of merge in ranks: rank-0.txt");
		T_EQ_STR(pv_str(p, p->threads.name[1]), "ranks 3 of merge in ranks: rank-3.pb.gz");
	}
	pv_profile_free(p);
	/* {dir} of a path without a folder, and of a folder's path ending in '/' */
	struct pv_merge *m = NULL;
	struct pv_error err;
	o = (struct pv_merge_opts){.context_name = "[{dir}] [{file}]"};
	T_EQ_INT(pv_merge_new(&o, &m, &err), 0);
	struct pv_profile *one = NULL;
	T_EQ_INT(pv_import_file(paths[0], NULL, &one, &err), 0);
	if (!m || !one) {
		pv_merge_free(m);
		pv_profile_free(one);
		return;
	}
	T_EQ_INT(pv_merge_add_profile(m, one, "rank-0.txt", 0, &err), 0);
	T_EQ_INT(pv_merge_add_profile(m, one, "/out/r7//rank-0.txt", 1, &err), 0);
	T_EQ_INT(pv_merge_add_profile(m, one, "/r7.d/", 2, &err), 0);
	T_EQ_INT(pv_merge_add_profile(m, one, "/rank-0.txt", 3, &err), 0);
	pv_profile_free(one);
	p = NULL;
	T_EQ_INT(pv_merge_finish(m, &p, &err), 0);
	pv_merge_free(m);
	if (!p)
		return;
	T_EQ_INT(p->threads.len, 4);
	if (p->threads.len == 4) {
		T_EQ_STR(pv_str(p, p->threads.name[0]), "[.] [rank-0.txt]");
		T_EQ_STR(pv_str(p, p->threads.name[1]), "[r7] [rank-0.txt]");
		T_EQ_STR(pv_str(p, p->threads.name[2]), "[/] [r7.d]");
		T_EQ_STR(pv_str(p, p->threads.name[3]), "[/] [rank-0.txt]");
	}
	pv_profile_free(p);
}

struct notes {
	int n;
	char last[512];
};

static void keep_note(void *ctx, const char *msg)
{
	struct notes *k = ctx;
	k->n++;
	snprintf(k->last, sizeof(k->last), "%s", msg);
}

/*
 * Duplicate names are numbered on the whole result, whatever the split: "x", "x #2", "x #3",
 * skipping a number that a context has as its own name; partials keep their names.
 */
T_TEST(merge_duplicate_names)
{
	char *paths[] = {
	    (char *)t_data("merge/ranks/rank-0.txt"), (char *)t_data("merge/ranks/rank-1.txt"),
	    (char *)t_data("merge/ranks/rank-2.txt"), (char *)t_data("merge/ranks/rank-0.txt"),
	    (char *)t_data("merge/ranks/rank-1.txt"),
	};
	const uint64_t n = sizeof(paths) / sizeof(paths[0]);
	/* names: x, x, "x #2", x, y: the third x cannot be "x #2", a context's own name */
	struct notes k = {0};
	struct pv_merge_opts o = {.note = keep_note, .note_ctx = &k};
	const char *want[] = {"x", "x #3", "x #2", "x #4", "y"};
	const char *names[] = {"x", "x", "x #2", "x", "y"};
	struct pv_merge *m = NULL;
	struct pv_error err;
	struct pv_profile *one = NULL;
	T_EQ_INT(pv_import_file(paths[0], NULL, &one, &err), 0);
	if (!one)
		return;
	void *whole = NULL;
	size_t whole_len = 0;
	for (uint64_t split = 0; split <= n; split++) {
		struct pv_merge *later = NULL;
		T_EQ_INT(pv_merge_new(&o, &m, &err), 0);
		T_EQ_INT(pv_merge_new(&o, &later, &err), 0);
		if (!m || !later) {
			pv_merge_free(later);
			break;
		}
		for (uint64_t i = 0; i < n; i++) {
			struct pv_merge_opts named = {.context_name = names[i]};
			struct pv_merge *one_m = NULL;
			struct pv_profile *q = NULL;
			/* a one-input merge names the context; its partial is added */
			if (pv_merge_new(&named, &one_m, &err) ||
			    pv_merge_add_profile(one_m, one, paths[i], i, &err) ||
			    pv_merge_finish_partial(one_m, &q, &err) ||
			    pv_merge_add_partial(i < split ? m : later, q, &err))
				t_fail(__FILE__, __LINE__, "%s", err.msg);
			pv_profile_free(q);
			pv_merge_free(one_m);
		}
		struct pv_profile *part = NULL, *p = NULL;
		if ((pv_merge_count(later) && /* an empty merge is not sent (cmd_merge.c) */
		     (pv_merge_finish_partial(later, &part, &err) ||
		      pv_merge_add_partial(m, part, &err))) ||
		    pv_merge_finish(m, &p, &err))
			t_fail(__FILE__, __LINE__, "%s", err.msg);
		pv_profile_free(part);
		pv_merge_free(later);
		pv_merge_free(m);
		if (!p)
			break;
		T_EQ_INT(p->threads.len, 5);
		for (uint32_t t = 0; t < p->threads.len && t < 5; t++)
			T_EQ_STR(pv_str(p, p->threads.name[t]), want[t]);
		size_t len = 0;
		void *buf = bytes_of(p, &len);
		pv_profile_free(p);
		if (!whole) {
			whole = buf;
			whole_len = len;
		} else {
			if (len != whole_len || memcmp(buf, whole, len) != 0)
				t_fail(__FILE__, __LINE__, "split at %" PRIu64 ": other bytes",
				       split);
			free(buf);
		}
	}
	free(whole);
	pv_profile_free(one);
	T_EQ_INT(k.n, (int)n + 1);
	T_EQ_STR(k.last, "2 context names already taken by earlier contexts: numbered ' #2', "
			 "' #3', ... (the first: 'x')");
}

/* Inputs left out (--skip-bad) are one diagnostic of the result, and a missing path is listed. */
T_TEST(merge_skipped_inputs)
{
	char *args[] = {(char *)t_data("merge/ranks/rank-0.txt"),
			(char *)"/nonexistent/rank-9.txt"};
	char **paths = NULL;
	uint64_t n = 0;
	struct pv_error err;
	T_EQ_INT(pv_merge_inputs_keep(args, 2, true, &paths, &n, &err), 0);
	T_EQ_U64(n, 2);
	if (n != 2)
		return;
	T_EQ_STR(paths[1], "/nonexistent/rank-9.txt");
	struct pv_merge *m = NULL;
	struct pv_merge_opts o = {0};
	T_EQ_INT(pv_merge_new(&o, &m, &err), 0);
	if (!m)
		return;
	T_EQ_INT(pv_merge_add_file(m, paths[0], 0, &err), 0);
	T_EQ_INT(pv_merge_add_file(m, paths[1], 1, &err), PV_EIO);
	T_EQ_STR(err.msg, "/nonexistent/rank-9.txt: cannot open: No such file or directory");
	pv_merge_inputs_free(paths, n);
	pv_merge_skipped(m, 1);
	pv_merge_skipped(m, 2);
	struct pv_profile *p = NULL;
	T_EQ_INT(pv_merge_finish(m, &p, &err), 0);
	pv_merge_free(m);
	if (!p)
		return;
	T_EQ_INT(p->threads.len, 1);
	T_EQ_INT(p->diags.len, 1);
	if (p->diags.len == 1) {
		T_EQ_STR(pv_str(p, p->diags.msg[0]),
			 "merge --skip-bad: an input that could not be read was left out (each "
			 "named on the merge's standard error)");
		T_EQ_U64(p->diags.count[0], 3);
	}
	pv_profile_free(p);
}

T_TEST(merge_inputs_list)
{
	char list[] = "/tmp/pv-merge-list-XXXXXX";
	int fd = mkstemp(list);
	T_TRUE(fd >= 0);
	if (fd < 0)
		return;
	FILE *f = fdopen(fd, "w");
	fprintf(f, "# the ranks, last first\n%s\n\n%s\n", t_data("merge/ranks/rank-3.pb.gz"),
		t_data("merge/ranks/rank-0.txt"));
	fclose(f);
	char at[64];
	snprintf(at, sizeof(at), "@%s", list);
	char *args[] = {at, (char *)t_data("merge/ranks/rank-1.txt")};
	char **paths = NULL;
	uint64_t n = 0;
	struct pv_error err;
	T_EQ_INT(pv_merge_inputs(args, 2, &paths, &n, &err), 0);
	T_EQ_U64(n, 3);
	if (n == 3) {
		T_TRUE(strstr(paths[0], "rank-3.pb.gz") != NULL);
		T_TRUE(strstr(paths[1], "rank-0.txt") != NULL);
		T_TRUE(strstr(paths[2], "rank-1.txt") != NULL);
	}
	pv_merge_inputs_free(paths, n);
	unlink(list);
	char *missing[] = {(char *)"/nonexistent/rank-9.txt"};
	T_EQ_INT(pv_merge_inputs(missing, 1, &paths, &n, &err), PV_EIO);
	T_EQ_STR(err.msg, "/nonexistent/rank-9.txt: cannot read: No such file or directory");
}

/* Every split [0, k) + [k, n) gives the bytes of the merge input by input. */
T_TEST(merge_partials_associative)
{
	char *paths[] = {
	    (char *)t_data("merge/ranks/rank-0.txt"),
	    (char *)t_data("firefox/gecko-2.json"), /* markers, categories, schemas */
	    (char *)t_data("merge/ranks/rank-3.pb.gz"),
	    (char *)t_data("chrome/chromium-page.json.gz"),
	    (char *)t_data("hpctoolkit/loops-cputime-t.d"), /* loops, statements, 2 metrics */
	    (char *)t_corpus("pprof/profile/testdata/cppbench.cpu"),
	    (char *)t_data("merge/ranks/rank-1.txt"),
	};
	const uint64_t n = sizeof(paths) / sizeof(paths[0]);
	struct pv_merge_opts o = {0};
	struct pv_profile *whole = merge_range(&o, paths, 0, n, NULL);
	if (!whole)
		return;
	size_t want_len = 0;
	void *want = bytes_of(whole, &want_len);
	T_TRUE(whole->metrics.len >= 3);
	pv_profile_free(whole);
	for (uint64_t k = 0; k <= n; k++) {
		struct pv_merge *m = NULL;
		merge_range(&o, paths, 0, k, &m);
		struct pv_profile *later = merge_part(&o, paths, k, n, NULL, true);
		if (!m || !later) {
			pv_merge_free(m);
			pv_profile_free(later);
			break;
		}
		/* through the bytes the ranks send */
		size_t len = 0;
		void *buf = bytes_of(later, &len);
		pv_profile_free(later);
		struct pv_profile *part = NULL;
		struct pv_error err;
		if (pv_import_memory("partial", buf, len, "snapshot", &part, &err) ||
		    pv_merge_add_partial(m, part, &err))
			t_fail(__FILE__, __LINE__, "split %" PRIu64 ": %s", k, err.msg);
		pv_profile_free(part);
		free(buf);
		struct pv_profile *p = NULL;
		if (pv_merge_finish(m, &p, &err))
			t_fail(__FILE__, __LINE__, "%s", err.msg);
		pv_merge_free(m);
		size_t got_len = 0;
		void *got = p ? bytes_of(p, &got_len) : NULL;
		if (!got || got_len != want_len || memcmp(got, want, want_len) != 0)
			t_fail(__FILE__, __LINE__,
			       "split at %" PRIu64 ": %zu bytes, not the %zu of "
			       "the merge input by input",
			       k, got_len, want_len);
		free(got);
		pv_profile_free(p);
	}
	free(want);
}

/* A metric that one input lacks weighs 0 on its contexts. */
T_TEST(merge_metrics_union)
{
	char *paths[] = {(char *)t_data("merge/ranks/rank-0.txt"),
			 (char *)t_corpus("pprof/profile/testdata/cppbench.cpu")};
	struct pv_merge_opts o = {0};
	struct pv_profile *p = merge_range(&o, paths, 0, 2, NULL);
	if (!p)
		return;
	pv_metric_ix samples = pv_metric_find(p, "samples");
	T_EQ_INT(samples, 0);
	T_TRUE(p->metrics.len == 2);
	if (p->metrics.len == 2 && p->threads.len == 2) {
		T_EQ_INT(thread_total(p, 0, 0), 10);
		T_EQ_INT(thread_total(p, 0, 1), 0);
		T_EQ_INT(thread_total(p, 1, 0), 712); /* profview info: samples total 712 */
		T_TRUE(thread_total(p, 1, 1) > 0);
	}
	pv_profile_free(p);
}
