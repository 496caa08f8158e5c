/*
 * collapsed.c - folded stacks ("a;b;c N"), as stackcollapse-perf.pl writes them and FlameGraph,
 * inferno and speedscope read them (doc/export.md).
 *
 * One line per distinct (thread frame, stack text), sorted by that text as stackcollapse-perf.pl
 * sorts its output, with the summed weight of one metric. Frames are function names, with
 * stackcollapse-perf.pl --all's suffixes unless plain: "_[k]" for a kernel module's function,
 * "_[j]" for JIT code, "_[i]" for an inlined frame (the importer reads them back). A thread
 * shows as a first frame: "comm", "comm-PID" or "comm-PID/TID" (stackcollapse-perf.pl's default,
 * --pid and --tid), or not at all.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sbuf.h"
#include "export/internal.h"
#include "import/collapsed.h"

static const char *const thread_names[] = {"auto", "none", "comm", "pid", "tid"};

const char *pv_collapsed_threads_name(enum pv_collapsed_threads t)
{
	return (unsigned)t < 5 ? thread_names[t] : "?";
}

int pv_collapsed_threads_parse(const char *s, enum pv_collapsed_threads *out)
{
	for (int i = 0; i < 5; i++)
		if (strcmp(s, thread_names[i]) == 0) {
			*out = (enum pv_collapsed_threads)i;
			return 0;
		}
	return PV_EINVAL;
}

struct line {
	uint32_t thread, stack; /* stack PV_NONE: a sample without a stack */
	int64_t cost;
	size_t at, len; /* its text in the pool */
};

static int cmp_line(const void *a, const void *b, void *pool)
{
	const struct line *x = a, *y = b;
	const char *text = pool;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(text + x->at, text + y->at, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* A name with ';' and line breaks (which would break the line) made ':' and ' '. */
static int put_name(struct sbuf *b, const char *s, uint64_t *changed)
{
	size_t from = b->len;
	if (sbuf_put(b, s, strlen(s)))
		return PV_ENOMEM;
	bool ch = false;
	for (size_t i = from; i < b->len; i++) {
		char c = b->buf[i];
		if (c == ';' || c == '\n' || c == '\r') {
			b->buf[i] = c == ';' ? ':' : ' ';
			ch = true;
		}
	}
	*changed += ch;
	return 0;
}

/*
 * Whether the name at b[from..) ends as the importer's annotations do: " [x]" (read back as
 * the module x) or "_[k]", "_[j]", "_[i]", "_[w]" (a kind).
 */
static bool annotation_like(const struct sbuf *b, size_t from)
{
	size_t n = b->len - from;
	const char *s = b->buf + from;
	if (n < 4 || s[n - 1] != ']')
		return false;
	if (s[n - 4] == '_' && s[n - 3] == '[' && strchr("kjiw", s[n - 2]))
		return true;
	int depth = 1;
	for (size_t i = n - 1; i-- > 1;) {
		if (s[i] == ' ')
			return false;
		depth += s[i] == ']';
		if (s[i] == '[' && --depth == 0)
			return s[i - 1] == ' ' && i + 2 < n;
	}
	return false;
}

/*
 * stackcollapse-perf.pl's tidying of the name just written at b[from..): from the first '('
 * on removed (unless it opens "(anonymous namespace)" or the name has ".(...)."), quotes
 * removed, and in a thread named java a leading 'L' of a name with a '/'.
 */
static void tidy(struct sbuf *b, size_t from, bool java, uint64_t *changed)
{
	char *s = b->buf + from;
	size_t n = b->len - from, old = n;
	const char *dot = memmem(s, n, ".(", 2);
	bool keep = dot && memmem(dot + 2, n - (size_t)(dot + 2 - s), ").", 2);
	for (size_t i = 0; !keep && i < n; i++)
		if (s[i] == '(' && strncmp(s + i, "(anonymous namespace)", 21) != 0) {
			n = i;
			break;
		}
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '"' && s[i] != '\'')
			s[w++] = s[i];
	n = w;
	if (java && n > 1 && s[0] == 'L' && memchr(s, '/', n)) {
		memmove(s, s + 1, n - 1);
		n--;
	}
	*changed += n != old;
	sbuf_setlen(b, from + n);
}

static int thread_frame(struct sbuf *b, const struct pv_profile *p, pv_thread_ix t,
			enum pv_collapsed_threads mode, uint64_t *changed)
{
	const char *name = pv_str(p, p->threads.name[t]);
	int64_t pid = p->threads.pid[t], tid = p->threads.tid[t];
	if (put_name(b, *name ? name : "thread", changed))
		return PV_ENOMEM;
	char num[48] = "";
	if (mode == PV_COLLAPSED_PID || mode == PV_COLLAPSED_TID)
		snprintf(num, sizeof(num), "-%" PRId64, pid == PV_ID_NONE ? (int64_t)0 : pid);
	if (mode == PV_COLLAPSED_TID)
		snprintf(num + strlen(num), sizeof(num) - strlen(num), "/%" PRId64,
			 tid == PV_ID_NONE ? (int64_t)t : tid);
	return sbuf_put(b, num, strlen(num));
}

/* Functions by name, then module (ctx: the profile). */
static int cmp_name_module(const void *a, const void *b, void *ctx)
{
	const struct pv_profile *p = ctx;
	pv_func_ix x = *(const pv_func_ix *)a, y = *(const pv_func_ix *)b;
	uint32_t nx = p->funcs.name[x], ny = p->funcs.name[y];
	if (nx != ny)
		return nx < ny ? -1 : 1;
	pv_module_ix mx = pv_func_module(p, x), my = pv_func_module(p, y);
	return (mx > my) - (mx < my);
}

/* Whether the importer reads module m back from "name [m]": a name without space or ';'. */
static bool annotatable(const struct pv_profile *p, pv_module_ix m)
{
	const char *name = m == PV_NONE ? "" : pv_str(p, p->modules.name[m]);
	return *name && !strpbrk(name, " \t\n\r;");
}

/*
 * Which functions are written "name [module]": those whose name functions of several modules
 * share (libc's and ld.so's __GI__dl_catch_exception), so that they stay apart; the importer
 * reads the module back. One flag per function, a new array to pv_free; NULL when out of memory.
 */
static uint8_t *module_annotations(const struct pv_profile *p)
{
	uint32_t n;
	pv_func_ix *f = pv__export_used_funcs(p, &n);
	uint8_t *annot = f ? pv_calloc((size_t)p->funcs.len + 1, 1) : NULL;
	if (!annot) {
		pv_free(f);
		return NULL;
	}
	if (n > 1)
		qsort_r(f, n, sizeof(*f), cmp_name_module, (void *)p);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		bool several = false;
		for (; j < n && p->funcs.name[f[j]] == p->funcs.name[f[i]]; j++)
			several |= pv_func_module(p, f[j]) != pv_func_module(p, f[i]);
		for (uint32_t k = i; several && k < j; k++)
			annot[f[k]] = annotatable(p, pv_func_module(p, f[k]));
		i = j;
	}
	pv_free(f);
	return annot;
}

