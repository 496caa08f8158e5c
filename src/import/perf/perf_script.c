/*
 * perf_script.c - the text of `perf script` (Linux perf) and of simpleperf's report-sample
 * script: one block per sample, a header line, then the call chain leaf first, one frame a line,
 * then a blank line.
 *
 *   comm  PID/TID [CPU] SECS.FRAC:  PERIOD EVENT[:MODS]: [tracepoint payload | IP SYM (DSO)]
 *   \t  IP SYM[+0xOFF] (DSO)
 *
 * Header: every field but the task id and the event is optional (perf version and -F decide),
 * the comm may hold spaces and may be right-aligned, the task is "TID" or "PID/TID". The header
 * is read by trying each numeric token as the task id and checking the rest of the line against
 * the field order; the first header fixes the file's shape, which later headers are matched
 * against first (so a comm ending in a number stays part of the comm). simpleperf's
 * report_sample.py writes "comm\tTID [CPU] SECS.USECS:\t\tPERIOD EVENT:" with the microseconds
 * not zero-padded ("115540.8374" is 8374 us): a header with a tab after the time is read so.
 *
 * Frames: the module is the last parenthesised group ("(dso)", "(dso (deleted))"), preceded by
 * a blank; "(inlined)" marks an inlined frame (perf script --inline), which takes the module of
 * the frame it is inlined into and an inline depth. "+0xOFF" is cut from symbols (and from
 * DSOs, -F +dsoff); addresses are kept only on frames with a source line (-F +srcline: the
 * address column of the source pane, doc/lines.md), as perf prints them; other frames are merged
 * by function. "[unknown]" in a
 * known module with a file (not the kernel) is named from that file on this machine when it can
 * be (import/symbols.h, at perf's map-relative address; reported), else "[MODULE]" as
 * stackcollapse-perf.pl does. Module kinds: kernel for
 * [kernel.*], vmlinux* and *.ko*, JIT for perf-PID.map / jitted-*.so / [JIT] / //anon / memfd,
 * library for *.so* and [vdso], binary for other paths.
 *
 * Samples: period (else 1) is the weight in the metric of the sample's event; every event is
 * its own metric (a sample weighs 0 in the others). Threads are (comm, pid, tid); a thread's
 * process name is the comm of the thread whose tid is its pid. Times are parsed as decimal text
 * into nanoseconds and kept relative to the earliest sample (the import report says where that
 * is on perf's clock). Tracepoint events ("sys:name:") become instant markers on their thread
 * with their fields as a JSON object ({"prev_pid":123,...}, {"text":"..."} when the payload is
 * not key=value) and their call chain as the cause stack. A srcline line after a frame (-F
 * +srcline: "  FILE:LINE", " (inlined)" for an inlined frame) gives the frame its line and its
 * function that file: a function is one per (name, module, file), so code inlined from a header
 * that perf prints without --inline is the header's function of that name (callgrind_annotate's
 * "file:function"). PERF_RECORD_* side-band lines, srclines without a file and line ("??:0",
 * "dso[addr]") and header text that is not a frame are counted in the import report; a line that is
 * none of these is skipped and counted; a file without any sample or tracepoint is an error at
 * the first line that is not a comment.
 *
 * Speed: one pass over the buffer. The same call site prints the same frame line, so a line is
 * first looked up by its text: the line that followed the previous line last time (checked by
 * one compare, which also finds the line's end), else a hash of its first 24 bytes and a
 * compare; only a line never seen is parsed (its module group, its symbol through a (symbol,
 * module) -> frame cache, then the builder). A sample's stack reuses the prefix it shares with
 * the previous sample of its thread, and each line remembers the stack it last made on top of
 * which callers. Line copies (one per distinct line) and the tables live in 2 MiB huge pages;
 * consumed input pages are handed back to the kernel as the parse goes. The header after the
 * event holds the sample's frame only without call chains; a bare number there (-F +addr) is
 * reported, not taken for a frame.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "base/alloc.h"
#include "base/text.h"
#include "import/importer.h"

#include "import/perf/perf_script.h"

/* ---------------------------------------------------------------- the header line */

enum {
	SH_PIDTID = 1, /* "PID/TID" rather than "TID" */
	SH_CPU = 2,
	SH_TIME = 4,
	SH_PERIOD = 8,
	SH_EVENT = 16,
};

struct header {
	const char *comm, *comm_end;
	int64_t pid, tid;	       /* pid PV_ID_NONE when only the tid is printed */
	int64_t time_ns;	       /* absolute, PV_TIME_NONE when absent */
	int64_t period;		       /* -1 when absent */
	const char *event, *event_end; /* without the final ':'; NULL when absent */
	const char *rest;	       /* after the event: payload or a frame; == end when none */
	int shape;
	int bad_number; /* a field was there but out of range */
};

/*
 * "SECS.FRAC:" into ns. simpleperf (tab after the colon) prints unpadded microseconds.
 * Returns 1, 0 (not a time), or -1 (a time out of range).
 */
static int parse_time(const char *p, const char *e, int simpleperf, int64_t *ns)
{
	const char *dot = p;
	while (dot < e && text_is_digit(*dot))
		dot++;
	if (dot == p || dot + 1 >= e || *dot != '.' || e[-1] != ':')
		return 0;
	const char *f = dot + 1, *fe = e - 1;
	if (f == fe)
		return 0;
	for (const char *q = f; q < fe; q++)
		if (!text_is_digit(*q))
			return 0;
	if (dot - p > 10 || fe - f > 9)
		return -1;
	int64_t s = 0, frac = 0;
	for (const char *q = p; q < dot; q++)
		s = s * 10 + (*q - '0');
	for (const char *q = f; q < fe; q++)
		frac = frac * 10 + (*q - '0');
	int nd = (int)(fe - f);
	if (simpleperf && nd <= 6) {
		frac *= 1000;
	} else {
		for (int i = nd; i < 9; i++)
			frac *= 10;
	}
	if (s > (INT64_MAX - frac) / 1000000000)
		return -1;
	*ns = s * 1000000000 + frac;
	return 1;
}

