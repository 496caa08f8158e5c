/*
 * collapsed.c - folded stacks, one "frame;frame;...;leaf COUNT" per line (Brendan Gregg's
 * stackcollapse-*.pl, speedscope, inferno, py-spy --format raw).
 *
 * - The count is the text after the last space, so frames may hold spaces (C++ signatures).
 * - A first frame "comm-PID/TID" (stackcollapse-perf.pl --tid) names the thread; "comm-PID"
 *   (--pid) does too when the file's first line has that form.
 * - Frame suffixes of stackcollapse-perf.pl --all: "_[k]" kernel, "_[j]" JIT, "_[i]" inlined,
 *   "_[w]" waker; a whole frame "[libfoo.so]" is an unknown function in that module, and
 *   "name [libfoo.so]" (before any suffix) is the function name of that module.
 * - The count follows one space or tab (as flamegraph.pl and speedscope read it): a last frame
 *   may end in white space, and in a number ("Thread 2 1" is the frame "Thread 2", once).
 * - A line that is not "frames count" and begins with "#" or "//" is a comment; one that is
 *   ("#load;run 12": a JavaScript private method at the root, as flamegraph.pl and speedscope
 *   read it) is a stack. Any other line that is not "frames count" is skipped and counted in
 *   the import report; a file with no valid line at all is an error.
 * - A comment "# no thread frames" before the first stack (profview's exports write it when a
 *   first frame looks like "comm-PID") reads every first frame as a frame.
 * - With thread frames, a line of the thread frame alone ("comm-PID/TID N", as
 *   stackcollapse-perf.pl writes a sample without a stack) is that thread's sample without a
 *   stack.
 */
#include <stddef.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/text.h"
#include "import/collapsed.h"
#include "import/importer.h"
#include "pv/export.h"

static int is_comment(const char *p, const char *e)
{
	return (e - p >= 1 && p[0] == '#') || (e - p >= 2 && p[0] == '/' && p[1] == '/');
}

/* What split_count found: not "frames COUNT"; a line of that form; its form, a count past int64. */
enum { LINE_BAD = 0, LINE_OK, LINE_RANGE };

/*
 * Parses "... COUNT": sets *stack_end to the end of the frames (before the one space or tab
 * ahead of the count), *count_at to the count's first digit and *count to its value (LINE_OK).
 * The form is the probe's, the value the importer's: a count past int64 is LINE_RANGE, a line
 * of another form LINE_BAD.
 */
static int split_count(const char *p, const char *e, const char **stack_end, int64_t *count,
		       const char **count_at)
{
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	const char *q = e;
	while (q > p && q[-1] >= '0' && q[-1] <= '9')
		q--;
	if (q == e || q == p || (q[-1] != ' ' && q[-1] != '\t'))
		return LINE_BAD;
	const char *s = q - 1;
	if (s == p)
		return LINE_BAD;
	*stack_end = s;
	*count_at = q;
	uint64_t v = 0;
	for (const char *d = q; d < e; d++) {
		if (v > ((uint64_t)INT64_MAX - (uint64_t)(*d - '0')) / 10)
			return LINE_RANGE;
		v = v * 10 + (uint64_t)(*d - '0');
	}
	*count = (int64_t)v;
	return LINE_OK;
}

static int probe(const struct pv_input *in)
{
	/*
	 * lines starting in the first 64 KiB; a line may run past it (very deep stacks), up to
	 * 4 MiB: unbounded, a one-line JSON file was read whole before any importer ran
	 */
	const char *p = in->data, *e = in->data + (in->len < 65536 ? in->len : 65536);
	const char *end = in->data + (in->len < ((size_t)4 << 20) ? in->len : ((size_t)4 << 20));
	int good = 0, bad = 0;
	bool stack = false; /* a line of the form with a frame;frame stack */
	while (p < e && good + bad < 20) {
		const char *le = text_line_end(p, end);
		const char *t = le;
		if (t > p && t[-1] == '\r')
			t--;
		if (t > p) {
			const char *se, *ca;
			int64_t c;
			if (split_count(p, t, &se, &c, &ca) != LINE_BAD) {
				good++;
				stack |= memchr(p, ';', (size_t)(se - p)) != NULL;
			} else if (!is_comment(p, t) &&
				   le < in->data + in->len) { /* not a last line cut short: bad */
				bad++;
			}
		}
		p = le + 1;
	}
	if (good == 0)
		return 0;
	if (bad * 4 > good) /* stacks as much as other text: the importer says where */
		return stack && good >= bad ? PROBE_DAMAGED : 0;
	return 10; /* plain text: any more specific format wins */
}