/* What a frame of function f reads back as, but for its text: its module if written, its kind. */
struct written {
	const struct pv_profile *p;
	const uint8_t *annot;
	bool plain;
};

static int kind_class(const struct written *w, pv_func_ix f)
{
	pv_module_ix m = pv_func_module(w->p, f);
	uint8_t k = m == PV_NONE || w->plain ? 0 : w->p->modules.kind[m];
	return k == PV_MODULE_KERNEL ? 1 : k == PV_MODULE_JIT ? 2 : 0;
}

static int cmp_written(const void *a, const void *b, void *ctx)
{
	const struct written *w = ctx;
	const struct pv_profile *p = w->p;
	pv_func_ix x = *(const pv_func_ix *)a, y = *(const pv_func_ix *)b;
	uint32_t nx = p->funcs.name[x], ny = p->funcs.name[y];
	if (nx != ny)
		return nx < ny ? -1 : 1;
	uint32_t mx = w->annot[x] ? p->modules.name[pv_func_module(p, x)] : 0;
	uint32_t my = w->annot[y] ? p->modules.name[pv_func_module(p, y)] : 0;
	if (mx != my)
		return mx < my ? -1 : 1;
	return kind_class(w, x) - kind_class(w, y);
}

/* Whether s[0..n) ends in white space and a number, which flamegraph.pl reads as a count. */
static bool ends_in_number(const char *s, size_t n)
{
	size_t e = n;
	while (e && s[e - 1] >= '0' && s[e - 1] <= '9')
		e--;
	if (e && e < n && s[e - 1] == '.') { /* "1.5": flamegraph.pl's counts may have a fraction */
		size_t d = e - 1;
		while (d && s[d - 1] >= '0' && s[d - 1] <= '9')
			d--;
		if (d < e - 1)
			e = d;
	}
	return e < n && e && (s[e - 1] == ' ' || s[e - 1] == '\t');
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/* The state of one collapsed export: the lines, their texts, the counts of lossy steps. */
struct folding {
	const struct pv_profile *p;
	const struct pv_export_opts *o;
	pv_metric_ix m;
	enum pv_collapsed_threads mode;
	struct line *lines;
	uint32_t n, cap;
	struct sbuf pool;
	uint8_t *annot; /* per function: its frames name their module */
	uint64_t nostack, negative, renamed, tidied, annotated, counted, trimmed;
};

/* One entry per (thread, stack) with a cost; a sample without a stack: its thread alone. */
static int gather(struct folding *fo)
{
	const struct pv_profile *p = fo->p;
	struct u64map map = {0};
	int rc = 0;
	for (pv_thread_ix t = 0; t < p->threads.len && !rc; t++) {
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
			pv_stack_ix st = p->samples.stack[s];
			int64_t w = pv_sample_weight(p, fo->m, s);
			uint32_t tk = fo->mode == PV_COLLAPSED_NONE && st != PV_NONE ? 0 : t;
			fo->nostack += st == PV_NONE && w > 0;
			uint64_t key = (uint64_t)tk << 32 | st;
			uint32_t i = u64map_get(&map, key);
			if (i == UINT32_MAX) {
				if (fo->n == fo->cap) {
					fo->cap = fo->cap ? fo->cap * 2 : 256;
					struct line *nl =
					    pv_realloc(fo->lines, fo->cap * sizeof(*nl));
					if (!nl) {
						rc = PV_ENOMEM;
						break;
					}
					fo->lines = nl;
				}
				i = fo->n++;
				fo->lines[i] = (struct line){.thread = tk, .stack = st};
				if (u64map_put(&map, key, i)) {
					rc = PV_ENOMEM;
					break;
				}
			}
			fo->lines[i].cost += w;
		}
	}
	u64map_release(&map);
	return rc;
}

