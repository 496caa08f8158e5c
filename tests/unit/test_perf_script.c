/*
 * perf script text (src/import/perf/perf_script.c) against what other tools say about the same
 * files:
 *
 *  - the corpus files: sample counts are the header lines of each file,
 *      grep -vc -e '^#' -e '^\s' -e '^$' FILE      (zcat first for .gz)
 *    and match the corpus READMEs (test.perf.gz ~73, gzip.perf.gz ~420, graphviz ~310,
 *    simple-perf ~160); metric totals are awk sums of the period column where there is one;
 *  - FlameGraph's own stackcollapse-perf.pl results for two of its inputs (test/results/);
 *  - `perf report` on four profiles recorded here (tests/data/perf/README.md): self and
 *    children per symbol to 0.01 percentage points;
 *  - the format's variants, then malformed input, which gets a positioned error or an import.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/sbuf.h"
#include "perf_report.h"
#include "pv/import.h"
#include "pv/rows.h"
#include "pv/snapshot.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"

static struct pv_profile *load_mem(const char *text, size_t len, const char *format,
				   struct pv_error *err)
{
	struct pv_profile *p;
	t_import_text("mem.txt", text, len, format, &p, err);
	return p;
}

/* A whole (possibly gzip) file through the importers' own reader, NUL-terminated copy. */
static char *read_any(const char *path, size_t *len)
{
	struct pv_input in;
	struct pv_error err;
	if (input_open(&in, path, &err)) {
		t_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
		return NULL;
	}
	char *s = malloc(in.len + 1);
	if (s) {
		memcpy(s, in.data, in.len);
		s[in.len] = 0;
		*len = in.len;
	}
	input_close(&in);
	return s;
}

/* ---------------------------------------------------------------- the corpus */

struct corpus_perf {
	const char *path;
	int threads;
	uint32_t samples;
	const char *metric0; /* default metric and its total */
	int64_t total0;
	const char *metric1; /* a second event, or NULL */
	int64_t total1;
};

static const struct corpus_perf corpus[] = {
    /* no period column: one per sample; two events in one file */
    {"flamegraph/test/perf-cycles-instructions-01.txt", 5, 444, "instructions", 333, "cycles", 111},
    {"flamegraph/test/perf-funcab-pid-01.txt", 1, 228, "cpu-clock", 228, NULL, 0},
    {"flamegraph/test/perf-iperf-stacks-pidtid-01.txt", 11, 201, "cpu-clock", 201, NULL, 0},
    {"flamegraph/test/perf-java-stacks-01.txt", 7, 46, "cycles", 46, NULL, 0},
    {"flamegraph/test/perf-mirageos-stacks-01.txt", 2, 53, "cpu-clock", 53, NULL, 0},
    /* period column: awk '$(NF-1) ~ /^[0-9]+$/ && /cycles:u:/ {s += $(NF-1)} END {print s}' */
    {"flamegraph/test/perf-rust-Yamakaky-dcpu.txt", 1, 58, "cycles:u", 6850637, NULL, 0},
    {"flamegraph/example-perf-stacks.txt.gz", 15, 1315, "cycles", 1315, NULL, 0},
    {"speedscope/linux-perf/forks.linux-perf.txt", 4, 561, "cpu-clock", 561561561, NULL, 0},
    {"speedscope/linux-perf/one-sample.linux-perf.txt", 1, 1, "cpu-clock", 1001001, NULL, 0},
    {"speedscope/linux-perf/rust-mangled.linux-perf.txt", 1, 96, "task-clock:ppp", 1627118592, NULL,
     0},
    {"speedscope/linux-perf/simple-with-header.linux-perf.txt", 1, 136, "cpu-clock", 136136136,
     NULL, 0},
    {"speedscope/linux-perf/simple-with-pid.linux-perf.txt", 1, 137, "cpu-clock", 137, NULL, 0},
    {"speedscope/linux-perf/simple.linux-perf.txt", 1, 1, "cpu-clock", 1001001, NULL, 0},
    {"speedscope/linux-perf/system-wide.linux-perf.txt", 2, 556, "cpu-clock", 556556556, NULL, 0},
    /* "FS Broker 5906  7564/7598": a comm with a space and a number; one cycles:ppp sample */
    {"firefox/test.perf.gz", 17, 73, "cycles:uppp", 587515833, "cycles:ppp", 1},
    {"firefox/gzip.perf.gz", 2, 420, "cycles", 283922691, NULL, 0},
    {"firefox/graphviz.perf.gz", 2, 312, "cycles", 171113749, NULL, 0},
    /* simpleperf report-sample: tab-separated header, frames indented with spaces */
    {"firefox/simple-perf.txt.gz", 12, 163, "task-clock:u", 163000000, NULL, 0},
};

T_TEST(perf_corpus_files_open)
{
	for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		const struct corpus_perf *c = &corpus[i];
		struct pv_profile *p = t_load_as(t_corpus(c->path), "perf-script");
		if (!p)
			continue;
		if ((int)p->threads.len != c->threads)
			t_fail(__FILE__, __LINE__, "%s: %u threads, expected %d", c->path,
			       p->threads.len, c->threads);
		if (p->samples.len != c->samples)
			t_fail(__FILE__, __LINE__, "%s: %u samples, expected %u", c->path,
			       p->samples.len, c->samples);
		T_EQ_STR(pv_str(p, p->metrics.name[0]), c->metric0);
		T_EQ_INT(p->meta.default_metric, 0);
		if (t_total(p, 0) != c->total0)
			t_fail(__FILE__, __LINE__, "%s: %s total %lld, expected %lld", c->path,
			       c->metric0, (long long)t_total(p, 0), (long long)c->total0);
		T_EQ_INT(p->metrics.len, c->metric1 ? 2 : 1);
		if (c->metric1 && p->metrics.len == 2) {
			T_EQ_STR(pv_str(p, p->metrics.name[1]), c->metric1);
			T_EQ_INT(t_total(p, 1), c->total1);
		}
		/* nothing was skipped: the only report line is where the clock started */
		for (uint32_t d = 0; d < p->diags.len; d++)
			if (!strstr(pv_str(p, p->diags.msg[d]), "absolute times"))
				t_fail(__FILE__, __LINE__, "%s: lossy '%s'", c->path,
				       pv_str(p, p->diags.msg[d]));
		pv_profile_free(p);
	}
}

/* Threads, process names, module kinds and times on a few corpus files. */
T_TEST(perf_corpus_details)
{
	struct pv_profile *p = t_load_as(t_corpus("firefox/test.perf.gz"), "perf-script");
	if (p) {
		/* 16: "FS Broker 5906  7564/7598  2574592.949428:          1 cycles:ppp:" */
		pv_thread_ix th[4];
		T_EQ_INT(pv_thread_find(p, "7598", th, 4), 1);
		T_EQ_STR(pv_str(p, p->threads.name[th[0]]), "FS Broker 5906");
		T_EQ_INT(p->threads.pid[th[0]], 7564);
		T_EQ_STR(pv_str(p, p->threads.process_name[th[0]]), "firefox");
		/* it weighs 1 in cycles:ppp and 0 in cycles:uppp */
		uint32_t s = p->threads.sample_begin[th[0]];
		T_EQ_INT(p->threads.sample_end[th[0]] - s, 1);
		T_EQ_INT(pv_sample_weight(p, 0, s), 0);
		T_EQ_INT(pv_sample_weight(p, 1, s), 1);
		T_EQ_INT(p->metrics.unit[0], PV_UNIT_CYCLES);
		/* first sample 2574592.839818; that one at 2574592.949428: 109.610 ms later */
		T_EQ_INT(pv_sample_time(p, s), 109610000);
		T_TRUE(t_diag(p, "starts at 2574592.839818 s", NULL) != NULL);
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus("flamegraph/test/perf-java-stacks-01.txt"), "perf-script");
	if (p) {
		int kinds[8] = {0};
		for (uint32_t m = 0; m < p->modules.len; m++) {
			const char *n = pv_str(p, p->modules.name[m]);
			kinds[p->modules.kind[m]]++;
			if (strcmp(n, "[kernel.kallsyms]") == 0)
				T_EQ_INT(p->modules.kind[m], PV_MODULE_KERNEL);
			if (strncmp(n, "perf-", 5) == 0) {
				T_EQ_INT(p->modules.kind[m], PV_MODULE_JIT);
				T_EQ_STR(pv_str(p, p->modules.path[m]), "/tmp/perf-23895.map");
			}
			if (strcmp(n, "libjvm.so") == 0)
				T_EQ_INT(p->modules.kind[m], PV_MODULE_LIBRARY);
			if (strcmp(n, "perf") == 0)
				T_EQ_INT(p->modules.kind[m], PV_MODULE_BINARY);
		}
		T_TRUE(kinds[PV_MODULE_KERNEL] == 1 && kinds[PV_MODULE_JIT] == 1);
		T_EQ_INT(kinds[PV_MODULE_LIBRARY], 4); /* libjvm.so, libpthread, libc, [vdso] */
		T_EQ_INT(kinds[PV_MODULE_BINARY], 1);  /* /usr/lib/linux-tools-3.13.0-44/perf */
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus("flamegraph/test/perf-iperf-stacks-pidtid-01.txt"), "perf-script");
	if (p) {
		/* "(/lib/modules/4.3.0-rc1-virtual/build/vmlinux)" is the kernel */
		int found = 0;
		for (uint32_t m = 0; m < p->modules.len; m++)
			if (strcmp(pv_str(p, p->modules.name[m]), "vmlinux") == 0) {
				T_EQ_INT(p->modules.kind[m], PV_MODULE_KERNEL);
				found = 1;
			}
		T_TRUE(found);
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus("firefox/simple-perf.txt.gz"), "perf-script");
	if (p) {
		/*
		 * simpleperf prints unpadded microseconds: "115540.8374" is 115540.008374; the
		 * first sample is 115539.936601, so that sample of tid 25117 is 71.773 ms in
		 */
		pv_thread_ix th[2];
		T_EQ_INT(pv_thread_find(p, "25117", th, 2), 1);
		int found = 0;
		for (uint32_t s = p->threads.sample_begin[th[0]]; s < p->threads.sample_end[th[0]];
		     s++)
			found += pv_sample_time(p, s) == 71773000;
		T_EQ_INT(found, 1);
		T_EQ_INT(p->threads.pid[th[0]], PV_ID_NONE);
		T_EQ_INT(p->metrics.unit[0], PV_UNIT_NS);
		T_EQ_INT(p->meta.interval_ns, 1000000);
		/* C++ names with spaces and parentheses, the module after the last group */
		int cxx = 0;
		for (uint32_t f = 0; f < p->funcs.len; f++)
			if (strcmp(pv_str(p, p->funcs.name[f]),
				   "nsCOMPtr_base::assign_from_helper(nsCOMPtr_helper const&, nsID "
				   "const&)") == 0) {
				cxx++;
				T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, f)]),
					 "libxul.so");
			}
		T_EQ_INT(cxx, 1);
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus("flamegraph/test/perf-rust-Yamakaky-dcpu.txt"), "perf-script");
	if (p) {
		/* "_start+0xffff018fd5dce000": the offset is cut */
		int found = 0;
		for (uint32_t f = 0; f < p->funcs.len; f++)
			found += strcmp(pv_str(p, p->funcs.name[f]), "_start") == 0;
		T_EQ_INT(found, 1);
		T_EQ_STR(pv_str(p, p->meta.format_version), "");
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus("firefox/graphviz.perf.gz"), "perf-script");
	if (p) {
		/* the "# ========" header block names perf's version */
		T_EQ_STR(pv_str(p, p->meta.format_version), "5.11.22");
		pv_profile_free(p);
	}
}