int collapsed_task(const char *p, const char *e, const char **comm_end, int64_t *pid, int64_t *tid)
{
	const char *slash = NULL;
	const char *q = e;
	while (q > p && q[-1] >= '0' && q[-1] <= '9')
		q--;
	if (q == e)
		return 0;
	int64_t last = 0;
	for (const char *d = q; d < e && d - q < 18; d++)
		last = last * 10 + (*d - '0');
	if (q > p && q[-1] == '/') {
		slash = q - 1;
		const char *r = slash;
		while (r > p && r[-1] >= '0' && r[-1] <= '9')
			r--;
		if (r == slash || r == p || r[-1] != '-' || slash - r > 18)
			return 0;
		int64_t v = 0;
		for (const char *d = r; d < slash; d++)
			v = v * 10 + (*d - '0');
		*pid = v;
		*tid = last;
		*comm_end = r - 1;
		return 2;
	}
	if (q == p || q[-1] != '-')
		return 0;
	*pid = last;
	*tid = PV_ID_NONE;
	*comm_end = q - 1;
	return 1;
}

/*
 * Frames by their text in the file. A frame's text decides all of it (name, module, kind), and
 * the same frames repeat on every line that goes through them, so a frame seen before costs one
 * hash, one probe and one compare with a copy of its text, instead of interning its name, its
 * function and itself again. Empty slot: len 0 (a frame has at least one byte). The cache holds
 * at most FCACHE_MAX texts: past that (a file of millions of distinct frames, which it would
 * not speed up) new frames are interned without it, so it costs at most ~20 MB.
 */
#define FCACHE_MAX (1u << 18)
struct fslot {
	uint64_t h;
	uint32_t off, len; /* its text in fcache.text */
	pv_frame_ix frame;
};

struct fcache {
	struct fslot *slot;
	uint32_t mask, count;
	char *text;
	size_t text_len, text_cap;
};

struct cstate {
	struct pv_builder *b;
	pv_module_ix kernel, jit;
	pv_str_ix kernel_name, jit_name;
	/* threads by (pid, tid): a small linear cache is enough for real files */
	pv_thread_ix *threads;
	int64_t *tpid, *ttid;
	uint32_t nr_threads, cap_threads;
	pv_thread_ix default_thread;
	struct fcache fc;
};

/* A module named in brackets: its kind from the name perf gives it, else kind. */
static pv_module_ix module_of(struct cstate *s, const char *m, size_t n, enum pv_module_kind k)
{
	if ((n >= 7 && memcmp(m, "kernel.", 7) == 0) || (n >= 7 && memcmp(m, "vmlinux", 7) == 0))
		k = PV_MODULE_KERNEL;
	else if (n >= 5 && memcmp(m, "perf-", 5) == 0)
		k = PV_MODULE_JIT;
	return builder_module(s->b, builder_str(s->b, m, n), 0, k);
}