/* One frame's name in the pool: tidied, its module when annotated, its kind's suffix. */
static int frame_text(struct folding *fo, const struct line *ln, pv_frame_ix f)
{
	const struct pv_profile *p = fo->p;
	struct sbuf *pool = &fo->pool;
	pv_func_ix fn = p->frames.func[f];
	pv_module_ix mod = pv_func_module(p, fn);
	const char *name = pv_str(p, p->funcs.name[fn]);
	size_t from = pool->len;
	int rc = put_name(pool, *name ? name : "[unknown]", &fo->renamed);
	if (fo->o->tidy && !rc)
		tidy(pool, from, strcmp(pv_str(p, p->threads.name[ln->thread]), "java") == 0,
		     &fo->tidied);
	fo->annotated += !rc && annotation_like(pool, from);
	if (fo->annot[fn] && !rc) {
		rc |= sbuf_put(pool, " [", 2);
		rc |= sbuf_put(pool, pv_str(p, p->modules.name[mod]),
			       strlen(pv_str(p, p->modules.name[mod])));
		rc |= sbuf_put(pool, "]", 1);
	}
	uint8_t kind = mod == PV_NONE ? 0 : p->modules.kind[mod];
	if (fo->o->plain)
		return rc;
	if (pv_frame_inline_depth(p, f))
		rc |= sbuf_put(pool, "_[i]", 4);
	else if (kind == PV_MODULE_KERNEL)
		rc |= sbuf_put(pool, "_[k]", 4);
	else if (kind == PV_MODULE_JIT)
		rc |= sbuf_put(pool, "_[j]", 4);
	return rc;
}

/* The text of each line in the pool. */
static int line_texts(struct folding *fo)
{
	const struct pv_profile *p = fo->p;
	uint32_t maxd = 0;
	uint32_t *depth = pv__stack_depths(p, &maxd);
	pv_frame_ix *fr = depth ? pv_malloc(((size_t)maxd + 1) * sizeof(*fr)) : NULL;
	fo->annot = fr ? module_annotations(p) : NULL;
	int rc = fo->annot ? 0 : PV_ENOMEM;
	for (uint32_t i = 0; i < fo->n && !rc; i++) {
		struct line *ln = &fo->lines[i];
		ln->at = fo->pool.len;
		if (ln->stack == PV_NONE) {
			/* stackcollapse-perf.pl's "comm N": the thread frame alone */
			rc |= thread_frame(&fo->pool, p, ln->thread,
					   fo->mode == PV_COLLAPSED_NONE ? PV_COLLAPSED_COMM
									 : fo->mode,
					   &fo->renamed);
			ln->len = fo->pool.len - ln->at;
			continue;
		}
		if (fo->mode != PV_COLLAPSED_NONE) {
			rc |= thread_frame(&fo->pool, p, ln->thread, fo->mode, &fo->renamed);
			rc |= sbuf_put(&fo->pool, ";", 1);
		}
		uint32_t k = pv__stack_frames(p, ln->stack, fr, maxd + 1);
		for (uint32_t j = 0; j < k && !rc; j++) {
			if (j)
				rc |= sbuf_put(&fo->pool, ";", 1);
			rc |= frame_text(fo, ln, fr[j]);
		}
		ln->len = fo->pool.len - ln->at;
	}
	pv_free(fr);
	pv_free(depth);
	return rc;
}