/* ---------------------------------------------------------------- FlameGraph's results */

struct folded {
	char **line; /* "stack count" */
	size_t len, cap;
};

static void folded_add(struct folded *f, char *s)
{
	if (f->len == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 256;
		f->line = realloc(f->line, f->cap * sizeof(*f->line));
	}
	f->line[f->len++] = s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void folded_free(struct folded *f)
{
	for (size_t i = 0; i < f->len; i++)
		free(f->line[i]);
	free(f->line);
}

/* stackcollapse-perf.pl's tidy_generic: ';' -> ':', cut at the first '(' (unless Go-like or
 * "(anonymous namespace)"), drop quotes; tidy_java for comm "java": a leading 'L' when '/' */
static void fg_name(const char *in, int java, char *out, size_t cap)
{
	size_t n = 0;
	int go = 0;
	const char *dp = strstr(in, ".(");
	if (dp && strchr(dp + 2, ')') && strchr(strchr(dp + 2, ')'), '.'))
		go = 1;
	if (java && in[0] == 'L' && strchr(in, '/'))
		in++;
	for (const char *c = in; *c && n + 1 < cap; c++) {
		if (*c == '(' && !go && strncmp(c, "(anonymous namespace)", 21) != 0)
			break;
		if (*c == '"' || *c == '\'')
			continue;
		out[n++] = *c == ';' ? ':' : *c;
	}
	out[n] = 0;
}

/*
 * The profile as stackcollapse-perf.pl folds it: "comm;root;...;leaf count". tid: comm-PID/TID
 * process frames (--tid); all: "_[k]" on kernel frames, "_[j]" on perf-PID.map frames (--all).
 * skip_time: a sample the script never sees (it folds a sample at the blank line after it, and
 * the corpus files end without one).
 */
static void fold(const struct pv_profile *p, int tid, int all, int64_t skip_time,
		 struct folded *out)
{
	struct folded raw = {0};
	static pv_stack_ix path[4096];
	for (uint32_t t = 0; t < p->threads.len; t++) {
		char pname[256];
		const char *comm = pv_str(p, p->threads.name[t]);
		if (tid) {
			char pid[32] = "?";
			if (p->threads.pid[t] != PV_ID_NONE)
				snprintf(pid, sizeof(pid), "%lld", (long long)p->threads.pid[t]);
			snprintf(pname, sizeof(pname), "%s-%s/%lld", comm, pid,
				 (long long)p->threads.tid[t]);
		} else {
			snprintf(pname, sizeof(pname), "%s", comm);
		}
		for (char *c = pname; *c; c++)
			if (*c == ' ')
				*c = '_';
		int java = strcmp(pname, "java") == 0;
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
			if (pv_sample_time(p, s) == skip_time)
				continue;
			size_t depth = 0;
			for (pv_stack_ix st = p->samples.stack[s]; st != PV_NONE;
			     st = p->stacks.prefix[st])
				path[depth++] = st;
			size_t cap = 256 + depth * 256, n = 0;
			char *line = malloc(cap);
			n += (size_t)snprintf(line, cap, "%s", pname);
			while (depth-- > 0) {
				pv_func_ix f = p->frames.func[p->stacks.frame[path[depth]]];
				pv_module_ix m = pv_func_module(p, f);
				const char *mname =
				    m == PV_NONE ? "" : pv_str(p, p->modules.name[m]);
				const char *mpath =
				    m == PV_NONE ? "" : pv_str(p, p->modules.path[m]);
				const char *name = pv_str(p, p->funcs.name[f]);
				char buf[1024];
				/* a symbol-less frame in "[vdso]"-like module: FlameGraph wraps it
				 * again */
				if (m != PV_NONE && mname[0] == '[' && strcmp(name, mname) == 0)
					snprintf(buf, sizeof(buf), "[%s]", name);
				else
					fg_name(name, java, buf, sizeof(buf));
				const char *sfx = "";
				if (all && m != PV_NONE &&
				    (mname[0] == '[' ||
				     (strlen(mpath) >= 7 &&
				      strcmp(mpath + strlen(mpath) - 7, "vmlinux") == 0)))
					sfx = "_[k]";
				else if (all && m != PV_NONE &&
					 strncmp(mpath, "/tmp/perf-", 10) == 0)
					sfx = "_[j]";
				n += (size_t)snprintf(line + n, cap - n, ";%s%s", buf, sfx);
			}
			snprintf(line + n, cap - n, " %lld", (long long)pv_sample_weight(p, 0, s));
			folded_add(&raw, line);
		}
	}
	/* sum the counts of equal stacks */
	qsort(raw.line, raw.len, sizeof(char *), cmp_str);
	for (size_t i = 0; i < raw.len;) {
		char *sp = strrchr(raw.line[i], ' ');
		size_t klen = (size_t)(sp - raw.line[i]);
		long long c = 0;
		size_t j = i;
		while (j < raw.len && strncmp(raw.line[j], raw.line[i], klen) == 0 &&
		       raw.line[j][klen] == ' ')
			c += atoll(raw.line[j++] + klen + 1);
		char *l = malloc(klen + 32);
		memcpy(l, raw.line[i], klen);
		snprintf(l + klen, 32, " %lld", c);
		folded_add(out, l);
		i = j;
	}
	folded_free(&raw);
}

static void compare_folded(const char *what, struct folded *mine, const char *results)
{
	size_t len;
	char *text = t_read_file(results, &len);
	if (!text) {
		t_fail(__FILE__, __LINE__, "cannot read %s", results);
		return;
	}
	struct folded theirs = {0};
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n"))
		folded_add(&theirs, strdup(l));
	free(text);
	qsort(theirs.line, theirs.len, sizeof(char *), cmp_str);
	qsort(mine->line, mine->len, sizeof(char *), cmp_str);
	size_t i = 0, j = 0, bad = 0;
	while (i < mine->len || j < theirs.len) {
		int c = i == mine->len	  ? 1
			: j == theirs.len ? -1
					  : strcmp(mine->line[i], theirs.line[j]);
		if (c == 0) {
			i++;
			j++;
			continue;
		}
		if (bad++ < 5)
			t_fail(__FILE__, __LINE__, "%s: %s '%s'", what,
			       c < 0 ? "only ours" : "only theirs",
			       c < 0 ? mine->line[i] : theirs.line[j]);
		if (c < 0)
			i++;
		else
			j++;
	}
	T_EQ_INT(bad, 0);
	T_EQ_INT(mine->len, theirs.len);
	folded_free(&theirs);
}

static int64_t last_sample_time(const struct pv_profile *p)
{
	int64_t t = PV_TIME_NONE;
	for (uint32_t s = 0; s < p->samples.len; s++)
		if (pv_sample_time(p, s) > t)
			t = pv_sample_time(p, s);
	return t;
}