static pv_frame_ix frame_of(struct cstate *s, const char *f, size_t n)
{
	struct pv_builder *b = s->b;
	pv_module_ix mod = PV_NONE;
	uint16_t inl = 0;
	char suffix = 0;
	if (n > 4 && f[n - 4] == '_' && f[n - 3] == '[' && f[n - 1] == ']' &&
	    strchr("kjiw", f[n - 2])) {
		suffix = f[n - 2];
		inl = suffix == 'i';
		n -= 4;
	}
	enum pv_module_kind kind = suffix == 'k'   ? PV_MODULE_KERNEL
				   : suffix == 'j' ? PV_MODULE_JIT
						   : PV_MODULE_LIBRARY;
	if (n > 2 && f[0] == '[' && f[n - 1] == ']' &&
	    !(n == 9 && memcmp(f, "[unknown]", 9) == 0)) {
		/* an unknown symbol in a module: "[libc-2.19.so]", "[perf-1234.map]" */
		mod = module_of(s, f + 1, n - 2, kind);
	} else if (n > 3 && f[n - 1] == ']') {
		/*
		 * "name [module]": a module annotation after the symbol (before a suffix); the
		 * module's name has no space and may be bracketed itself ("f [[vdso]]")
		 */
		const char *open = NULL;
		int depth = 1;
		for (size_t i = n - 1; i-- > 1;) {
			if (f[i] == ' ')
				break;
			depth += f[i] == ']';
			if (f[i] == '[' && --depth == 0) {
				open = f + i;
				break;
			}
		}
		if (open && open[-1] == ' ' && open + 1 < f + n - 1) {
			mod = module_of(s, open + 1, (size_t)(f + n - 1 - (open + 1)), kind);
			n = (size_t)(open - 1 - f);
			while (n && f[n - 1] == ' ')
				n--;
		}
	}
	if (mod == PV_NONE && suffix == 'k') {
		if (s->kernel == PV_NONE)
			s->kernel = builder_module(b, builder_cstr(b, "[kernel.kallsyms]"), 0,
						   PV_MODULE_KERNEL);
		mod = s->kernel;
	} else if (mod == PV_NONE && suffix == 'j') {
		if (s->jit == PV_NONE)
			s->jit = builder_module(b, builder_cstr(b, "[jit]"), 0, PV_MODULE_JIT);
		mod = s->jit;
	}
	pv_func_ix fn = builder_func(b, builder_str(b, f, n), mod, PV_NONE, 0);
	struct frame_key k = {
	    .func = fn,
	    .addr = PV_ADDR_NONE,
	    .category = PV_NONE,
	    .inline_depth = inl,
	};
	return builder_frame(b, &k);
}

static int fcache_grow(struct fcache *c)
{
	/* 256 first: a small file (one of many per-rank profiles) does not clear 96 KB */
	uint32_t cap = c->slot ? (c->mask + 1) * 2 : 256;
	if (cap == 0)
		return PV_ENOMEM;
	struct fslot *slot = pv_calloc(cap, sizeof(*slot));
	if (!slot)
		return PV_ENOMEM;
	for (uint32_t i = 0; c->slot && i <= c->mask; i++) {
		if (!c->slot[i].len)
			continue;
		uint32_t j = (uint32_t)c->slot[i].h & (cap - 1);
		while (slot[j].len)
			j = (j + 1) & (cap - 1);
		slot[j] = c->slot[i];
	}
	pv_free(c->slot);
	c->slot = slot;
	c->mask = cap - 1;
	return 0;
}

/* The frame of the text f (n bytes, n > 0), made on its first occurrence. */
static pv_frame_ix frame_cached(struct cstate *s, const char *f, size_t n)
{
	struct fcache *c = &s->fc;
	if (n > UINT32_MAX - 1)
		return frame_of(s, f, n);
	uint64_t h = hash_bytes(f, n);
	bool full = c->count >= FCACHE_MAX;
	if (!full && (!c->slot || (uint64_t)(c->count + 1) * 4 > (uint64_t)(c->mask + 1) * 3)) {
		if (fcache_grow(c)) {
			s->b->status = PV_ENOMEM;
			return PV_NONE;
		}
	}
	uint32_t i = (uint32_t)h & c->mask;
	for (; c->slot[i].len; i = (i + 1) & c->mask) {
		const struct fslot *e = &c->slot[i];
		if (e->h == h && e->len == n && memcmp(c->text + e->off, f, n) == 0)
			return e->frame;
	}
	pv_frame_ix fr = frame_of(s, f, n);
	if (fr == PV_NONE || full || c->text_len + n > UINT32_MAX)
		return fr;
	if (c->text_len + n > c->text_cap) {
		size_t cap = c->text_cap ? c->text_cap : 65536;
		while (cap < c->text_len + n)
			cap *= 2;
		char *t = pv_realloc(c->text, cap);
		if (!t) {
			s->b->status = PV_ENOMEM;
			return PV_NONE;
		}
		c->text = t;
		c->text_cap = cap;
	}
	memcpy(c->text + c->text_len, f, n);
	c->slot[i] = (struct fslot){h, (uint32_t)c->text_len, (uint32_t)n, fr};
	c->text_len += n;
	c->count++;
	return fr;
}