/* The lines sorted, equal texts summed, those of a positive cost written. */
static void write_lines(struct folding *fo, FILE *out)
{
	struct line *lines = fo->lines;
	uint32_t n = fo->n;
	const char *buf = fo->pool.buf;
	bool header = false;
	if (n)
		qsort_r(lines, n, sizeof(*lines), cmp_line, fo->pool.buf);
	for (uint32_t i = 0; i < n;) {
		int64_t cost = 0;
		uint32_t j = i;
		while (j < n && cmp_line(&lines[i], &lines[j], fo->pool.buf) == 0)
			cost += lines[j++].cost;
		const char *s = buf + lines[i].at;
		size_t len = lines[i].len;
		i = j;
		if (cost < 0)
			fo->negative++;
		if (cost <= 0)
			continue;
		const char *first_end = memchr(s, ';', len);
		const char *ce;
		int64_t pid, tid;
		/* the reader takes a first line's "comm-PID" first frame for a thread */
		if (!header && (fo->mode == PV_COLLAPSED_NONE || fo->mode == PV_COLLAPSED_COMM) &&
		    collapsed_task(s, first_end ? first_end : s + len, &ce, &pid, &tid))
			fputs(PV_COLLAPSED_NO_THREADS "\n", out);
		header = true;
		fo->counted += ends_in_number(s, len);
		fo->trimmed += is_space(s[0]) || (len > 1 && s[0] == '#' && s[1] == ' ') ||
			       is_space(s[len - 1]);
		fprintf(out, "%.*s %" PRId64 "\n", (int)len, s, cost);
	}
}

static void report_lossy(const struct folding *fo, uint64_t merged, struct pv_lossy *lossy)
{
	if (fo->mode == PV_COLLAPSED_NONE || fo->mode == PV_COLLAPSED_COMM)
		pv_lossy_add(lossy, fo->nostack,
			     "samples without a stack (written as their thread's name alone, read "
			     "back as a function)");
	pv_lossy_add(lossy, fo->negative,
		     "lines of negative weight (folded counts are not negative)");
	pv_lossy_add(lossy, fo->annotated,
		     "names ending in ' [x]' or '_[k]', '_[j]', '_[i]', '_[w]' (read back as a "
		     "module or a kind)");
	pv_lossy_add(lossy, fo->tidied, "names tidied (arguments, quotes, Java's L prefix)");
	pv_lossy_add(lossy, fo->renamed,
		     "names with ';' or a line break (written as ':' or a space)");
	pv_lossy_add(lossy, merged, PV_LOSSY_MERGED, "folded frames are names and modules");
	pv_lossy_add(lossy, fo->counted,
		     "lines whose last name ends in a number after a space (flamegraph.pl and "
		     "inferno read a second count)");
	pv_lossy_add(lossy, fo->trimmed,
		     "lines starting with white space or '# ' or whose last name ends in white "
		     "space (inferno trims or skips them)");
}

int pv__export_collapsed(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
			 struct pv_lossy *lossy, struct pv_error *err)
{
	struct folding fo = {.p = p, .o = o, .pool = SBUF_INIT};
	fo.m = pv__export_metric(p, o);
	fo.mode = o->collapsed_threads;
	if (fo.mode == PV_COLLAPSED_AUTO)
		fo.mode = p->threads.len > 1 ? PV_COLLAPSED_TID : PV_COLLAPSED_NONE;
	pv__export_lossy_common(p, fo.m, false, false, false, "collapsed", lossy);
	if (p->metrics.unit[fo.m] != PV_UNIT_COUNT)
		pv_lossy_add(lossy, 1, "the unit of '%s' (%s): folded counts have none",
			     pv_str(p, p->metrics.name[fo.m]), pv_unit_name(p->metrics.unit[fo.m]));
	int rc = gather(&fo);
	if (!rc)
		rc = line_texts(&fo);
	uint64_t merged = 0;
	if (!rc) {
		write_lines(&fo, out);
		struct written w = {p, fo.annot, o->plain};
		merged = pv__export_merged(p, cmp_written, &w);
		if (merged == UINT64_MAX)
			rc = PV_ENOMEM;
	}
	pv_free(fo.annot);
	pv_free(fo.lines);
	sbuf_release(&fo.pool);
	if (rc)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	report_lossy(&fo, merged, lossy);
	return pv__export_check(out, err);
}