T_TEST(perf_matches_stackcollapse_perf)
{
	/* stackcollapse-perf.pl --tid perf-iperf-stacks-pidtid-01.txt */
	struct pv_profile *p =
	    t_load_as(t_corpus("flamegraph/test/perf-iperf-stacks-pidtid-01.txt"), "perf-script");
	if (p) {
		struct folded mine = {0};
		fold(p, 1, 0, last_sample_time(p), &mine);
		compare_folded(
		    "iperf --tid", &mine,
		    t_corpus(
			"flamegraph/test/results/perf-iperf-stacks-pidtid-01-collapsed-tid.txt"));
		folded_free(&mine);
		pv_profile_free(p);
	}
	/* stackcollapse-perf.pl --all perf-java-stacks-01.txt */
	p = t_load_as(t_corpus("flamegraph/test/perf-java-stacks-01.txt"), "perf-script");
	if (p) {
		struct folded mine = {0};
		fold(p, 0, 1, last_sample_time(p), &mine);
		compare_folded(
		    "java --all", &mine,
		    t_corpus("flamegraph/test/results/perf-java-stacks-01-collapsed-all.txt"));
		folded_free(&mine);
		pv_profile_free(p);
	}
}

/* ---------------------------------------------------------------- perf report */

struct report_row {
	char name[512];
	double self, children;
};

struct report {
	struct report_row *row;
	size_t len, cap;
};

static struct report_row *report_find(struct report *r, const char *name, int add)
{
	for (size_t i = 0; i < r->len; i++)
		if (strcmp(r->row[i].name, name) == 0)
			return &r->row[i];
	if (!add)
		return NULL;
	if (r->len == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->row = realloc(r->row, r->cap * sizeof(*r->row));
	}
	struct report_row *w = &r->row[r->len++];
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", name);
	return w;
}

/*
 * The length of a symbol name without the suffix of a compiler's clone of the function
 * (".constprop.0", ".isra.0", ".part.0", ".cold"): the ELF symbol perf report names, where
 * perf script with DWARF call chains prints the debug-info name (tests/data/perf/README.md).
 */
static size_t without_clone_suffix(const char *n)
{
	static const char *const marks[] = {".constprop.", ".isra.", ".part.", ".cold"};
	size_t len = strlen(n);
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		const char *m = strstr(n, marks[i]);
		if (m && (size_t)(m - n) < len)
			len = (size_t)(m - n);
	}
	return len;
}

/*
 * "perf report --stdio --sort symbol -g none" rows: "   1.23%  [.] name   -   -" without
 * --children (self), "  45.67%   1.23%  [.] name ..." with it. A name may hold spaces; the
 * trailing "-      -" is the IPC column. Rows of one name (same name, other DSO) add up.
 * dwarf (a recording with DWARF call chains, whose perf script text names functions by their
 * debug info): self rows of a compiler's clone are its function's; with --children, the
 * " (inlined)" entries are their function's and the clones' own rows (self only) are left out.
 */
static void read_report(const char *path, int children, int dwarf, struct report *r)
{
	size_t len;
	char *text = read_any(path, &len);
	if (!text)
		return;
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		if (l[0] == '#')
			continue;
		double a, b = 0;
		int n = 0;
		if (children ? sscanf(l, " %lf%% %lf%% %n", &a, &b, &n) != 2
			     : sscanf(l, " %lf%% %n", &a, &n) != 1)
			continue;
		char *name = l + n;
		if (name[0] != '[' || name[2] != ']' || name[3] != ' ')
			continue;
		name += 4;
		char *e = name + strlen(name);
		while (e > name && (e[-1] == ' ' || e[-1] == '-'))
			e--;
		*e = 0;
		if (dwarf && children && e - name > 10 && strcmp(e - 10, " (inlined)") == 0)
			e[-10] = 0;
		else if (dwarf && without_clone_suffix(name) < strlen(name) && children)
			continue;
		else if (dwarf)
			name[without_clone_suffix(name)] = 0;
		struct report_row *w = report_find(r, name, 1);
		if (children) {
			w->children += a;
			w->self += b;
		} else {
			w->self += a;
		}
	}
	free(text);
}

/* perf report names unresolved addresses by their value, data symbols by "sym+0xOFF" */
static int report_name_resolved(const char *n)
{
	size_t h = strncmp(n, "0x", 2) == 0 ? 2 : 0;
	while (n[h] && strchr("0123456789abcdef", n[h]))
		h++;
	return n[h] != 0 && !strstr(n, "+0x");
}

/* The view of q's options (NULL-terminated name/value pairs) with view kind k. */
static struct pv_view *view_of(const struct pv_profile *p, enum pv_view_kind k,
			       const char *const *opts)
{
	struct pv_query q;
	struct pv_error err = {0};
	pv_query_init(&q);
	q.view = k;
	for (const char *const *o = opts; o && *o; o += 2)
		T_EQ_INT(pv_query_set_option(&q, o[0], o[1], &err), 0);
	struct pv_view *v = NULL;
	if (pv_view_compute(p, &q, &v, &err))
		t_fail(__FILE__, __LINE__, "%s", err.msg);
	pv_query_release(&q);
	return v;
}

/* "# Event count (approx.): 96000000" of a perf report: the total every percentage is of */
static int64_t report_event_count(const char *path)
{
	size_t len;
	char *text = read_any(path, &len);
	const char *c = text ? strstr(text, "# Event count (approx.): ") : NULL;
	int64_t n = c ? strtoll(c + 25, NULL, 10) : -1;
	free(text);
	return n;
}

/*
 * profview's `top` (the view of the query opts, NULL-terminated name/value pairs) against
 * `perf report --stdio --sort symbol -g none` of the same recording: every symbol's self (and,
 * when NAME.report-children.txt.gz exists, children) percentage to 0.01 points, each of the
 * view's base, which must be perf's event count. Samples for which `perf script` printed no
 * call chain (NAME.frameless.txt, from `perf script -F time,period,ip,sym -G`) are the
 * (no stack) row in profview and their IP's symbol in perf.
 */

static void compare_perf_report(const char *name, int expect_rows, const char *const *opts, int how)
{
	char path[256], fl[256], self[256], children[256];
	snprintf(path, sizeof(path), "perf/%s.perf.txt.gz", name);
	struct pv_profile *p = t_load_as(t_data(path), "perf-script");
	if (!p)
		return;
	snprintf(path, sizeof(path), "perf/%s.frameless.txt", name);
	snprintf(fl, sizeof(fl), "%s", t_data(path));
	snprintf(path, sizeof(path), "perf/%s.report-self.txt.gz", name);
	snprintf(self, sizeof(self), "%s", t_data(path));
	snprintf(path, sizeof(path), "perf/%s.report-children.txt.gz", name);
	snprintf(children, sizeof(children), "%s", t_data(path));
	compare_report_files(name, p, fl, self, children, expect_rows, opts, how);
}

void compare_report_files(const char *name, struct pv_profile *p, const char *frameless_path,
			  const char *self_path, const char *children_path, int expect_rows,
			  const char *const *opts, int how)
{
	struct pv_view *v = view_of(p, PV_VIEW_TOP, opts);
	if (!v) {
		pv_profile_free(p);
		return;
	}
	/* profview's rows by name, in percent (two functions of one name in two modules add up,
	 * as in perf) */
	struct report mine = {0};
	double base = (double)v->base[0], nostack = 0;
	for (uint32_t i = 0; i < v->flat->len; i++) {
		char b[64];
		double self = 100.0 * (double)v->flat->self[0][i] / base;
		double total = 100.0 * (double)v->flat->total[0][i] / base;
		if (v->flat->kind[i] == PV_ROW_NOSTACK) {
			T_TRUE(self == total);
			nostack += self;
			continue;
		}
		const char *n = pv_view_row_name(v, v->flat->kind[i], v->flat->id[i], b, sizeof(b),
						 v->flat->line[i]);
		struct report_row *w = report_find(&mine, n, 1);
		w->self += self;
		w->children += total;
	}
	/* the samples perf script printed without a call chain: perf gives them to their IP */
	size_t len;
	char *fl = t_read_file(frameless_path, &len);
	double frameless = 0;
	for (char *l = fl ? strtok(fl, "\n") : NULL; l; l = strtok(NULL, "\n")) {
		char sym[512];
		long long period;
		if (l[0] == '#' || sscanf(l, "%*s %lld %*s %511[^\n]", &period, sym) != 2)
			continue;
		struct report_row *w = report_find(&mine, sym, 1);
		double x = 100.0 * (double)period / base;
		w->self += x;
		w->children += x;
		frameless += x;
	}
	free(fl);
	/* the (no stack) row is exactly those samples: every share is of perf's total */
	if (nostack - frameless > 1e-9 || frameless - nostack > 1e-9)
		t_fail(__FILE__, __LINE__, "%s: (no stack) %.4f%%, frameless samples %.4f%%", name,
		       nostack, frameless);
	T_EQ_INT(v->base[0], report_event_count(self_path));
	struct report self = {0}, children = {0};
	int dwarf = (how & CMP_DWARF) != 0;
	double tol = (how & CMP_LOOSE) ? 0.05 : 0.01;
	if (how & CMP_SELF)
		read_report(self_path, 0, dwarf, &self);
	if (how & CMP_CHILDREN)
		read_report(children_path, 1, dwarf, &children);
	int compared = 0;
	for (size_t i = 0; i < self.len; i++) {
		if (!report_name_resolved(self.row[i].name))
			continue;
		struct report_row *m = report_find(&mine, self.row[i].name, 0);
		double x = m ? m->self : 0;
		if (x - self.row[i].self > tol || self.row[i].self - x > tol)
			t_fail(__FILE__, __LINE__, "%s: self of %s: perf %.2f%%, profview %.4f%%",
			       name, self.row[i].name, self.row[i].self, x);
		compared++;
	}
	for (size_t i = 0; i < children.len; i++) {
		if (!report_name_resolved(children.row[i].name))
			continue;
		struct report_row *m = report_find(&mine, children.row[i].name, 0);
		double x = m ? m->children : 0, y = m ? m->self : 0;
		if (x - children.row[i].children > tol || children.row[i].children - x > tol)
			t_fail(__FILE__, __LINE__,
			       "%s: children of %s: perf %.2f%%, profview %.4f%%", name,
			       children.row[i].name, children.row[i].children, x);
		/* DWARF: perf gives self to the clone's ELF symbol, compared above */
		if (!dwarf && (y - children.row[i].self > tol || children.row[i].self - y > tol))
			t_fail(__FILE__, __LINE__,
			       "%s: self (children report) of %s: perf %.2f%%, profview %.4f%%",
			       name, children.row[i].name, children.row[i].self, y);
		compared++;
	}
	if (compared < expect_rows)
		t_fail(__FILE__, __LINE__, "%s: only %d rows compared", name, compared);
	free(self.row);
	free(children.row);
	free(mine.row);
	pv_view_free(v);
	pv_profile_free(p);
}