static pv_thread_ix thread_of(struct cstate *s, const char *comm, size_t n, int64_t pid,
			      int64_t tid)
{
	/* a thread is (comm, pid, tid): after an exec the same tid runs under a new comm */
	pv_str_ix name = builder_str(s->b, comm, n);
	for (uint32_t i = s->nr_threads; i-- > 0;)
		if (s->tpid[i] == pid && s->ttid[i] == tid &&
		    s->b->p->threads.name[s->threads[i]] == name)
			return s->threads[i];
	if (s->nr_threads == s->cap_threads) {
		uint32_t nc = grow_cap(s->cap_threads, (uint64_t)s->nr_threads + 1);
		if (!nc || COL_GROW(s->threads, nc) || COL_GROW(s->tpid, nc) ||
		    COL_GROW(s->ttid, nc)) {
			s->b->status = PV_ENOMEM;
			return PV_NONE;
		}
		s->cap_threads = nc;
	}
	pv_thread_ix t = builder_thread(s->b, name, pid, tid == PV_ID_NONE ? pid : tid, name);
	s->threads[s->nr_threads] = t;
	s->tpid[s->nr_threads] = pid;
	s->ttid[s->nr_threads] = tid;
	s->nr_threads++;
	return t;
}

/*
 * A stack line's sample: its frames from f to se (the first one naming the task in the file's
 * task mode, decided by the first line), weighing count.
 */
static void add_stack(struct cstate *s, const char *f, const char *se, int64_t count,
		      int *task_mode)
{
	struct pv_builder *b = s->b;
	pv_thread_ix th = PV_NONE;
	/* the first frame may name the task */
	const char *fe = memchr(f, ';', (size_t)(se - f));
	if (!fe)
		fe = se;
	const char *ce = f;
	int64_t pid = PV_ID_NONE, tid = PV_ID_NONE;
	int tm = collapsed_task(f, fe, &ce, &pid, &tid);
	if (*task_mode < 0)
		*task_mode = tm;
	if (*task_mode > 0 && tm == *task_mode) {
		/* the thread frame alone: a sample of the thread without a stack */
		th = thread_of(s, f, (size_t)(ce - f), pid, tid);
		f = fe < se ? fe + 1 : se;
	}
	if (th == PV_NONE) {
		if (s->default_thread == PV_NONE)
			s->default_thread = builder_thread(b, builder_cstr(b, "all samples"),
							   PV_ID_NONE, PV_ID_NONE, 0);
		th = s->default_thread;
	}
	pv_stack_ix st = PV_NONE;
	while (f < se) {
		const char *fend = memchr(f, ';', (size_t)(se - f));
		if (!fend)
			fend = se;
		if (fend > f)
			st = builder_stack(b, st, frame_cached(s, f, (size_t)(fend - f)));
		f = fend + 1;
	}
	int64_t w = count;
	builder_sample(b, th, st, PV_TIME_NONE, &w);
}

/*
 * A file without a stack to read: the first of its lines that are not one (a count out of
 * range, or not 'frame;frame;... COUNT') is the error; 0 when they all have a count of 0.
 */