/* The fields after the task id, from q (just past it). Returns 1 when they fit the grammar. */
static int parse_after_task(const char *q, const char *e, struct header *h)
{
	q = text_skip_blanks(q, e);
	const char *t, *te;
	/* [CPU] */
	if (q < e && *q == '[') {
		te = token_end(q, e);
		int64_t cpu;
		if (te - q < 3 || te[-1] != ']' || !parse_u64(q + 1, te - 1, &cpu))
			return 0;
		h->shape |= SH_CPU;
		q = text_skip_blanks(te, e);
	}
	/* SECS.FRAC: */
	t = q;
	te = token_end(t, e);
	if (te > t && text_is_digit(*t) && te[-1] == ':') {
		int r = parse_time(t, te, te < e && *te == '\t', &h->time_ns);
		if (r == 0)
			return 0;
		if (r < 0)
			h->bad_number = 1;
		h->shape |= SH_TIME;
		q = text_skip_blanks(te, e);
		t = q;
		te = token_end(t, e);
	}
	/* PERIOD (digits followed by a blank and more) */
	if (te > t && te < e && text_is_digit(*t)) {
		const char *d = t;
		while (d < te && text_is_digit(*d))
			d++;
		if (d != te)
			return 0;
		if (te - t > 18)
			h->bad_number = 1;
		else
			parse_u64(t, te, &h->period);
		h->shape |= SH_PERIOD;
		q = text_skip_blanks(te, e);
		t = q;
		te = token_end(t, e);
	}
	/* side-band records (--show-*-events): "PERF_RECORD_COMM exec: ...", "PERF_RECORD_FORK(..."
	 */
	if (te - t > 12 && memcmp(t, "PERF_RECORD_", 12) == 0) {
		const char *n = t + 12;
		while (n < te && ((*n >= 'A' && *n <= 'Z') || text_is_digit(*n) || *n == '_'))
			n++;
		h->event = t;
		h->event_end = n;
		h->shape |= SH_EVENT;
		h->rest = e;
		return 1;
	}
	/* EVENT: */
	if (te - t >= 2 && te[-1] == ':' && *t != '[' && !text_is_digit(*t)) {
		h->event = t;
		h->event_end = te - 1;
		h->shape |= SH_EVENT;
		h->rest = text_skip_blanks(te, e);
		return 1;
	}
	/* no event: only when nothing follows a time or a cpu (perf script -F without event) */
	if (t == e && (h->shape & (SH_TIME | SH_CPU))) {
		h->rest = e;
		return 1;
	}
	return 0;
}

/* Tries the token [t, te) as the task id. */
static int try_task(const char *s, const char *t, const char *te, const char *e, struct header *h)
{
	const char *slash = memchr(t, '/', (size_t)(te - t));
	struct header x = {.time_ns = PV_TIME_NONE, .period = -1, .pid = PV_ID_NONE};
	if (slash) {
		if (!parse_id(t, slash, &x.pid) || !parse_id(slash + 1, te, &x.tid))
			return 0;
		x.shape |= SH_PIDTID;
	} else if (!parse_id(t, te, &x.tid)) {
		return 0;
	}
	if (!parse_after_task(te, e, &x))
		return 0;
	const char *ce = t;
	while (ce > s && text_is_blank(ce[-1]))
		ce--;
	x.comm = s;
	x.comm_end = ce;
	*h = x;
	return 1;
}