/*
 * perf record -g of a compression run, a compiler run (clang: 8 of 1470 samples without a call
 * chain), python3, and a window of a gcc run (2 of 192 without); tests/data/perf/README.md
 */
T_TEST(perf_matches_perf_report)
{
	compare_perf_report("xz", 100, NULL, CMP_BOTH);
	compare_perf_report("clang", 1000, NULL, CMP_BOTH);
	compare_perf_report("python3", 300, NULL, CMP_BOTH);
	compare_perf_report("gcc", 200, NULL, CMP_BOTH);
}

/*
 * perf record --call-graph dwarf of a program built with -O2 -g whose hot code is inlined
 * (tests/data/perf/README.md, inline-dwarf): with --inline fold, `top` is perf report
 * --no-children symbol by symbol (sort_block 96.36 %, hash_block 1.36 %, main 0.91 %, the
 * kernel's); with inlined frames kept, each function's total is perf report --children's for
 * its "(inlined)" entries and the others (less 29.09 %, mix 29.77 % in two entries, ...).
 */
T_TEST(perf_dwarf_inline_matches_perf_report)
{
	static const char *const fold[] = {"inline", "fold", NULL};
	compare_perf_report("inline-dwarf", 8, fold, CMP_SELF | CMP_DWARF);
	compare_perf_report("inline-dwarf", 30, NULL, CMP_CHILDREN | CMP_DWARF);
	/* kept, the inlined code's time is its own: perf's self of sort_block.constprop.0 is
	 * profview's sort_block (296 ms) and mix (inlined into less, 128 ms), ... */
	struct pv_profile *p = t_load_as(t_data("perf/inline-dwarf.perf.txt.gz"), "perf-script");
	if (!p)
		return;
	struct pv_view *keep = view_of(p, PV_VIEW_TOP, NULL);
	struct pv_view *folded = view_of(p, PV_VIEW_TOP, fold);
	int kinds = 0;
	for (uint32_t r = 0; keep && r < keep->flat->len; r++) {
		const char *n = pv_str(p, p->funcs.name[keep->flat->id[r]]);
		const char *kind = pv_row_kind_name(keep->flat->kind[r], keep->flat->inlined[r]);
		/* perf script: "12aa mix+0x4a (inlined)", "12aa less+0x4a (inlined)", "12aa
		 * sort_block+0x4a (inlined)", "1120 main+0xc0 (/tmp/diag/inl/inl)": sort_block
		 * holds them (its ELF symbol is sort_block.constprop.0), main calls it */
		if (!strcmp(n, "mix") || !strcmp(n, "less") || !strcmp(n, "step")) {
			T_EQ_STR(kind, "inline");
			kinds++;
		}
		if (!strcmp(n, "sort_block") || !strcmp(n, "hash_block") || !strcmp(n, "main") ||
		    !strcmp(n, "__libc_start_main_impl")) {
			T_EQ_STR(kind, "function");
			kinds++;
		}
		if (!strcmp(n, "sort_block"))
			T_EQ_INT(keep->flat->self[0][r], 296000000);
	}
	T_EQ_INT(kinds, 7);
	for (uint32_t r = 0; folded && r < folded->flat->len; r++) {
		T_EQ_INT(folded->flat->inlined[r], 0);
		const char *n = pv_str(p, p->funcs.name[folded->flat->id[r]]);
		T_TRUE(strcmp(n, "mix") && strcmp(n, "less") && strcmp(n, "step"));
	}
	pv_view_free(keep);
	pv_view_free(folded);
	pv_profile_free(p);
}

/* The cost of the (no stack) roots of a tree, -1 when there is none. */
static int64_t nostack_root(const struct pv_tree *t)
{
	for (uint32_t i = 0; i < t->nr_roots; i++)
		if (t->kind[t->roots[i]] == PV_ROW_NOSTACK) {
			T_EQ_INT(t->child_len[t->roots[i]], 0);
			T_EQ_INT(t->self[0][t->roots[i]], t->total[0][t->roots[i]]);
			return t->total[0][t->roots[i]];
		}
	return -1;
}

static int64_t roots_sum(const struct pv_tree *t)
{
	int64_t s = 0;
	for (uint32_t i = 0; i < t->nr_roots; i++)
		s += t->total[0][t->roots[i]];
	return s;
}

/*
 * gcc window: 192 samples of 500000 ns, 2 without a call chain (gcc.frameless.txt). Every
 * uncentered view has one (no stack) row of 1000000 and rows that add up to perf's event
 * count, 96000000; a center leaves them out of its total, --percent whole keeps them in the
 * base; an include filter drops them (they hold no scope), a drop filter keeps them.
 */
