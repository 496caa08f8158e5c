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
	uint32_t thread, stack;
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

/* Whether the name at b[from..) ends in " [x]", which reads back as a module's name. */
static bool module_like(const struct sbuf *b, size_t from)
{
	size_t n = b->len - from;
	const char *s = b->buf + from;
	if (n < 4 || s[n - 1] != ']')
		return false;
	const char *open = memrchr(s, '[', n);
	return open && open > s && open[-1] == ' ';
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

int pv__export_collapsed(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
			 struct pv_lossy *lossy, struct pv_error *err)
{
	pv_metric_ix m = pv__export_metric(p, o);
	enum pv_collapsed_threads mode = o->collapsed_threads;
	if (mode == PV_COLLAPSED_AUTO)
		mode = p->threads.len > 1 ? PV_COLLAPSED_TID : PV_COLLAPSED_NONE;
	pv__export_lossy_common(p, m, false, false, false, "collapsed", lossy);
	if (p->metrics.unit[m] != PV_UNIT_COUNT)
		pv_lossy_add(lossy, 1, "the unit of '%s' (%s): folded counts have none",
			     pv_str(p, p->metrics.name[m]), pv_unit_name(p->metrics.unit[m]));
	/* one entry per (thread, stack) with a cost */
	struct u64map map = {0};
	struct line *lines = NULL;
	uint32_t n = 0, cap = 0;
	uint64_t nostack = 0, negative = 0, renamed = 0, tidied = 0, modules = 0;
	struct sbuf pool = SBUF_INIT;
	int rc = 0;
	for (pv_thread_ix t = 0; t < p->threads.len && !rc; t++) {
		uint32_t tk = mode == PV_COLLAPSED_NONE ? 0 : t;
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
			pv_stack_ix st = p->samples.stack[s];
			int64_t w = pv_sample_weight(p, m, s);
			if (st == PV_NONE) {
				nostack++;
				continue;
			}
			uint64_t key = (uint64_t)tk << 32 | st;
			uint32_t i = u64map_get(&map, key);
			if (i == UINT32_MAX) {
				if (n == cap) {
					cap = cap ? cap * 2 : 256;
					struct line *nl = pv_realloc(lines, cap * sizeof(*nl));
					if (!nl) {
						rc = PV_ENOMEM;
						break;
					}
					lines = nl;
				}
				i = n++;
				lines[i] = (struct line){.thread = tk, .stack = st};
				if (u64map_put(&map, key, i)) {
					rc = PV_ENOMEM;
					break;
				}
			}
			lines[i].cost += w;
		}
	}
	u64map_release(&map);
	/* the text of each line */
	uint32_t maxd = 0;
	uint32_t *depth = rc ? NULL : pv__stack_depths(p, &maxd);
	pv_frame_ix *fr = depth ? pv_malloc(((size_t)maxd + 1) * sizeof(*fr)) : NULL;
	if (!fr)
		rc = PV_ENOMEM;
	for (uint32_t i = 0; i < n && !rc; i++) {
		lines[i].at = pool.len;
		if (mode != PV_COLLAPSED_NONE) {
			rc |= thread_frame(&pool, p, lines[i].thread, mode, &renamed);
			rc |= sbuf_put(&pool, ";", 1);
		}
		uint32_t k = pv__stack_frames(p, lines[i].stack, fr, maxd + 1);
		for (uint32_t j = 0; j < k && !rc; j++) {
			pv_frame_ix f = fr[j];
			pv_func_ix fn = p->frames.func[f];
			pv_module_ix mod = pv_func_module(p, fn);
			if (j)
				rc |= sbuf_put(&pool, ";", 1);
			const char *name = pv_str(p, p->funcs.name[fn]);
			size_t from = pool.len;
			rc |= put_name(&pool, *name ? name : "[unknown]", &renamed);
			if (o->tidy && !rc)
				tidy(&pool, from,
				     strcmp(pv_str(p, p->threads.name[lines[i].thread]), "java") ==
					 0,
				     &tidied);
			modules += !rc && module_like(&pool, from);
			uint8_t kind = mod == PV_NONE ? 0 : p->modules.kind[mod];
			if (o->plain)
				continue;
			if (pv_frame_inline_depth(p, f))
				rc |= sbuf_put(&pool, "_[i]", 4);
			else if (kind == PV_MODULE_KERNEL)
				rc |= sbuf_put(&pool, "_[k]", 4);
			else if (kind == PV_MODULE_JIT)
				rc |= sbuf_put(&pool, "_[j]", 4);
		}
		lines[i].len = pool.len - lines[i].at;
	}
	pv_free(fr);
	pv_free(depth);
	if (!rc) {
		if (n)
			qsort_r(lines, n, sizeof(*lines), cmp_line, pool.buf);
		for (uint32_t i = 0; i < n;) {
			int64_t cost = 0;
			uint32_t j = i;
			while (j < n && cmp_line(&lines[i], &lines[j], pool.buf) == 0)
				cost += lines[j++].cost;
			if (cost < 0)
				negative++;
			else if (cost > 0)
				fprintf(out, "%.*s %" PRId64 "\n", (int)lines[i].len,
					pool.buf + lines[i].at, cost);
			i = j;
		}
	}
	pv_free(lines);
	sbuf_release(&pool);
	if (rc)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	pv_lossy_add(lossy, nostack, "samples without a stack (a folded line needs a frame)");
	pv_lossy_add(lossy, negative, "lines of negative weight (folded counts are not negative)");
	pv_lossy_add(lossy, modules, "names ending in ' [x]' (read back as the module x)");
	pv_lossy_add(lossy, tidied, "names tidied (arguments, quotes, Java's L prefix)");
	pv_lossy_add(lossy, renamed, "names with ';' or a line break (written as ':' or a space)");
	return pv__export_check(out, err);
}