static int no_stacks(struct pv_input *in, struct pv_error *err, const char *first_range_at,
		     uint64_t first_range, const char *first_bad_at, uint64_t first_bad,
		     uint64_t zero)
{
	const char *e = in->data + in->len;
	if (first_range_at && (!first_bad_at || first_range < first_bad)) {
		const char *d = first_range_at;
		while (d < e && *d >= '0' && *d <= '9')
			d++;
		return input_fail(in, err, PV_EPARSE, first_range_at,
				  "count %.*s is past 9223372036854775807 (2^63 - 1)",
				  (int)(d - first_range_at > 40 ? 40 : d - first_range_at),
				  first_range_at);
	}
	if (first_bad_at) {
		uint64_t l, c;
		input_position(in, first_bad_at, &l, &c);
		return input_fail_at(in, err, PV_EPARSE, l, 1, "expected 'frame;frame;... COUNT'");
	}
	if (zero == 0)
		return pv_error_set(err, PV_EPARSE,
				    "%s: line 1, column 1: expected 'frame;frame;... "
				    "COUNT', found no stack",
				    in->name);
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct cstate s = {.b = b, .kernel = PV_NONE, .jit = PV_NONE, .default_thread = PV_NONE};
	builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
	const char *p = in->data, *e = in->data + in->len;
	uint64_t lineno = 0, bad = 0, first_bad = 0, good = 0, zero = 0, range = 0, first_range = 0;
	const char *first_bad_at = NULL, *first_range_at = NULL;
	const char *forget_mark = p;
	int task_mode = -1; /* decided by the first data line: 0 none, 1 comm-pid, 2 comm-pid/tid */
	int rc;
	while (p < e && !b->status) {
		/* nothing refers to earlier lines (frames are interned): their pages may go */
		if (p - forget_mark > ((ptrdiff_t)1 << 20)) {
			input_forget(in, p);
			forget_mark = p;
		}
		const char *le = text_line_end(p, e);
		const char *t = le;
		lineno++;
		if (t > p && t[-1] == '\r')
			t--;
		if (t == p) {
			p = le + 1;
			continue;
		}
		const char *se, *count_at;
		int64_t count;
		int form = split_count(p, t, &se, &count, &count_at);
		if (form == LINE_BAD && is_comment(p, t)) {
			/* a '#' or '//' line that does not end in a count (#load;run 3 is a stack)
			 */
			if (task_mode < 0 &&
			    (size_t)(t - p) == sizeof(PV_COLLAPSED_NO_THREADS) - 1 &&
			    memcmp(p, PV_COLLAPSED_NO_THREADS,
				   sizeof(PV_COLLAPSED_NO_THREADS) - 1) == 0)
				task_mode = 0;
			p = le + 1;
			continue;
		}
		if (form == LINE_BAD) {
			if (!bad++) {
				first_bad = lineno;
				first_bad_at = p;
			}
			p = le + 1;
			continue;
		}
		if (form == LINE_RANGE) {
			if (!range++) {
				first_range = lineno;
				first_range_at = count_at;
			}
			p = le + 1;
			continue;
		}
		if (count == 0) {
			zero++;
			p = le + 1;
			continue;
		}
		good++;
		add_stack(&s, p, se, count, &task_mode);
		p = le + 1;
	}
	pv_free(s.threads);
	pv_free(s.tpid);
	pv_free(s.ttid);
	pv_free(s.fc.slot);
	pv_free(s.fc.text);
	if (b->status)
		return b->status;
	if (good == 0 &&
	    (rc = no_stacks(in, err, first_range_at, first_range, first_bad_at, first_bad, zero)))
		return rc;
	if (bad)
		builder_lossy(
		    b, bad,
		    "skipped lines that are not 'frame;frame;... COUNT' (first at line %llu)",
		    (unsigned long long)first_bad);
	if (zero)
		builder_lossy(b, zero, "skipped stacks with a count of 0");
	if (range)
		builder_lossy(b, range,
			      "skipped stacks whose count is past 9223372036854775807 (2^63 - 1; "
			      "first at line %llu)",
			      (unsigned long long)first_range);
	return 0;
}

const struct importer importer_collapsed = {
    .name = "collapsed",
    .description = "folded stacks: 'frame;frame;leaf COUNT' (FlameGraph, speedscope, inferno)",
    .probe = probe,
    .import = import,
    .cut_short = input_ends_mid_line,
};