T_TEST(perf_samples_without_stack_in_every_view)
{
	struct pv_profile *p = t_load_as(t_data("perf/gcc.perf.txt.gz"), "perf-script");
	if (!p)
		return;
	const int64_t whole = 96000000, nostack = 1000000;
	static const enum pv_view_kind kinds[] = {PV_VIEW_TREE, PV_VIEW_CALLERS, PV_VIEW_FLAT,
						  PV_VIEW_TOP};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct pv_view *v = view_of(p, kinds[k], NULL);
		if (!v)
			continue;
		T_EQ_INT(v->whole[0], whole);
		T_EQ_INT(v->base[0], whole);
		T_EQ_INT(v->nostack[0], nostack);
		if (v->tree) {
			T_EQ_INT(nostack_root(v->tree), nostack);
			T_EQ_INT(roots_sum(v->tree), whole);
		} else {
			/* the selves of the first level add up: each sample has one leaf */
			int64_t level0 = 0, ns = -1;
			for (uint32_t r = 0; r < v->flat->len; r++) {
				if (v->flat->level[r] == v->flat->level[0])
					level0 += v->flat->self[0][r];
				if (v->flat->kind[r] == PV_ROW_NOSTACK)
					ns = v->flat->total[0][r];
			}
			T_EQ_INT(ns, nostack);
			T_EQ_INT(level0, whole);
		}
		pv_view_free(v);
	}
	/* perf report --children: asm_exc_page_fault 5.21 % = 10 of 192 samples */
	static const char *const center[] = {"center", "asm_exc_page_fault", NULL};
	static const char *const center_whole[] = {"center", "asm_exc_page_fault", "percent",
						   "whole", NULL};
	struct pv_view *v = view_of(p, PV_VIEW_TREE, center);
	if (v) {
		T_EQ_INT(v->center[0], 5000000);
		T_EQ_INT(v->base[0], 5000000);
		T_EQ_INT(v->whole[0], whole);
		T_EQ_INT(nostack_root(v->tree), -1);
		pv_view_free(v);
	}
	static const enum pv_view_kind centered[] = {PV_VIEW_TREE, PV_VIEW_CALLERS,
						     PV_VIEW_BUTTERFLY, PV_VIEW_TOP};
	for (size_t k = 0; k < sizeof(centered) / sizeof(centered[0]); k++) {
		v = view_of(p, centered[k], center_whole);
		if (!v)
			continue;
		T_EQ_INT(v->base[0], whole);
		T_EQ_INT(v->center[0], 5000000);
		if (v->tree)
			T_EQ_INT(nostack_root(v->tree), -1);
		pv_view_free(v);
	}
	/* the flat view marks the center and keeps every row: of the whole */
	v = view_of(p, PV_VIEW_FLAT, center);
	if (v) {
		T_EQ_INT(v->base[0], whole);
		pv_view_free(v);
	}
	static const char *const include[] = {"include", "asm_exc_page_fault", NULL};
	v = view_of(p, PV_VIEW_TREE, include);
	if (v) {
		T_EQ_INT(v->whole[0], 5000000);
		T_EQ_INT(v->nostack[0], 0);
		T_EQ_INT(nostack_root(v->tree), -1);
		pv_view_free(v);
	}
	static const char *const drop[] = {"drop", "asm_exc_page_fault", NULL};
	v = view_of(p, PV_VIEW_TREE, drop);
	if (v) {
		T_EQ_INT(v->whole[0], whole - 5000000);
		T_EQ_INT(nostack_root(v->tree), nostack);
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/* ---------------------------------------------------------------- variants recorded here */

T_TEST(perf_tracepoints_and_side_band)
{
	/* perf record -e sched:sched_switch -e cpu-clock -g; perf script --show-task-events */
	struct pv_profile *p = t_load_as(t_data("perf/tracepoints.perf.txt"), "perf-script");
	if (!p)
		return;
	/* grep -c cpu-clock: 54 samples; grep -c sched_switch: 19 markers */
	T_EQ_INT(p->samples.len, 54);
	T_EQ_INT(p->metrics.len, 1);
	T_EQ_STR(pv_str(p, p->metrics.name[0]), "cpu-clock");
	T_EQ_INT(t_total(p, 0), 54 * 250000);
	T_EQ_INT(p->markers.len, 19);
	/* "sh 20829 [001]  3789.518517: sched:sched_switch: prev_comm=sh prev_pid=20829
	 * prev_prio=120 prev_state=D ==> next_comm=perf next_pid=20823 next_prio=120" */
	T_EQ_STR(pv_str(p, p->markers.name[0]), "sched:sched_switch");
	T_EQ_INT(p->markers.phase[0], PV_PHASE_INSTANT);
	T_EQ_STR(pv_str(p, p->markers.payload[0]),
		 "{\"prev_comm\":\"sh\",\"prev_pid\":20829,\"prev_prio\":120,\"prev_state\":\"D\","
		 "\"next_comm\":\"perf\",\"next_pid\":20823,\"next_prio\":120}");
	/* the first sample is at 3789.517743: 774 us before */
	T_EQ_INT(p->markers.start_ns[0], 774000);
	T_EQ_STR(pv_str(p, p->threads.name[p->markers.thread[0]]), "sh");
	/* its call chain is the cause: __schedule <- schedule <- schedule_timeout ... */
	pv_stack_ix cs = p->markers.cause_stack[0];
	T_TRUE(cs != PV_NONE);
	if (cs != PV_NONE)
		T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[cs]]]),
			 "__schedule");
	T_EQ_INT(p->markers.cause_time_ns[0], 774000);
	/* "ls 20833 [001] 3789.520911 ... prev_state=R+ ==> next_comm=migration/0 ..." */
	int plus = 0;
	for (uint32_t m = 0; m < p->markers.len; m++)
		plus += strstr(pv_str(p, p->markers.payload[m]), "\"prev_state\":\"R+\"") != NULL;
	T_TRUE(plus >= 1);
	/* grep -c PERF_RECORD_: 21 side-band lines, counted */
	uint64_t n = 0;
	T_TRUE(t_diag(p, "side-band records", &n) != NULL);
	T_EQ_U64(n, 21);
	/* "perf-exec 0 [000] 0.000000: PERF_RECORD_COMM" does not move the zero */
	T_TRUE(t_diag(p, "starts at 3789.517743 s", NULL) != NULL);
	T_EQ_INT(p->diags.len, 2);
	pv_profile_free(p);

	/* the same recording with -F +pid --ns: PID/TID and nanoseconds */
	p = t_load_as(t_data("perf/tracepoints-pid-ns.perf.txt"), "perf-script");
	if (p) {
		T_EQ_INT(p->samples.len, 54);
		T_EQ_INT(p->markers.len, 19);
		T_TRUE(t_diag(p, "starts at 3789.517743124 s", NULL) != NULL);
		/* "sh 20829/20829  3789.517990686:" is the second sample */
		T_EQ_INT(pv_sample_time(p, 1), 247562);
		T_EQ_INT(p->threads.pid[0], 20829);
		T_EQ_INT(p->threads.tid[0], 20829);
		T_EQ_STR(pv_str(p, p->threads.process_name[0]), "sh");
		pv_profile_free(p);
	}

	/*
	 * -F comm,tid,time,event,ip,sym,dso,trace -G: right-aligned comm, no call chains, the
	 * frame on the header line (after a tracepoint's payload too)
	 */
	p = t_load_as(t_data("perf/tracepoints-nocallchain.perf.txt"), "perf-script");
	if (p) {
		T_EQ_INT(p->samples.len, 54);
		T_EQ_INT(p->markers.len, 19);
		T_EQ_INT(p->diags.len, 1);
		for (uint32_t s = 0; s < p->samples.len; s++) {
			pv_stack_ix st = p->samples.stack[s];
			T_TRUE(st != PV_NONE && p->stacks.prefix[st] == PV_NONE);
		}
		/* "... next_pid=20823 next_prio=120 ffffffff821f8b58 __schedule
		 * ([kernel.kallsyms])" */
		T_EQ_STR(pv_str(p, p->markers.payload[0]),
			 "{\"prev_comm\":\"sh\",\"prev_pid\":20829,\"prev_prio\":120,\"prev_"
			 "state\":\"D\","
			 "\"next_comm\":\"perf\",\"next_pid\":20823,\"next_prio\":120}");
		pv_stack_ix cs2 = p->markers.cause_stack[0];
		T_TRUE(cs2 != PV_NONE);
		if (cs2 != PV_NONE) {
			pv_func_ix f = p->frames.func[p->stacks.frame[cs2]];
			T_EQ_STR(pv_str(p, p->funcs.name[f]), "__schedule");
			T_EQ_INT(p->modules.kind[pv_func_module(p, f)], PV_MODULE_KERNEL);
		}
		T_EQ_STR(pv_str(p, p->threads.name[0]), "sh");
		pv_profile_free(p);
	}
}

T_TEST(perf_inlined_frames_and_srclines)
{
	/* perf record --call-graph dwarf; perf script: "sym+0xOFF (inlined)" frames */
	struct pv_profile *p =
	    t_load_as(t_data("perf/python3-dwarf-inline.perf.txt.gz"), "perf-script");
	if (p) {
		T_EQ_INT(p->samples.len, 150);
		/*
		 *   2bb41f move_unreachable+0x36f (inlined)
		 *   2bb41f deduce_unreachable+0x36f (inlined)
		 *   2bb41f gc_collect_main+0x36f (/root/.pyenv/.../libpython3.11.so.1.0)
		 * nowhere here, but the rule on every inlined frame: the module of the first frame
		 * below it that is not inlined, depth counted from there
		 */
		uint32_t inlined = 0;
		for (uint32_t s = 0; s < p->samples.len; s++) {
			uint32_t depth = 0;
			pv_module_ix below = PV_NONE;
			pv_stack_ix path[512];
			uint32_t n = 0;
			for (pv_stack_ix st = p->samples.stack[s]; st != PV_NONE && n < 512;
			     st = p->stacks.prefix[st])
				path[n++] = st;
			while (n-- > 0) {
				pv_frame_ix fr = p->stacks.frame[path[n]];
				pv_module_ix m = pv_func_module(p, p->frames.func[fr]);
				if (pv_frame_inline_depth(p, fr) == 0) {
					below = m;
					depth = 0;
					continue;
				}
				inlined++;
				T_EQ_INT(pv_frame_inline_depth(p, fr), ++depth);
				T_EQ_INT(m, below);
			}
		}
		T_TRUE(inlined > 1000);
		pv_profile_free(p);
	}
	/* -F +srcline: "  file.c:12" after each frame, "  file.c:12 (inlined)" for inlined ones */
	p = t_load_as(t_data("perf/python3-dwarf-srcline.perf.txt"), "perf-script");
	if (p) {
		T_EQ_INT(p->samples.len, 11); /* grep -c cpu-clock */
		uint64_t n = 0;
		T_TRUE(t_diag(p, "srcline", &n) != NULL);
		/* of grep -c '^  ' (189), those without FILE:LINE: 161 match
		 * grep -cE '^  [^?: ][^:]*:[1-9][0-9]*( \(inlined\))?$' (6 "??:0", 4 ":0", 18
		 * "dso[addr]") */
		T_EQ_U64(n, 189 - 161);
		/* "_dl_get_file_id+0x70f" / "  dl-fileid.h:40 (inlined)" / "_dl_map_object_from_fd
		 * (ld-linux-x86-64.so.2)": the leaf of the first sample */
		pv_stack_ix st = p->samples.stack[0];
		pv_frame_ix fr = p->stacks.frame[st];
		pv_func_ix f = p->frames.func[fr];
		T_EQ_STR(pv_str(p, p->funcs.name[f]), "_dl_get_file_id");
		T_EQ_INT(pv_frame_inline_depth(p, fr), 1);
		T_EQ_INT(pv_frame_line(p, fr), 40);
		T_TRUE(pv_func_source(p, f) != PV_NONE);
		if (pv_func_source(p, f) != PV_NONE)
			T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]), "dl-fileid.h");
		T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, f)]), "ld-linux-x86-64.so.2");
		pv_frame_ix up = p->stacks.frame[p->stacks.prefix[st]];
		T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[up]]), "_dl_map_object_from_fd");
		T_EQ_INT(pv_frame_inline_depth(p, up), 0);
		T_EQ_INT(pv_frame_line(p, up), 968); /* "  dl-load.c:968" */
		T_EQ_INT(p->diags.len, 2);
		pv_profile_free(p);
	}
}

/*
 * srcline-by-hand.perf.txt: six samples of 1000 cycles, each frame followed by its srcline.
 * By hand: work at prog.c:10 (1000), :11 (2000), :12 (the caller of the inlined mix at util.h:5,
 * 1000 total); work's util.h:4 (code inlined from a header, perf without --inline: work in
 * util.h, as callgrind_annotate's "util.h:work"); main at prog.c:20 (4000 total) and :21 (2000);
 * "??:0" and "[kernel.kallsyms][addr]" keep no line (2 reported).
 */