static int popcount(int x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

/*
 * Reads a header line [p, e) (e past the trimmed end). shape: the file's shape once known (0
 * before the first header). Returns 1 and fills h.
 */
static int parse_header(const char *p, const char *e, int shape, struct header *h)
{
	const char *s = text_skip_blanks(p, e);
	if (s == e)
		return 0;
	int found = 0, best = -1;
	for (const char *t = s; t < e;) {
		const char *te = token_end(t, e);
		if (text_is_digit(*t) || (*t == '-' && te - t > 1 && text_is_digit(t[1]))) {
			struct header x;
			if (try_task(s, t, te, e, &x)) {
				if (shape && x.shape == shape) {
					*h = x;
					return 1;
				}
				/* the richest reading wins; the leftmost among equals */
				int score = popcount(x.shape);
				if (score > best) {
					best = score;
					*h = x;
					found = 1;
				}
			}
		}
		t = text_skip_blanks(te, e);
	}
	return found;
}

/* ---------------------------------------------------------------- frame lines */

struct frame_text {
	const char *sym, *sym_end; /* without +0xOFF; empty when the line has only an address */
	const char *dso, *dso_end; /* NULL when there is no (dso) */
	const char *addr, *addr_end;
	int inlined;
};

/* Cuts a "+0xHEX" suffix off [p, *e). */
static void cut_offset(const char *p, const char **e)
{
	const char *q = *e;
	while (q > p && text_is_hex(q[-1]))
		q--;
	if (q < *e && q - p >= 3 && q[-1] == 'x' && q[-2] == '0' && q[-3] == '+')
		*e = q - 3;
}

/* "  IP SYM (DSO)" from p to e (trimmed). Returns 1 when it is a frame line. */
static int parse_frame(const char *p, const char *e, struct frame_text *f)
{
	const char *s = text_skip_blanks(p, e);
	const char *a = s;
	while (s < e && text_is_hex(*s))
		s++;
	if (s == a || (s < e && !text_is_blank(*s)))
		return 0;
	f->addr = a;
	f->addr_end = s;
	f->inlined = 0;
	f->dso = NULL;
	s = text_skip_blanks(s, e);
	const char *se = e;
	if (se > s && se[-1] == ')') {
		/* the last parenthesised group, nesting allowed: "(/tmp/x (deleted))" */
		int depth = 0;
		const char *q = memrchr(s, '(', (size_t)(se - s));
		if (q && !memchr(q + 1, '(', (size_t)(se - 1 - (q + 1))) &&
		    !memchr(q + 1, ')', (size_t)(se - 1 - (q + 1)))) {
			depth = 0; /* the usual case: no parenthesis inside the group */
		} else {
			q = se;
			while (q > s) {
				q--;
				if (*q == ')') {
					depth++;
				} else if (*q == '(' && --depth == 0) {
					break;
				}
			}
		}
		if (q && depth == 0 && *q == '(' && (q == s || text_is_blank(q[-1]))) {
			f->dso = q + 1;
			f->dso_end = se - 1;
			se = q;
			while (se > s && text_is_blank(se[-1]))
				se--;
			if (f->dso_end - f->dso == 7 && memcmp(f->dso, "inlined", 7) == 0) {
				f->inlined = 1;
				f->dso = NULL;
			} else {
				cut_offset(f->dso, &f->dso_end);
			}
		}
	}
	cut_offset(s, &se);
	f->sym = s;
	f->sym_end = se;
	return 1;
}

/* ---------------------------------------------------------------- frames */

static pv_frame_ix frame_make(struct pstate *s, const char *sym, size_t n, pv_module_ix mod,
			      uint16_t inline_depth, pv_str_ix *key)
{
	struct pv_builder *b = s->b;
	pv_str_ix name;
	if (n == 9 && memcmp(sym, "[unknown]", 9) == 0) {
		*key = builder_str(b, sym, n);
		name = perf_unknown_name(b, mod);
	} else {
		name = builder_str(b, sym, n);
		*key = name;
	}
	pv_func_ix fn = builder_func(b, name, mod, PV_NONE, 0);
	struct frame_key k = {
	    .func = fn,
	    .addr = PV_ADDR_NONE,
	    .category = PV_NONE,
	    .inline_depth = inline_depth,
	};
	return builder_frame(b, &k);
}

/*
 * Frame f at a source line (-F +srcline: "file.c:12" after the frame line): its function's
 * name and module in that file (a function is one per file, as callgrind_annotate's
 * file:function: code inlined from a header without --inline is the header's), at that line.
 */
static pv_frame_ix frame_at_line(struct pstate *s, pv_frame_ix f, const char *file,
				 const char *file_end, uint32_t line, uint64_t addr)
{
	struct pv_builder *b = s->b;
	const struct pv_profile *p = b->p;
	pv_func_ix fn = p->frames.func[f];
	pv_source_ix src = builder_source(b, builder_str(b, file, (size_t)(file_end - file)));
	struct frame_key k = {
	    .func = builder_func(b, p->funcs.name[fn], pv_func_module(p, fn), src, 0),
	    .line = line,
	    .addr = addr,
	    .category = PV_NONE,
	    .inline_depth = pv_frame_inline_depth(p, f),
	};
	return b->status ? PV_NONE : builder_frame(b, &k);
}

/*
 * The first size of a table: about what the input will need (a perf script text has a new frame
 * line every ~2.5 KB and a new function every ~5 KB), from 4096 up to max, a power of two.
 */
static uint32_t first_cap(size_t want, uint32_t max)
{
	uint32_t c = 4096;
	while (c < want && c < max)
		c *= 2;
	return c;
}

static int fc_grow(struct pstate *s)
{
	uint32_t ncap = s->fc ? (s->fc_mask + 1) * 2 : first_cap(s->in->len / 2048, 1u << 17);
	void *raw;
	struct fc_ent *n = big_alloc((size_t)ncap * sizeof(*n), 1, &raw);
	if (!n)
		return oom(s);
	for (uint32_t i = 0; s->fc && i <= s->fc_mask; i++) {
		if (!s->fc[i].h)
			continue;
		uint32_t j = s->fc[i].h & (ncap - 1);
		while (n[j].h)
			j = (j + 1) & (ncap - 1);
		n[j] = s->fc[i];
	}
	pv_free(s->fc_raw);
	s->fc = n;
	s->fc_raw = raw;
	s->fc_mask = ncap - 1;
	return 0;
}

/* The frame of a (non-inlined) symbol in a module, through the cache. */
static pv_frame_ix frame_of(struct pstate *s, const char *sym, size_t n, pv_module_ix mod)
{
	uint32_t h = (uint32_t)(hash_bytes(sym, n) ^ hash_u64((uint64_t)mod + 1)) | 1;
	uint32_t i = h & s->fc_mask;
	const struct pv_strings *st = &s->b->p->strings;
	for (;;) {
		const struct fc_ent *c = &s->fc[i];
		if (!c->h)
			break;
		if (c->h == h && c->mod == mod && st->size[c->key] == n &&
		    memcmp(st->ptr[c->key], sym, n) == 0)
			return c->frame;
		i = (i + 1) & s->fc_mask;
	}
	pv_str_ix key;
	pv_frame_ix f = frame_make(s, sym, n, mod, 0, &key);
	if (f == PV_NONE || !key)
		return f;
	s->fc[i] = (struct fc_ent){.h = h, .key = key, .mod = mod, .frame = f};
	if (++s->fc_count * 2 > s->fc_mask && fc_grow(s))
		return PV_NONE;
	return f;
}

static inline int push_frame(struct pstate *s, pv_frame_ix f, uint32_t rec)
{
	if (__builtin_expect(s->nframes == s->fcap, 0)) {
		uint32_t nc = grow_cap(s->fcap, (uint64_t)s->nframes + 1);
		if (!nc || COL_GROW(s->frames, nc) || COL_GROW(s->frame_rec, nc))
			return oom(s);
		s->fcap = nc;
	}
	s->frame_rec[s->nframes] = rec;
	s->frames[s->nframes++] = f;
	return 0;
}

/* The address at the start of a frame line [p, e) (blanks first); 0 when there is none. */
static int line_addr(const char *p, const char *e, uint64_t *out)
{
	p = text_skip_blanks(p, e);
	uint64_t v = 0;
	int n = 0;
	for (; p < e && text_is_hex(*p) && n < 16; p++, n++)
		v = v << 4 | (uint64_t)text_hex_digit(*p);
	*out = v;
	return n > 0 && (p == e || text_is_blank(*p));
}

/* The address of the line of the sample's frame row i; 0 when it is not known. */
static int frame_addr(const struct pstate *s, uint32_t i, uint64_t *out)
{
	if (s->frames[i] == PV_NONE) {
		for (uint32_t k = s->npend; k-- > 0;)
			if (s->pend[k].at == i) {
				*out = s->pend[k].addr;
				return s->pend[k].has_addr;
			}
		return 0;
	}
	if (!s->frame_rec[i])
		return 0;
	const struct line_rec *r = REC(s, s->frame_rec[i]);
	const char *t = (const char *)(r + 1);
	return line_addr(t, t + r->len, out);
}

/*
 * An inlined frame waits (PV_NONE in frames) until the sample ends. perf prints the frames of
 * one IP together, innermost first, each with the same address, the function that holds them
 * last; it marks "(inlined)" every one whose debug-info name differs from the ELF symbol's
 * (tools/perf's new_inline_sym), so the holder itself is marked when the two names differ
 * ("sort_block" for "sort_block.constprop.0", "__libc_start_main_impl" for
 * "__libc_start_main@@GLIBC_2.34"). So an "(inlined)" frame is inlined into the next line only
 * when that line has the same address (or when addresses are not known); otherwise, and as the
 * last line, it is the function at its address: inline depth 0, in the module of the nearest
 * frame with a module below it (its callee; not the kernel's), else above it. An inlined frame
 * takes the module of the frame it is inlined into, and its depth counted from there.
 */
static int push_inline(struct pstate *s, const char *sym, const char *sym_end, int has_addr,
		       uint64_t addr)
{
	if (ENSURE(s, s->pend, s->pendcap, (uint64_t)s->npend + 1))
		return -1;
	s->pend[s->npend++] =
	    (struct pending_inline){sym, sym_end, s->nframes, has_addr, addr, NULL, NULL, 0};
	return push_frame(s, PV_NONE, 0);
}

/* The module of the first frame with one below row i (toward the leaf), not the kernel. */
static pv_module_ix callee_module(const struct pstate *s, uint32_t i)
{
	const struct pv_profile *p = s->b->p;
	while (i-- > 0) {
		pv_frame_ix f = s->frames[i];
		if (f == PV_NONE)
			continue;
		pv_module_ix m = pv_func_module(p, p->frames.func[f]);
		return m != PV_NONE && p->modules.kind[m] != PV_MODULE_KERNEL ? m : PV_NONE;
	}
	return PV_NONE;
}

static void resolve_inline(struct pstate *s)
{
	const struct pv_profile *p = s->b->p;
	pv_module_ix mod = PV_NONE;
	uint32_t depth = 0, k = s->npend;
	for (uint32_t i = s->nframes; i-- > 0;) {
		pv_frame_ix f = s->frames[i];
		if (f != PV_NONE) {
			mod = pv_func_module(p, p->frames.func[f]);
			depth = 0;
			continue;
		}
		while (k > 0 && s->pend[k - 1].at > i)
			k--;
		if (k == 0 || s->pend[k - 1].at != i)
			continue; /* cannot happen: every PV_NONE has its entry */
		const struct pending_inline *q = &s->pend[k - 1];
		uint64_t next;
		int holder = i + 1 == s->nframes ||
			     (q->has_addr && frame_addr(s, i + 1, &next) && q->addr != next);
		if (holder) {
			pv_module_ix cm = callee_module(s, i);
			mod = cm != PV_NONE ? cm : mod;
			depth = 0;
		} else {
			depth++;
		}
		pv_str_ix key;
		s->frames[i] =
		    frame_make(s, q->sym, (size_t)(q->sym_end - q->sym), mod,
			       (uint16_t)(depth > UINT16_MAX ? UINT16_MAX : depth), &key);
		if (q->line && s->frames[i] != PV_NONE)
			s->frames[i] = frame_at_line(s, s->frames[i], q->file, q->file_end, q->line,
						     q->has_addr ? q->addr : PV_ADDR_NONE);
	}
	s->npend = 0;
}

/* "  file.c:12 (inlined)" (-F +srcline --inline): the frame before it was an inlined one. */
static void mark_inlined(struct pstate *s)
{
	if (!s->nframes || s->frames[s->nframes - 1] == PV_NONE)
		return;
	const struct pv_profile *p = s->b->p;
	uint64_t addr = 0;
	int has_addr = frame_addr(s, s->nframes - 1, &addr);
	pv_frame_ix f = s->frames[--s->nframes];
	pv_str_ix name = p->funcs.name[p->frames.func[f]];
	const char *n = p->strings.ptr[name];
	push_inline(s, n, n + p->strings.size[name], has_addr, addr);
}

static void add_frame(struct pstate *s, const struct frame_text *ft)
{
	if (s->nframes == 0)
		s->has_first_addr = line_addr(ft->addr, ft->addr_end, &s->first_addr);
	if (ft->inlined) {
		uint64_t addr;
		int has_addr = line_addr(ft->addr, ft->addr_end, &addr);
		push_inline(s, ft->sym, ft->sym_end, has_addr, addr);
		return;
	}
	pv_module_ix mod = ps_module_of(s, ft->dso, ft->dso_end);
	const char *sym = ft->sym;
	size_t n = (size_t)(ft->sym_end - ft->sym);
	pv_frame_ix f;
	const char *named = NULL;
	if (mod != PV_NONE && (n == 0 || (n == 9 && memcmp(sym, "[unknown]", 9) == 0)))
		named = ps_name_unknown(s, mod, ft->addr, ft->addr_end);
	if (named) {
		f = frame_of(s, named, strlen(named), mod);
	} else if (n == 0 && ft->dso) {
		f = frame_of(s, "[unknown]", 9, mod);
	} else if (n == 0) {
		/* only an address: the function is named by it */
		struct pv_builder *b = s->b;
		int an = (int)(ft->addr_end - ft->addr);
		pv_func_ix fn =
		    builder_func(b, builder_strf(b, "0x%.*s", an, ft->addr), PV_NONE, PV_NONE, 0);
		f = builder_func_frame(b, fn);
	} else {
		f = frame_of(s, sym, n, mod);
	}
	push_frame(s, f, 0);
}

static int lslot_grow(struct pstate *s)
{
	uint32_t ncap = s->lslot ? (s->lmask + 1) * 2 : first_cap(s->in->len / 1024, 1u << 18);
	void *raw;
	uint64_t *n = big_alloc((size_t)ncap * sizeof(*n), 1, &raw);
	if (!n)
		return oom(s);
	for (uint32_t i = 0; s->lslot && i <= s->lmask; i++) {
		uint64_t v = s->lslot[i];
		if (!v)
			continue;
		uint32_t j = (uint32_t)(v >> 32) & (ncap - 1);
		while (n[j])
			j = (j + 1) & (ncap - 1);
		n[j] = v;
	}
	pv_free(s->lslot_raw);
	s->lslot = n;
	s->lslot_raw = raw;
	s->lmask = ncap - 1;
	return 0;
}

/*
 * The hash of a frame line: its first 24 bytes (the address and the symbol's start), enough to
 * tell call sites apart; the whole text is compared on a hit.
 */
#define LINE_KEY 24

static uint64_t line_hash(const char *k, size_t n)
{
	return hash_bytes(k, n < LINE_KEY ? n : LINE_KEY);
}

/* A new record for the line [k, k + n) of frame f; its id, 0 when there is no room. */
static uint32_t rec_add(struct pstate *s, uint64_t h, const char *k, size_t n, pv_frame_ix f)
{
	uint32_t units = (uint32_t)((sizeof(struct line_rec) + n + 7) / 8);
	if (!s->nrchunk || s->rused + units > (1u << REC_BITS)) {
		if (s->nrchunk == REC_CHUNKS)
			return 0;
		if (s->nrchunk == s->rchunk_cap) {
			uint32_t nc = grow_cap(s->rchunk_cap, (uint64_t)s->nrchunk + 1);
			if (!nc || COL_GROW(s->rchunk, nc) || COL_GROW(s->rraw, nc)) {
				oom(s);
				return 0;
			}
			s->rchunk_cap = nc;
		}
		void *raw;
		char *c = big_alloc((size_t)8 << REC_BITS, 0, &raw);
		if (!c) {
			oom(s);
			return 0;
		}
		s->rraw[s->nrchunk] = raw;
		s->rchunk[s->nrchunk++] = c;
		s->rused = 0;
	}
	uint32_t id = (((s->nrchunk - 1) << REC_BITS) | s->rused) + 1;
	struct line_rec *r = REC(s, id);
	(void)h;
	*r = (struct line_rec){.len = (uint32_t)n,
			       .frame = f,
			       .memo_prefix = PV_NONE,
			       .memo_stack = PV_NONE,
			       .next = 0};
	memcpy(r + 1, k, n);
	s->rused += units;
	return id;
}

/* Whether record id is the line at k (up to blanks and the newline); *next: the next line. */
static inline __attribute__((always_inline)) int
rec_match(const struct pstate *s, uint32_t id, const char *k, const char *e, const char **next)
{
	const struct line_rec *r = REC(s, id);
	if ((size_t)(e - k) < r->len || memcmp(r + 1, k, r->len) != 0)
		return 0;
	const char *q = k + r->len;
	if (q < e && *q == '\n') {
		*next = q + 1;
		return 1;
	}
	while (q < e && (*q == ' ' || *q == '\t' || *q == '\r'))
		q++;
	if (q < e && *q != '\n')
		return 0;
	*next = q < e ? q + 1 : e;
	return 1;
}

/*
 * A frame line at p seen before, found without looking for its end first: the record that
 * followed the previous line last time, else the hash of its first bytes. Returns the start of
 * the next line, or NULL when the line is not a known frame line.
 */
static const char *frame_line_fast(struct pstate *s, const char *p, const char *e)
{
	const char *k = p;
	const char *next;
	uint32_t id = 0;
	if (s->prev_rec) {
		uint32_t nx = REC(s, s->prev_rec)->next;
		if (nx && rec_match(s, nx, k, e, &next))
			id = nx;
	}
	if (!id) {
		size_t m = (size_t)(e - k) < LINE_KEY ? (size_t)(e - k) : LINE_KEY;
		const char *nl = memchr(k, '\n', m);
		if (nl) {
			while (nl > k && (nl[-1] == ' ' || nl[-1] == '\t' || nl[-1] == '\r'))
				nl--;
			m = (size_t)(nl - k);
		}
		uint64_t h = line_hash(k, m);
		uint32_t h32 = (uint32_t)h;
		for (uint32_t i = h32 & s->lmask;; i = (i + 1) & s->lmask) {
			uint64_t v = s->lslot[i];
			if (!v)
				return NULL;
			if ((uint32_t)(v >> 32) == h32 && rec_match(s, (uint32_t)v, k, e, &next)) {
				id = (uint32_t)v;
				if (s->prev_rec)
					REC(s, s->prev_rec)->next = id;
				break;
			}
		}
	}
	const struct line_rec *r = REC(s, id);
	push_frame(s, r->frame, id);
	s->prev_rec = id;
	if (r->next) {
		/* the line likely to come next: its record and text into the cache meanwhile */
		const char *q = (const char *)REC(s, r->next);
		__builtin_prefetch(q);
		__builtin_prefetch(q + 64);
		__builtin_prefetch(q + 128);
	}
	return next;
}

/*
 * A frame line from p to t (its trimmed end). The same call site prints the same line, so the
 * line's text (from the address on) finds its frame without parsing it again; inlined frames
 * (whose module comes from the next line) and lines past 64 KiB always take the long way.
 * Returns 0 when the line is not a frame.
 */
static int frame_line(struct pstate *s, const char *p, const char *t)
{
	const char *k = p; /* the whole line: the same call site prints the same bytes */
	size_t n = (size_t)(t - k);
	uint64_t h = 0;
	uint32_t i = 0;
	if (n <= 65536) {
		h = line_hash(k, n);
		uint32_t h32 = (uint32_t)h;
		i = h32 & s->lmask;
		for (;;) {
			uint64_t v = s->lslot[i];
			if (!v)
				break;
			if ((uint32_t)(v >> 32) == h32) {
				const struct line_rec *r = REC(s, (uint32_t)v);
				if (r->len == n && memcmp(r + 1, k, n) == 0) {
					push_frame(s, r->frame, (uint32_t)v);
					if (s->prev_rec)
						REC(s, s->prev_rec)->next = (uint32_t)v;
					s->prev_rec = (uint32_t)v;
					return 1;
				}
			}
			i = (i + 1) & s->lmask;
		}
	}
	struct frame_text ft;
	if (!parse_frame(p, t, &ft))
		return 0;
	uint32_t before = s->nframes;
	add_frame(s, &ft);
	s->prev_rec = 0;
	if (n > 65536 || ft.inlined || s->nframes != before + 1 || s->frames[before] == PV_NONE)
		return 1;
	uint32_t id = rec_add(s, h, k, n, s->frames[before]);
	if (!id)
		return 1;
	s->prev_rec = id;
	s->frame_rec[before] = id;
	s->lslot[i] = ((uint64_t)(uint32_t)h << 32) | id;
	if (++s->lcount * 2 > s->lmask)
		lslot_grow(s);
	return 1;
}

/* ---------------------------------------------------------------- threads and events */

static uint64_t thread_hash(const char *c, size_t n, int64_t pid, int64_t tid)
{
	return hash_bytes(c, n) ^ hash_u64((uint64_t)tid * 0x9e3779b97f4a7c15ULL + (uint64_t)pid);
}

static int tmap_grow(struct pstate *s)
{
	uint32_t ncap = s->tmap ? (s->tmask + 1) * 2 : 256;
	uint32_t *n = pv_calloc(ncap, sizeof(*n));
	if (!n)
		return oom(s);
	for (uint32_t i = 0; i < s->nts; i++) {
		const struct tstate *t = &s->ts[i];
		const char *c = pv_str(s->b->p, t->comm);
		uint32_t j = (uint32_t)thread_hash(c, strlen(c), t->pid, t->tid) & (ncap - 1);
		while (n[j])
			j = (j + 1) & (ncap - 1);
		n[j] = i + 1;
	}
	pv_free(s->tmap);
	s->tmap = n;
	s->tmask = ncap - 1;
	return 0;
}

static int same_task(const struct pstate *s, const struct tstate *t, const struct header *h,
		     size_t cn)
{
	const struct pv_strings *st = &s->b->p->strings;
	return t->tid == h->tid && t->pid == h->pid && st->size[t->comm] == cn &&
	       memcmp(st->ptr[t->comm], h->comm, cn) == 0;
}

/* The thread state of a header's task; UINT32_MAX on error. */
static uint32_t task_of(struct pstate *s, const struct header *h)
{
	size_t cn = (size_t)(h->comm_end - h->comm);
	if (s->nts && same_task(s, &s->ts[s->last_ts], h, cn))
		return s->last_ts;
	if (!s->tmap && tmap_grow(s))
		return UINT32_MAX;
	uint32_t j = (uint32_t)thread_hash(h->comm, cn, h->pid, h->tid) & s->tmask;
	for (;;) {
		uint32_t v = s->tmap[j];
		if (!v)
			break;
		if (same_task(s, &s->ts[v - 1], h, cn))
			return s->last_ts = v - 1;
		j = (j + 1) & s->tmask;
	}
	struct pv_builder *b = s->b;
	pv_str_ix comm = builder_str(b, h->comm, cn);
	if (b->status || ENSURE(s, s->ts, s->tscap, (uint64_t)s->nts + 1))
		return UINT32_MAX;
	pv_thread_ix th = builder_thread(b, comm, h->pid, h->tid, 0);
	if (th == PV_NONE)
		return UINT32_MAX;
	uint32_t i = s->nts++;
	s->ts[i] = (struct tstate){.pid = h->pid, .tid = h->tid, .comm = comm, .th = th};
	s->tmap[j] = i + 1;
	if (s->nts * 2 > s->tmask && tmap_grow(s))
		return UINT32_MAX;
	return s->last_ts = i;
}

static int is_modifier_set(const char *p, const char *e)
{
	if (p == e || e - p > 12)
		return 0;
	for (; p < e; p++)
		if (!strchr("ukhHGIpPSDWeb", *p))
			return 0;
	return 1;
}

/* The event of a header (the name without its final ':'); UINT32_MAX on error. */
static uint32_t event_of(struct pstate *s, const char *n, const char *ne)
{
	size_t len = (size_t)(ne - n);
	const struct pv_strings *st = &s->b->p->strings;
	if (s->nev) {
		const struct event *v = &s->ev[s->last_ev];
		if (st->size[v->name] == len && memcmp(st->ptr[v->name], n, len) == 0)
			return s->last_ev;
	}
	for (uint32_t i = 0; i < s->nev; i++)
		if (st->size[s->ev[i].name] == len && memcmp(st->ptr[s->ev[i].name], n, len) == 0)
			return s->last_ev = i;
	if (ENSURE(s, s->ev, s->evcap, (uint64_t)s->nev + 1))
		return UINT32_MAX;
	struct event v = {.name = builder_str(s->b, n, len), .metric = PV_NONE, .kind = EV_SAMPLE};
	if (s->b->status)
		return UINT32_MAX;
	const char *c = memchr(n, ':', len);
	if (has_prefix(n, len, "PERF_RECORD_"))
		v.kind = EV_SIDEBAND;
	else if (c && c > n && !is_modifier_set(c + 1, ne))
		v.kind = EV_TRACEPOINT;
	s->ev[s->nev] = v;
	return s->last_ev = s->nev++;
}

/* The metric of a sample event, made at its first sample. */
static pv_metric_ix metric_of(struct pstate *s, struct event *v, int has_period)
{
	if (v->metric != PV_NONE)
		return v->metric;
	const char *n = pv_str(s->b->p, v->name);
	enum pv_unit u = has_period ? perf_event_unit(n, strlen(n)) : PV_UNIT_COUNT;
	v->metric = builder_metric(s->b, v->name, u);
	if (v->metric == PV_NONE)
		return PV_NONE;
	uint32_t nm = s->b->p->metrics.len;
	if (nm > s->wcap) {
		uint32_t old = s->wcap;
		if (ENSURE(s, s->weights, s->wcap, nm))
			return PV_NONE;
		memset(s->weights + old, 0, (size_t)(s->wcap - old) * sizeof(*s->weights));
	}
	return v->metric;
}

/* ---------------------------------------------------------------- samples */

/* The stack of the frames read (leaf first), sharing the thread's previous path. */
static pv_stack_ix build_stack(struct pstate *s, struct tstate *t)
{
	uint32_t n = s->nframes;
	if (n == 0)
		return PV_NONE;
	if (n > t->pcap) {
		uint32_t nc = grow_cap(t->pcap, n);
		if (!nc || COL_GROW(t->pf, nc) || COL_GROW(t->ps, nc)) {
			oom(s);
			return PV_NONE;
		}
		t->pcap = nc;
	}
	const pv_frame_ix *f = s->frames;
	uint32_t common = 0, lim = n < t->plen ? n : t->plen;
	while (common < lim && t->pf[common] == f[n - 1 - common])
		common++;
	pv_stack_ix st = common ? t->ps[common - 1] : PV_NONE;
	for (uint32_t i = common; i < n; i++) {
		pv_frame_ix fr = f[n - 1 - i];
		uint32_t rid = s->frame_rec[n - 1 - i];
		if (rid) {
			/* the call site's last stack, when it had the same callers */
			struct line_rec *r = REC(s, rid);
			if (r->memo_prefix == st && r->memo_stack != PV_NONE) {
				st = r->memo_stack;
			} else {
				r->memo_prefix = st;
				st = builder_stack(s->b, st, fr);
				r->memo_stack = st;
			}
		} else {
			st = builder_stack(s->b, st, fr);
		}
		t->pf[i] = fr;
		t->ps[i] = st;
	}
	t->plen = n;
	return st;
}

/* Ends the sample being read: a sample, or a marker for a tracepoint. */
static void finish_sample(struct pstate *s)
{
	s->skipping = 0;
	s->prev_frame = 0;
	if (!s->active)
		return;
	s->active = 0;
	struct pv_builder *b = s->b;
	/* the leaf's address (its line's), before inlined frames are resolved */
	uint64_t leaf_addr = PV_ADDR_NONE;
	if (s->nframes && !frame_addr(s, 0, &leaf_addr))
		leaf_addr = s->has_first_addr ? s->first_addr : PV_ADDR_NONE;
	if (s->npend)
		resolve_inline(s);
	if (b->status)
		return;
	struct event *v = &s->ev[s->cur_ev];
	struct tstate *t = &s->ts[s->cur_ts];
	pv_stack_ix st = build_stack(s, t);
	if (s->cur_time != PV_TIME_NONE && s->cur_time < s->min_time)
		s->min_time = s->cur_time;
	if (v->kind == EV_TRACEPOINT) {
		struct raw_marker m = {
		    .name = v->name,
		    .category = PV_NONE,
		    .phase = PV_PHASE_INSTANT,
		    .start_ns = s->cur_time,
		    .end_ns = PV_TIME_NONE,
		    .thread = t->th,
		    .payload = s->cur_payload,
		    .cause_stack = st,
		    .cause_time_ns = st == PV_NONE ? PV_TIME_NONE : s->cur_time,
		};
		builder_marker(b, &m);
		s->nmarkers++;
		return;
	}
	pv_metric_ix m = metric_of(s, v, s->cur_weight >= 0);
	if (m == PV_NONE)
		return;
	s->weights[m] = s->cur_weight >= 0 ? s->cur_weight : 1;
	builder_sample(b, t->th, st, s->cur_time, s->weights);
	s->weights[m] = 0;
	s->nsamples++;
	if (leaf_addr != PV_ADDR_NONE && (s->addr_col || (s->addr_col = builder_samples_addr(b)))) {
		/* the column may move as samples grow: taken again from the profile */
		b->p->samples.addr[b->p->samples.len - 1] = leaf_addr;
		s->nr_addrs++;
	}
}

static void note_bad(struct pstate *s, uint64_t lineno, const char *at)
{
	if (!s->bad_lines++) {
		s->first_bad_line = lineno;
		s->first_bad_at = at;
	}
}

/* "# perf version : 5.11.22" in the header block. */
static void comment_line(struct pstate *s, const char *p, const char *e)
{
	static const char key[] = "# perf version :";
	if (!s->perf_version && e - p > (ptrdiff_t)sizeof(key) &&
	    memcmp(p, key, sizeof(key) - 1) == 0) {
		const char *v = text_skip_blanks(p + sizeof(key) - 1, e);
		if (v < e)
			s->perf_version = builder_str(s->b, v, (size_t)(e - v));
	}
}

/*
 * A srcline line (perf script -F +srcline): "  " then "file.c:123", "??:0", ":0" or
 * "dso[addr]", right after a frame line; 2 when it ends in " (inlined)" (with --inline: the
 * frame before it is an inlined one).
 */
static int is_srcline(const char *p, const char *e)
{
	if (e - p < 3 || p[0] != ' ' || p[1] != ' ' || p[2] == ' ' || p[2] == '\t')
		return 0;
	return e - p > 12 && memcmp(e - 10, " (inlined)", 10) == 0 ? 2 : 1;
}

/*
 * The frame just read gets the srcline [p, e) (is_srcline's kind k: 2 inlined): "FILE:LINE"
 * is its file and line; "??:0", ":0" and "dso[addr]" (no debug information) leave it as it is.
 */
static void srcline(struct pstate *s, const char *p, const char *e, int k)
{
	if (k == 2) {
		mark_inlined(s);
		e -= 10;
	}
	p += 2;
	const char *colon = e;
	while (colon > p && colon[-1] >= '0' && colon[-1] <= '9')
		colon--;
	uint64_t line = 0;
	for (const char *d = colon; d < e && line <= UINT32_MAX; d++)
		line = line * 10 + (uint64_t)(*d - '0');
	if (colon == e || colon - p < 2 || colon[-1] != ':' || line == 0 || line > UINT32_MAX ||
	    (colon - p == 3 && memcmp(p, "??", 2) == 0))
		return;
	const char *file_end = colon - 1;
	if (!s->nframes || !s->active)
		return;
	uint32_t i = s->nframes - 1;
	if (s->frames[i] != PV_NONE) {
		uint64_t a;
		if (!frame_addr(s, i, &a))
			a = PV_ADDR_NONE;
		s->frames[i] = frame_at_line(s, s->frames[i], p, file_end, (uint32_t)line, a);
	} else if (s->npend && s->pend[s->npend - 1].at == i) {
		struct pending_inline *q = &s->pend[s->npend - 1];
		q->file = p;
		q->file_end = file_end;
		q->line = (uint32_t)line;
	} else {
		return;
	}
	s->srclines_kept++;
}

/* Starts a sample at a header read from a line ending at e. */
static void start_sample(struct pstate *s, const struct header *h, const char *e, uint64_t lineno)
{
	static const char samples[] = "samples";
	uint32_t ev;
	if (h->event)
		ev = event_of(s, h->event, h->event_end);
	else
		ev = event_of(s, samples, samples + sizeof(samples) - 1);
	if (ev == UINT32_MAX)
		return;
	struct event *v = &s->ev[ev];
	if (v->kind == EV_SIDEBAND) {
		s->sideband++;
		s->skipping = 1; /* lines that follow it, if any, are not frames of a sample */
		return;
	}
	uint32_t t = task_of(s, h);
	if (t == UINT32_MAX)
		return;
	s->active = 1;
	s->cur_ts = t;
	s->cur_ev = ev;
	s->cur_time = h->time_ns;
	s->cur_weight = h->period;
	s->cur_payload = 0;
	s->nframes = 0;
	s->npend = 0;
	s->prev_rec = 0;
	s->has_first_addr = 0;
	if (v->kind == EV_TRACEPOINT) {
		/* without call chains (-G) the sample's frame follows the payload */
		const char *pe = e;
		struct frame_text ft;
		for (const char *q = h->rest; q < e;) {
			const char *qe = token_end(q, e);
			const char *x = q;
			while (x < qe && text_is_hex(*x))
				x++;
			if (x == qe && qe - q >= 4 && parse_frame(q, e, &ft) && ft.dso &&
			    !memchr(ft.sym, '=', (size_t)(ft.sym_end - ft.sym))) {
				add_frame(s, &ft);
				pe = q;
				while (pe > h->rest && text_is_blank(pe[-1]))
					pe--;
				break;
			}
			q = text_skip_blanks(qe, e);
		}
		s->cur_payload = ps_payload_json(s, h->rest, pe);
		return;
	}
	if (s->interval == 0 && h->period > 0) {
		const char *n = pv_str(s->b->p, v->name);
		if (perf_event_unit(n, strlen(n)) == PV_UNIT_NS)
			s->interval = h->period;
	}
	if (h->rest < e) {
		/*
		 * without call chains the sample's own frame ends the header line; a bare number
		 * there is another field (-F +addr: the data address), not a frame
		 */
		struct frame_text ft;
		if (parse_frame(h->rest, e, &ft) && (ft.sym < ft.sym_end || ft.dso)) {
			add_frame(s, &ft);
		} else if (!s->header_text++) {
			s->first_header_text = lineno;
		}
	}
}

/* ---------------------------------------------------------------- probe */

static const char *trim_end(const char *p, const char *e)
{
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return e;
}

/* The bytes of a line the probe reads: a longer line (a tracepoint's payload, a long symbol) is
 * read from its start, up to its last blank inside them. */
#define PROBE_SPAN 4096

/*
 * The next line from p for the probe, its end (before '\n') in *le and its text to read in *t.
 * Returns 1 when the line is longer than PROBE_SPAN (its end not looked for yet).
 */
static int probe_line(const char *p, const char *fe, const char **le, const char **t)
{
	size_t span = (size_t)(fe - p) < PROBE_SPAN ? (size_t)(fe - p) : PROBE_SPAN;
	const char *n = memchr(p, '\n', span);
	if (n || span == (size_t)(fe - p)) {
		*le = n ? n : fe;
		*t = trim_end(p, *le);
		return 0;
	}
	const char *c = p + span;
	while (c > p && !text_is_blank(c[-1]))
		c--;
	*le = p + span;
	*t = trim_end(p, c);
	return 1;
}

/* Whether a header's event is a tracepoint's ("sched:sched_switch") with a payload after it. */
static int is_tracepoint(const struct header *h, const char *t)
{
	return h->event && h->rest < t && memchr(h->event, ':', (size_t)(h->event_end - h->event));
}

/* What the probe has seen so far. */
struct probe_count {
	int headers, frames, bad, lines, tracepoints;
	int prev; /* in a sample */
	int shape;
};

/* Counts the line [p, t) (trimmed, not blank, not a comment). Returns 0 when it is other text. */
static int probe_count(struct probe_count *c, const char *p, const char *t)
{
	struct frame_text ft;
	struct header h;
	c->lines++;
	if (*p == '\t' && c->prev && parse_frame(p, t, &ft)) {
		c->frames++;
	} else if (parse_header(p, t, c->shape, &h)) {
		c->headers++;
		c->shape = h.shape;
		c->prev = 1;
		if (h.rest < t && parse_frame(h.rest, t, &ft))
			c->frames++;
		else if (is_tracepoint(&h, t))
			c->tracepoints++;
	} else if (c->prev && parse_frame(p, t, &ft)) {
		c->frames++;
	} else if (c->prev && is_srcline(p, t)) {
		/* "  file.c:12" after a frame (-F +srcline) */
	} else {
		c->bad++;
		c->prev = 0;
		return 0;
	}
	return 1;
}

/*
 * Up to 200 lines starting in the first 64 KiB (the tails of lines longer than PROBE_SPAN not
 * counted): sample headers, each followed by frame lines (or with its frame on the header line)
 * or all of them tracepoints (perf record -e without -g), comments and blank lines, few other
 * lines.
 */
static int probe(const struct pv_input *in)
{
	const char *p = in->data, *fe = in->data + in->len;
	const char *e = in->data + (in->len < 65536 ? in->len : 65536);
	struct probe_count c = {0};
	while (p < e && c.lines < 200) {
		const char *le, *t;
		int longline = probe_line(p, fe, &le, &t);
		if (t == p || *p == '#') {
			/* not counted: a "# ========" block may be long */
			c.prev = 0;
		} else if (!probe_count(&c, p, t)) {
			/* no more lines could pass the test below (each adds at most a header and a
			 * frame, the cut line one bad less and one header more): other text (folded
			 * stacks, binary data) is turned down after 68 lines, not 200 */
			if ((c.bad - 1) * 4 > c.headers + c.frames + 1 + 2 * (200 - c.lines))
				return 0;
			if (longline) /* other text is not searched for its end */
				break;
		}
		if (longline) {
			/* the rest of a long line is skipped, not counted in the 64 KiB */
			const char *n = text_line_end(le, fe);
			e = (size_t)(fe - e) > (size_t)(n - le) ? e + (n - le) : fe;
			le = n;
		}
		p = le + 1;
	}
	int headers = c.headers, frames = c.frames, bad = c.bad, shape = c.shape;
	/* a file cut inside a sample header ("comm 12 [000] 3.5: 1001" with no event after): the
	 * line read as a header once completed; perf script then, not folded stacks */
	int cut = 0;
	if (bad && input_ends_mid_line(in) && p >= in->data + in->len) {
		const char *ls = in->data + in->len;
		while (ls > in->data && ls[-1] != '\n')
			ls--;
		char line[600];
		size_t n = (size_t)(in->data + in->len - ls);
		struct header h;
		static const char *const ends[] = {": ", " cycles: "};
		for (int k = 0; k < 2 && !cut && n < sizeof(line) - 16 && memchr(ls, ':', n); k++) {
			size_t m = strlen(ends[k]);
			memcpy(line, ls, n);
			memcpy(line + n, ends[k], m);
			cut = parse_header(line, line + n + m, shape, &h);
		}
		if (cut) {
			bad--;
			headers++;
		}
	}
	if (headers == 0 || (frames == 0 && !cut && c.tracepoints < headers))
		return 0;
	if (bad * 4 > headers + frames) /* samples among other text: the importer says where */
		return PROBE_DAMAGED;
	return 50; /* above collapsed's 10: a perf script header is specific */
}

/* A last line without its newline is cut short unless it is a whole frame line, "ADDR SYM (DSO)"
 * (some writers leave the final newline out). */
static int cut_short(const struct pv_input *in)
{
	if (!input_ends_mid_line(in))
		return 0;
	const char *e = in->data + in->len, *p = e;
	while (p > in->data && p[-1] != '\n')
		p--;
	struct frame_text ft;
	const char *t = trim_end(p, e);
	return !(t > p && t[-1] == ')' && parse_frame(p, t, &ft) && ft.dso);
}

/* ---------------------------------------------------------------- import */

/* The error of a file without a sample or marker: its first bad line or content is where. */
static int no_sample(const struct pstate *s, struct pv_error *err, const char *first_content)
{
	const struct pv_input *in = s->in;
	const char *at = s->first_bad_at ? s->first_bad_at : first_content;
	if (s->first_bad_at && s->bad_headers && at == s->first_bad_at && !s->bad_lines)
		return input_fail(in, err, PV_EPARSE, at,
				  "a number in the sample header is out of range, and the "
				  "file has no other sample");
	if (at && input_ends_mid_line(in) && /* at NULL: comments only */
	    !memchr(at, '\n', (size_t)(in->data + in->len - at)))
		return input_fail(in, err, PV_EPARSE, at,
				  "the file ends inside its first sample header (cut short?): "
				  "expected 'comm pid [cpu] time: [period] event:' and its frames");
	return input_fail(in, err, PV_EPARSE, at,
			  "expected a perf script sample: a header 'comm pid [cpu] "
			  "time: [period] event:' and its frames");
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct pstate s = {.b = b, .in = in, .min_time = INT64_MAX};
	if (fc_grow(&s) || lslot_grow(&s)) {
		ps_release(&s);
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	}
	const char *p = in->data, *e = in->data + in->len;
	const char *forget_at = p, *first_content = NULL;
	uint64_t lineno = 0;
	while (p < e && !b->status) {
		if (*p == '\t' && s.active) {
			const char *next = frame_line_fast(&s, p, e);
			if (next) {
				lineno++;
				s.prev_frame = 1;
				p = next;
				continue;
			}
		}
		const char *le = text_line_end(p, e);
		const char *t = trim_end(p, le);
		lineno++;
		struct frame_text ft;
		struct header h;
		int k;
		if (t == p) {
			finish_sample(&s); /* a blank line ends the sample */
		} else if (*p == '\t') {
			/* perf's frame lines start with a tab */
			if (s.active && frame_line(&s, p, t)) {
				s.prev_frame = 1;
			} else if (s.active) {
				note_bad(&s, lineno, p);
			} else if (!s.skipping && !s.stray_frames++) {
				s.first_stray = lineno;
			}
		} else if (*p == '#') {
			comment_line(&s, p, t);
		} else if (parse_header(p, t, s.shape, &h)) {
			if (!first_content)
				first_content = p;
			finish_sample(&s);
			if (p - forget_at > ((ptrdiff_t)8 << 20)) {
				input_forget(in, p);
				forget_at = p;
			}
			if (h.bad_number) {
				if (!s.bad_headers++) {
					s.first_bad_header = lineno;
					if (!s.first_bad_at)
						s.first_bad_at = p;
				}
				s.skipping = 1;
			} else {
				if (!s.shape)
					s.shape = h.shape;
				start_sample(&s, &h, t, lineno);
			}
		} else if (s.active ? frame_line(&s, p, t) : s.skipping && parse_frame(p, t, &ft)) {
			/* simpleperf's frame lines start with spaces */
			s.prev_frame = 1;
		} else if (s.prev_frame && (k = is_srcline(p, t)) != 0) {
			s.srclines++;
			if (s.active)
				srcline(&s, p, t, k);
		} else {
			if (!first_content)
				first_content = p;
			note_bad(&s, lineno, p);
			s.prev_frame = 0;
		}
		p = le + 1;
	}
	finish_sample(&s);
	if (b->status) {
		ps_release(&s);
		return b->status;
	}
	if (s.nsamples == 0 && s.nmarkers == 0) {
		int rc = no_sample(&s, err, first_content);
		ps_release(&s);
		return rc;
	}
	if (b->p->metrics.len == 0)
		builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
	ps_name_processes(&s);
	ps_rebase_times(&s);
	ps_report(&s);
	if (s.perf_version)
		b->p->meta.format_version = s.perf_version;
	if (s.interval > 0)
		b->p->meta.interval_ns = s.interval;
	ps_release(&s);
	return b->status;
}

const struct importer importer_perf_script = {
    .name = "perf-script",
    .description = "Linux perf script text (perf script, simpleperf report-sample)",
    .probe = probe,
    .import = import,
    .cut_short = cut_short,
};