T_TEST(perf_srcline_by_hand)
{
	struct pv_profile *p = t_load_as(t_data("perf/srcline-by-hand.perf.txt"), "perf-script");
	if (!p)
		return;
	uint64_t n = 0;
	T_TRUE(t_diag(p, "srcline lines without a file and line", &n) != NULL);
	T_EQ_U64(n, 2);
	struct pv_view *v = t_line_view(p, NULL);
	static const struct {
		const char *file;
		uint32_t line;
		int64_t total, self;
	} want[] = {
	    {"prog.c", 10, 1000, 1000}, {"prog.c", 11, 2000, 2000}, {"prog.c", 12, 1000, 0},
	    {"prog.c", 20, 4000, 0},	{"prog.c", 21, 2000, 0},    {"util.h", 4, 1000, 1000},
	    {"util.h", 5, 1000, 1000},
	};
	uint32_t checked = 0, costly = 0;
	for (pv_source_ix id = 0; v && id < p->sources.len; id++) {
		const char *path = pv_str(p, p->sources.path[id]);
		struct pv_source_costs *sc = NULL;
		if (pv_source_costs(v, id, 30, &sc))
			break;
		for (uint32_t ln = 1; ln <= 30; ln++) {
			costly += sc->has[ln];
			for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
				if (strcmp(want[k].file, path) != 0 || want[k].line != ln)
					continue;
				T_TRUE(sc->has[ln]);
				T_EQ_INT(sc->cost[(size_t)ln * 2], want[k].total);
				T_EQ_INT(sc->cost[(size_t)ln * 2 + 1], want[k].self);
				checked++;
			}
		}
		pv_source_costs_free(sc);
	}
	T_EQ_INT(checked, 7);
	T_EQ_INT(costly, 7);
	pv_view_free(v);
	pv_profile_free(p);
}

/*
 * The address column of srcline-by-hand.perf.txt (pv_source_addrs): the leaf frames' addresses
 * per line, read off the file: prog.c:10 at 1130 (one sample, 1000), prog.c:11 at 1134 (two,
 * 2000); util.h:4 at 1140 and the inlined mix's util.h:5 at 1150 (1000 each). prog.c:12 and main's
 * lines hold no leaf (no address), nor does the kernel leaf without a line. Centered on main's
 * line 21 only the samples through it count: util.h:5's (and the kernel's, without a line).
 */
T_TEST(perf_srcline_addresses)
{
	struct pv_profile *p = t_load_as(t_data("perf/srcline-by-hand.perf.txt"), "perf-script");
	if (!p)
		return;
	T_TRUE(p->frames.addr != NULL);
	static const struct {
		const char *file, *center;
		uint32_t line;
		uint64_t addr;
		int64_t self;
	} want[] = {
	    {"prog.c", NULL, 10, 0x1130, 1000},
	    {"prog.c", NULL, 11, 0x1134, 2000},
	    {"util.h", NULL, 4, 0x1140, 1000},
	    {"util.h", NULL, 5, 0x1150, 1000},
	    {"util.h", "line:prog.c:21", 5, 0x1150, 1000},
	};
	uint32_t checked = 0, lines[2] = {0, 0};
	for (int c = 0; c < 2; c++) {
		struct pv_view *v = t_line_view(p, c ? "line:prog.c:21" : NULL);
		for (pv_source_ix id = 0; v && id < p->sources.len; id++) {
			const char *path = pv_str(p, p->sources.path[id]);
			struct pv_source_addrs *sa = NULL;
			struct pv_error err;
			T_EQ_INT(pv_source_addrs(p, &v->q, id, 30, &sa, &err), 0);
			if (!sa)
				break;
			for (uint32_t ln = 1; ln <= 30; ln++) {
				lines[c] += sa->n[ln] != 0;
				for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
					if (strcmp(want[k].file, path) != 0 || want[k].line != ln ||
					    (want[k].center != NULL) != c)
						continue;
					T_EQ_INT(sa->n[ln], 1);
					T_EQ_U64(sa->lo[ln], want[k].addr);
					T_EQ_U64(sa->hi[ln], want[k].addr);
					T_EQ_U64(sa->hot[ln], want[k].addr);
					T_EQ_INT(sa->hot_self[ln], want[k].self);
					checked++;
				}
			}
			pv_source_addrs_free(sa);
		}
		pv_view_free(v);
	}
	T_EQ_INT(checked, 5);
	T_EQ_INT(lines[0], 4);
	T_EQ_INT(lines[1], 1);
	pv_profile_free(p);
}

/*
 * Default perf script output (no srcline): every sample keeps the address of its leaf line
 * (samples.addr) while frames stay one per function (gcc.perf.txt.gz: the first samples'
 * leaves are mas_data_end+0x1f at ffffffff822312df, finalize_ssa_uses+0x292 at 94e062, a
 * [unknown] of cc1 at 555592), and a snapshot keeps them.
 */
T_TEST(perf_script_sample_addresses)
{
	struct pv_profile *p = t_load_as(t_data("perf/gcc.perf.txt.gz"), "perf-script");
	if (!p)
		return;
	T_TRUE(p->samples.addr != NULL);
	T_TRUE(p->frames.addr == NULL); /* one frame per function: no address on frames */
	static const struct {
		const char *leaf;
		uint64_t addr;
	} want[] = {
	    {"mas_data_end", 0xffffffff822312dfull}, {"___pte_offset_map", 0xffffffff81618bf7ull},
	    {"charge_memcg", 0xffffffff816aedb5ull}, {"[cc1]", 0x555592},
	    {"get_data_from_adhoc_loc", 0x15978d6},
	};
	uint32_t with = 0, stacked = 0;
	for (uint32_t s = 0; s < p->samples.len; s++) {
		with += pv_sample_addr(p, s) != PV_ADDR_NONE;
		stacked += p->samples.stack[s] != PV_NONE;
	}
	/* every sample with a stack (190 of 192: 2 have none) has its leaf line's address */
	T_EQ_INT(stacked, 190);
	T_EQ_INT(with, stacked);
	uint32_t s0 = p->threads.sample_begin[0];
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		pv_stack_ix st = p->samples.stack[s0 + k];
		T_TRUE(st != PV_NONE);
		if (st == PV_NONE)
			continue;
		T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[st]]]),
			 want[k].leaf);
		T_EQ_U64(pv_sample_addr(p, s0 + k), want[k].addr);
	}
	/* the column survives a snapshot */
	void *buf = NULL;
	size_t len = 0;
	struct pv_error err;
	struct pv_profile *q = NULL;
	T_EQ_INT(pv_snapshot_write_memory(p, &buf, &len, &err), 0);
	if (buf)
		T_EQ_INT(pv_import_memory("a.pvs", buf, len, NULL, &q, &err), 0);
	free(buf);
	if (q) {
		T_EQ_INT(q->samples.len, p->samples.len);
		for (uint32_t s = 0; s < p->samples.len; s++)
			if (pv_sample_addr(q, s) != pv_sample_addr(p, s)) {
				T_EQ_U64(pv_sample_addr(q, s), pv_sample_addr(p, s));
				break;
			}
		pv_profile_free(q);
	}
	pv_profile_free(p);
}

/* ---------------------------------------------------------------- hand-made variants */

/*
 * variants.perf.txt (hand-made): a right-aligned comm with PID/TID, [cpu], --ns time and period;
 * an event with a modifier; inlined frames; a comm with spaces ending in a number; JIT frames;
 * [unknown]s; a C++ name with spaces and parentheses; a "(deleted)" module; a line perf never
 * writes; a frame outside a sample; a tracepoint whose payload is not key=value; a sample
 * without frames.
 */
T_TEST(perf_variants_by_hand)
{
	struct pv_profile *p = t_load_as(t_data("perf/variants.perf.txt"), "perf-script");
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format_version), "6.1.187");
	T_EQ_INT(p->samples.len, 3);
	T_EQ_INT(p->markers.len, 1);
	T_EQ_INT(p->metrics.len, 2);
	T_EQ_STR(pv_str(p, p->metrics.name[0]), "cycles:u");
	T_EQ_INT(p->metrics.unit[0], PV_UNIT_CYCLES);
	T_EQ_STR(pv_str(p, p->metrics.name[1]), "instructions");
	T_EQ_INT(p->metrics.unit[1], PV_UNIT_INSTRUCTIONS);
	T_EQ_INT(t_total(p, 0), 1000000);
	T_EQ_INT(t_total(p, 1), 1000);
	T_EQ_INT(p->threads.len, 2);
	T_EQ_STR(pv_str(p, p->threads.name[0]), "python3");
	T_EQ_STR(pv_str(p, p->threads.name[1]), "V8 WorkerThread 2");
	T_EQ_INT(p->threads.tid[1], 5170);
	T_EQ_STR(pv_str(p, p->threads.process_name[1]), "python3");
	/* thread 0: samples at 0 and 1 ms exactly; the first has the leaf-first chain */
	uint32_t s0 = p->threads.sample_begin[0];
	T_EQ_INT(p->threads.sample_end[0] - s0, 2);
	T_EQ_INT(pv_sample_time(p, s0), 0);
	T_EQ_INT(pv_sample_time(p, s0 + 1), 1000000);
	T_EQ_INT(p->samples.stack[s0 + 1], PV_NONE);
	T_EQ_INT(pv_sample_weight(p, 1, s0), 0);
	static const char *const chain[] = {
	    "native_write_msr", "move_unreachable", "deduce_unreachable", "gc_collect_main", "main",
	    "__libc_start_main"};
	static const uint16_t depth[] = {0, 2, 1, 0, 0, 0};
	static const char *const mods[] = {"[kernel.kallsyms]",	   "libpython3.11.so.1.0",
					   "libpython3.11.so.1.0", "libpython3.11.so.1.0",
					   "python3.11",	   "libc-2.19.so"};
	static const int kinds[] = {PV_MODULE_KERNEL,  PV_MODULE_LIBRARY, PV_MODULE_LIBRARY,
				    PV_MODULE_LIBRARY, PV_MODULE_BINARY,  PV_MODULE_LIBRARY};
	pv_stack_ix st = p->samples.stack[s0];
	for (int i = 0; i < 6; i++) {
		if (st == PV_NONE) {
			t_fail(__FILE__, __LINE__, "stack ends at frame %d", i);
			break;
		}
		pv_frame_ix fr = p->stacks.frame[st];
		pv_func_ix f = p->frames.func[fr];
		T_EQ_STR(pv_str(p, p->funcs.name[f]), chain[i]);
		T_EQ_INT(pv_frame_inline_depth(p, fr), depth[i]);
		T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, f)]), mods[i]);
		T_EQ_INT(p->modules.kind[pv_func_module(p, f)], kinds[i]);
		st = p->stacks.prefix[st];
	}
	T_EQ_INT(st, PV_NONE);
	/* thread 1 */
	uint32_t s1 = p->threads.sample_begin[1];
	T_EQ_INT(pv_sample_time(p, s1), 499877);
	T_EQ_INT(pv_sample_weight(p, 0, s1), 0);
	T_EQ_INT(pv_sample_weight(p, 1, s1), 1000);
	static const char *const chain1[] = {
	    "v8::internal::Heap::Scavenge(int, (anonymous namespace)::Kind) const",
	    "LazyCompile:~foo /app/x.js:3", "[perf-5162.map]", "start_thread", "[unknown]"};
	static const int kinds1[] = {PV_MODULE_LIBRARY, PV_MODULE_JIT, PV_MODULE_JIT,
				     PV_MODULE_LIBRARY, -1};
	st = p->samples.stack[s1];
	for (int i = 0; i < 5 && st != PV_NONE; i++) {
		pv_func_ix f = p->frames.func[p->stacks.frame[st]];
		T_EQ_STR(pv_str(p, p->funcs.name[f]), chain1[i]);
		if (kinds1[i] < 0)
			T_EQ_INT(pv_func_module(p, f), PV_NONE);
		else
			T_EQ_INT(p->modules.kind[pv_func_module(p, f)], kinds1[i]);
		if (i == 3)
			T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, f)]),
				 "libpthread-2.19.so (deleted)");
		st = p->stacks.prefix[st];
	}
	/* the tracepoint */
	T_EQ_STR(pv_str(p, p->markers.name[0]), "raw_syscalls:sys_enter");
	T_EQ_STR(pv_str(p, p->markers.payload[0]), "{\"text\":\"NR 0 (3, 7ffc, 400, 0, 0, 0)\"}");
	T_EQ_INT(p->markers.start_ns[0], 377);
	T_EQ_INT(p->markers.cause_stack[0], PV_NONE);
	/* what was skipped */
	uint64_t n = 0;
	T_TRUE(t_diag(p, "neither sample headers nor frames (first at line 20)", &n) != NULL);
	T_EQ_U64(n, 1);
	T_TRUE(t_diag(p, "frame lines outside a sample (first at line 22)", &n) != NULL);
	T_EQ_U64(n, 1);
	T_TRUE(t_diag(p, "starts at 4284.786018123 s", NULL) != NULL);
	T_EQ_INT(p->diags.len, 3);
	pv_profile_free(p);
}

/* simpleperf's report_sample.py: "comm\tTID [CPU] SECS.USECS:\t\tPERIOD EVENT:" */
T_TEST(perf_simpleperf_layout)
{
	static const char text[] = "Gecko\t25122 [007] 115539.997294:\t\t1000000 task-clock:u:\n"
				   "        b3cea6c4\tLock::unlock() (/system/lib/libc.so)\n"
				   "        b3cea535\tshould_trace() (/system/lib/libc.so)\n"
				   "\n"
				   "Gecko\t25122 [007] 115540.8374:\t\t1000000 task-clock:u:\n"
				   "        b3cea535\tshould_trace() (/system/lib/libc.so)\n"
				   "\n";
	struct pv_error err;
	struct pv_profile *p = load_mem(text, sizeof(text) - 1, NULL, &err);
	if (!p) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return;
	}
	T_EQ_INT(p->samples.len, 2);
	/* 115540.008374 - 115539.997294 */
	T_EQ_INT(pv_sample_time(p, 1), 11080000);
	pv_stack_ix st = p->samples.stack[0];
	T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[st]]]), "Lock::unlock()");
	T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[p->stacks.prefix[st]]]]),
		 "should_trace()");
	T_EQ_INT(p->threads.len, 1);
	T_EQ_INT(p->threads.pid[0], PV_ID_NONE);
	pv_profile_free(p);
}

/* ---------------------------------------------------------------- probing */

T_TEST(perf_probe)
{
	/* perf files are recognised without --format; collapsed files stay collapsed */
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_file(t_data("collapsed/worked-example.txt"), NULL, &p, &err), 0);
	if (p) {
		T_EQ_STR(pv_str(p, p->meta.format), "collapsed");
		pv_profile_free(p);
	}
	T_EQ_INT(pv_import_file(t_data("collapsed/perf-iperf-stacks-pidtid-01-collapsed-tid.txt"),
				NULL, &p, &err),
		 0);
	if (p) {
		T_EQ_STR(pv_str(p, p->meta.format), "collapsed");
		pv_profile_free(p);
	}
	/* one header and one frame are enough */
	static const char one[] = "a 1 cpu-clock:\n\t1 f (m)\n";
	p = load_mem(one, sizeof(one) - 1, NULL, &err);
	T_TRUE(p != NULL);
	pv_profile_free(p);
	/* a long "# ========" header block (bpf_prog_info lines, ...) does not hide the samples */
	struct sbuf longhdr = SBUF_INIT;
	for (int i = 0; i < 300; i++)
		sbuf_addf(&longhdr, "# bpf_prog_info %d: bpf_prog_6deef7\n", i);
	sbuf_puts(&longhdr, "a 1 cpu-clock:\n\t1 f (m)\n");
	T_TRUE(!longhdr.oom);
	p = load_mem(longhdr.buf, longhdr.len, NULL, &err);
	T_TRUE(p != NULL);
	pv_profile_free(p);
	sbuf_release(&longhdr);
	/* prose with numbers is not perf script */
	static const char prose[] = "we ran 3 times: it was fine\nthen 4 more: also fine\n";
	p = load_mem(prose, sizeof(prose) - 1, NULL, &err);
	T_TRUE(p == NULL);
	T_CONTAINS(err.msg, "not a profile format");
}

T_TEST(perf_probe_tracepoints_only)
{
	/* perf record -e sched:sched_switch (no -g) -- sh -c 'ls >/dev/null; sleep 0.01'; perf
	 * script: headers with payloads, no frame anywhere */
	struct pv_profile *p = t_load_as(t_data("perf/tracepoints-only.perf.txt"), "perf-script");
	if (!p)
		return;
	/* grep -c sched_switch: 9 */
	T_EQ_INT(p->markers.len, 9);
	T_EQ_INT(p->samples.len, 0);
	T_EQ_STR(pv_str(p, p->markers.name[0]), "sched:sched_switch");
	T_EQ_STR(pv_str(p, p->markers.payload[0]),
		 "{\"prev_comm\":\"sh\",\"prev_pid\":21904,\"prev_prio\":120,\"prev_state\":\"R\","
		 "\"next_comm\":\"rcu_preempt\",\"next_pid\":15,\"next_prio\":120}");
	/* the last at 72438.166020, the first at 72438.053565: 112455 us later */
	T_EQ_INT(p->markers.start_ns[8] - p->markers.start_ns[0], 112455000);
	pv_profile_free(p);
	/* a header whose event is not a tracepoint, without frames, is not enough */
	static const char noframe[] = "a 1 1.000000: cycles: \nb 2 2.000000: cycles: \n";
	struct pv_error err;
	p = load_mem(noframe, sizeof(noframe) - 1, NULL, &err);
	T_TRUE(p == NULL);
	pv_profile_free(p);
}

/* A file whose first line is text of n bytes (then "\n") followed by rest. */
static struct pv_profile *long_first_line(const char *head, char fill, size_t n, const char *tail,
					  const char *rest, struct pv_error *err)
{
	struct sbuf b = SBUF_INIT;
	sbuf_puts(&b, head);
	for (size_t i = strlen(head); i < n; i++)
		sbuf_put(&b, &fill, 1);
	sbuf_puts(&b, tail);
	sbuf_puts(&b, rest);
	T_TRUE(!b.oom);
	struct pv_profile *p = load_mem(b.buf, b.len, NULL, err);
	sbuf_release(&b);
	return p;
}

T_TEST(perf_probe_long_first_line)
{
	/* a first line over 1 MiB (a tracepoint's payload, a comment) does not hide the samples:
	 * the probe reads a line from its start */
	static const char rest[] = "b 2 2.000000: 1000 cycles:\n\t401000 f (/bin/b)\n\n";
	struct pv_error err;
	struct pv_profile *p = long_first_line("a 1 1.000000: sched:sched_switch: x=", 'y',
					       (size_t)3 << 19, "\n", rest, &err);
	T_TRUE(p != NULL);
	if (p) {
		T_EQ_STR(pv_str(p, p->meta.format), "perf-script");
		T_EQ_INT(p->samples.len, 1);
		T_EQ_INT(p->markers.len, 1);
		pv_profile_free(p);
	}
	p = long_first_line("# ", '=', (size_t)3 << 19, "\n", rest, &err);
	T_TRUE(p != NULL);
	if (p) {
		T_EQ_INT(p->samples.len, 1);
		pv_profile_free(p);
	}
	/* a sample's frame on its header line, with a long symbol */
	p = long_first_line("a 1 1.000000: 1000 cycles: 401000 f", 'g', (size_t)3 << 19,
			    " (/bin/a)\n", rest, &err);
	T_TRUE(p != NULL);
	if (p) {
		T_EQ_INT(p->samples.len, 2);
		pv_profile_free(p);
	}
	/* a long line of other text is still other text */
	p = long_first_line("a;b;c ", 'x', (size_t)3 << 19, " 1\n", rest, &err);
	if (p)
		T_EQ_STR(pv_str(p, p->meta.format), "collapsed");
	pv_profile_free(p);
}

/* ---------------------------------------------------------------- malformed input */

static void expect_error(const char *text, size_t len, const char *what, uint64_t line)
{
	struct pv_error err;
	struct pv_profile *p = load_mem(text, len, "perf-script", &err);
	if (p) {
		t_fail(__FILE__, __LINE__, "%s: imported, expected an error", what);
		pv_profile_free(p);
		return;
	}
	T_EQ_INT(err.code, PV_EPARSE);
	T_CONTAINS(err.msg, "mem.txt: line ");
	T_TRUE(strchr(err.msg, '\n') == NULL);
	T_EQ_INT(err.has_pos, 1);
	if (err.line != line)
		t_fail(__FILE__, __LINE__, "%s: error at line %llu, expected %llu: %s", what,
		       (unsigned long long)err.line, (unsigned long long)line, err.msg);
}

T_TEST(perf_malformed)
{
	/* no sample at all */
	expect_error("", 0, "empty", 1);
	static const char comments[] = "# ========\n# perf version : 6.1\n# ========\n\n";
	expect_error(comments, sizeof(comments) - 1, "comments only", 1);
	/* comments only, the last cut inside its line (issue 25's fuzzing: memchr of NULL, the
	 * seed fuzz/corpus/perf-script/comments-only-cut.txt) */
	static const char cut[] = "# ========\n# perf version : 6.1";
	expect_error(cut, sizeof(cut) - 1, "comments only, cut", 1);
	static const char junk[] = "# header\n\nhello world\n\tnot a frame\n";
	expect_error(junk, sizeof(junk) - 1, "junk", 3);
	/* wrong types: letters where the task id and the time go */
	static const char types[] = "# x\nperf abc/def [000] 12.5: cycles:\n\tffff f (k)\n";
	expect_error(types, sizeof(types) - 1, "wrong types", 2);
	static const char types2[] = "perf 12 [0x1] twelve: cycles:\n\tffff f (k)\n";
	expect_error(types2, sizeof(types2) - 1, "wrong types 2", 1);
	/* huge numbers: a time past int64 ns, a period past int64; the only sample */
	static const char huge_time[] =
	    "\nperf 12 [000] 99999999999.000000: 1 cycles:\n\tffff f (k)\n";
	expect_error(huge_time, sizeof(huge_time) - 1, "huge time", 2);
	static const char huge_period[] =
	    "perf 12 [000] 1.000000: 99999999999999999999999 cycles:\n\tffff f (k)\n";
	expect_error(huge_period, sizeof(huge_period) - 1, "huge period", 1);
	/* next to a good sample, a bad one is skipped and counted */
	static const char mixed[] = "perf 12 [000] 1.000000: 5 cycles:\n\tffff f (k)\n\n"
				    "perf 12 [000] 99999999999.000000: 1 cycles:\n\tffff f (k)\n\n";
	struct pv_error err;
	struct pv_profile *p = load_mem(mixed, sizeof(mixed) - 1, NULL, &err);
	T_TRUE(p != NULL);
	if (p) {
		T_EQ_INT(p->samples.len, 1);
		uint64_t n = 0;
		T_TRUE(t_diag(p, "number out of range in the header (first at line 4)", &n) !=
		       NULL);
		T_EQ_U64(n, 1);
		pv_profile_free(p);
	}
	/* -F +addr: a data address after the event is not a frame (and is reported) */
	static const char addr[] = "perf 1/1 [000] 1.000000: 1 cycles:      7ffd5f0c2a18\n"
				   "\t400000 main (/bin/x)\n\n";
	p = load_mem(addr, sizeof(addr) - 1, NULL, &err);
	T_TRUE(p != NULL);
	if (p) {
		T_EQ_INT(p->samples.len, 1);
		pv_stack_ix st = p->samples.stack[0];
		T_TRUE(st != PV_NONE && p->stacks.prefix[st] == PV_NONE);
		uint64_t n = 0;
		T_TRUE(t_diag(p, "header text after the event", &n) != NULL);
		T_EQ_U64(n, 1);
		pv_profile_free(p);
	}
	/* huge pid, hex address past 64 bits: still a sample */
	static const char big[] = "perf 123456789012345678/123456789012345678 1.5: cycles:\n"
				  "\tffffffffffffffffffffffffff f (m)\n";
	p = load_mem(big, sizeof(big) - 1, NULL, &err);
	T_TRUE(p != NULL);
	if (p) {
		T_EQ_INT(p->threads.tid[0], 123456789012345678LL);
		pv_profile_free(p);
	}
}

/* Every cut of a real file imports or fails with one positioned line; nothing crashes. */
T_TEST(perf_truncated)
{
	size_t len;
	char *text = t_read_file(t_data("perf/tracepoints.perf.txt"), &len);
	if (!text) {
		t_fail(__FILE__, __LINE__, "cannot read tracepoints.perf.txt");
		return;
	}
	size_t step = len / 400 + 1;
	int ok = 0, failed = 0;
	for (size_t cut = 0; cut < len; cut += step) {
		struct pv_error err;
		struct pv_profile *p = load_mem(text, cut, "perf-script", &err);
		if (p) {
			ok++;
			pv_profile_free(p);
		} else {
			failed++;
			T_EQ_INT(err.code, PV_EPARSE);
			T_EQ_INT(err.has_pos, 1);
			T_TRUE(strchr(err.msg, '\n') == NULL);
		}
	}
	/* only the cuts before the first complete header line fail */
	T_TRUE(ok > 390);
	T_TRUE(failed >= 1);
	free(text);
}

/* A stack of 100,000 frames (and one of 100,000 inlined frames) imports whole. */
T_TEST(perf_deep_stack)
{
	size_t n = 100000, cap = 64 + n * 40, len = 0;
	char *buf = malloc(cap);
	len += (size_t)snprintf(buf, cap, "deep 1/1 [000] 1.000000: 7 cycles:\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "\t%zx f%zu+0x1 (/bin/deep)\n", i,
					i % 1000);
	len += (size_t)snprintf(buf + len, cap - len, "\n");
	struct pv_error err;
	struct pv_profile *p = load_mem(buf, len, NULL, &err);
	T_TRUE(p != NULL);
	if (p) {
		T_EQ_INT(p->samples.len, 1);
		T_EQ_INT(p->stacks.len, n);
		T_EQ_INT(p->funcs.len, 1000);
		uint32_t d = 0;
		for (pv_stack_ix st = p->samples.stack[0]; st != PV_NONE; st = p->stacks.prefix[st])
			d++;
		T_EQ_INT(d, n);
		/* the leaf is the first frame line */
		T_EQ_STR(
		    pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[p->samples.stack[0]]]]),
		    "f0");
		pv_profile_free(p);
	}
	/* inlined: depths count up to 65535 and stay there */
	len = (size_t)snprintf(buf, cap, "deep 1/1 [000] 1.000000: 7 cycles:\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "\t%zx g%zu (inlined)\n", i, i % 7);
	len += (size_t)snprintf(buf + len, cap - len, "\t1 root (/bin/deep)\n\n");
	p = load_mem(buf, len, NULL, &err);
	T_TRUE(p != NULL);
	if (p) {
		pv_frame_ix leaf = p->stacks.frame[p->samples.stack[0]];
		T_EQ_INT(pv_frame_inline_depth(p, leaf), 65535);
		pv_profile_free(p);
	}
	free(buf);
}

/* Every allocation failing in turn: "out of memory" and nothing leaked (ASan), then a profile. */
T_TEST(perf_allocation_failures)
{
	size_t len;
	char *text = t_read_file(t_data("perf/variants.perf.txt"), &len);
	if (!text) {
		t_fail(__FILE__, __LINE__, "cannot read variants.perf.txt");
		return;
	}
	int failed = 0;
	struct pv_profile *p = t_import_oom("oom.txt", text, len, "perf-script", 2000, &failed);
	T_TRUE(p != NULL);
	if (p)
		T_EQ_INT(p->samples.len, 3);
	pv_profile_free(p);
	T_TRUE(failed > 20);
	free(text);
}
