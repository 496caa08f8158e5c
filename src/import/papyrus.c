/*
 * papyrus.c - Papyrus script profiling logs (Skyrim and Fallout 4, `StartPapyrusScriptProfile`,
 * `StartStackProfiling`, `StartFormProfile`), read the way speedscope's papyrus importer reads
 * them, so the times are the same.
 *
 * Shape: "Stack_N log opened (PC)" (or Script_, Obj_), then lines TIME:EVENT:STACK:?:FORM:NAME
 * (TIME in ms), EVENT PUSH, POP, QUEUE_PUSH, QUEUE_POP, START or STOP, and "Log closed".
 *
 * What becomes what (speedscope's rules, kept to the letter): one thread named after the log;
 * PUSH enters NAME and POP leaves it, under a frame "STACK N" for the Papyrus stack it runs on
 * (a new stack closes the bottom one; a stack frame under a function is closed with it); a POP
 * at the PUSH's time found among the lines of that time is taken at once; a POP of a function
 * not entered is taken as running since the start while nothing else happened, else skipped
 * (a lossy line); frames still open are closed at the last line's time. Every stretch of time
 * is one sample weighing its length as "time" (ns), from the first line's time on: a stretch
 * with no frame open a sample without a stack, as speedscope counts it (its root). QUEUE_PUSH,
 * QUEUE_POP, START and STOP lines are instant markers (speedscope ignores them), their stack and
 * name in the payload; the form a function runs on is not kept (a lossy line).
 *
 * Errors: a first or last line that is not TIME:EVENT:STACK, a time that is not a number, or
 * events going back in time, with the line and column.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/importer.h"

enum pev { EV_PUSH, EV_POP, EV_QUEUE_PUSH, EV_OTHER };

struct pline {
	int64_t at; /* ms from the first line's */
	enum pev ev;
	int64_t stack;
	const char *line, *ev_s, *ev_e, *name, *name_e, *form, *form_e;
	bool done; /* taken by a PUSH's look-ahead */
};

struct pframe {
	pv_frame_ix frame;
	bool is_stack; /* a "STACK N" frame */
	int64_t n;
};

struct pap {
	struct pv_input *in;
	struct pv_error *err;
	struct pv_builder *b;
	pv_thread_ix th;
	struct vec lines;  /* struct pline: a queue of the lines read and not yet taken */
	const char *next;  /* the next line to read */
	bool started;	   /* the first line's time is known */
	int64_t start;	   /* the first line's time */
	struct pline last; /* the last line read */
	struct vec fstack; /* struct pframe */
	pv_stack_ix stack; /* the builder's stack of fstack */
	int64_t last_value, last_event_at;
	struct sbuf tmp;
	uint64_t not_entered, other, forms;
};

static int fail_line(struct pap *s, const struct pline *l, const char *at, const char *what)
{
	return input_fail(s->in, s->err, PV_EPARSE, at ? at : l->line, "%s", what);
}

/* The builder side: a sample for the stretch since the last event, then the new value. */
static int advance(struct pap *s, const struct pline *l, int64_t at)
{
	if (at < s->last_value)
		return fail_line(s, l, NULL,
				 "an event before the one above it (times must not go "
				 "back)");
	/* a stretch with no frame open is a sample without a stack (speedscope's root) */
	if (at > s->last_value) {
		int64_t w = (at - s->last_value) * 1000000, t = s->last_value * 1000000;
		builder_sample(s->b, s->th, s->stack, t, &w);
	}
	s->last_value = at;
	return 0;
}

static int enter_helper(struct pap *s, const struct pline *l, int64_t at, pv_frame_ix f,
			bool is_stack, int64_t n)
{
	int rc = advance(s, l, at);
	if (rc)
		return rc;
	struct pframe *p = vec_push(&s->fstack, sizeof(*p));
	if (!p)
		return pv_error_set(s->err, PV_ENOMEM, "%s: out of memory", s->in->name);
	*p = (struct pframe){f, is_stack, n};
	s->stack = builder_stack(s->b, s->stack, f);
	s->last_event_at = at;
	return 0;
}

static int leave(struct pap *s, const struct pline *l, int64_t at)
{
	for (;;) {
		int rc = advance(s, l, at);
		if (rc)
			return rc;
		s->fstack.len--;
		s->stack = s->stack == PV_NONE ? PV_NONE : s->b->p->stacks.prefix[s->stack];
		s->last_event_at = at;
		/* a stack frame left on top of a function is closed with it, the bottom one not */
		if (s->fstack.len > 1 && VEC(s->fstack, struct pframe)[s->fstack.len - 1].is_stack)
			continue;
		return 0;
	}
}

static pv_frame_ix name_frame(struct pap *s, const char *n, size_t len)
{
	pv_func_ix f = builder_func(s->b, builder_str(s->b, n, len), PV_NONE, PV_NONE, 0);
	return builder_func_frame(s->b, f);
}

static int enter(struct pap *s, const struct pline *l, int64_t at)
{
	/* the innermost STACK frame open: a function of another stack opens its own */
	const struct pframe *fs = VEC(s->fstack, struct pframe);
	int64_t top = INT64_MIN;
	bool any = false;
	for (uint32_t i = s->fstack.len; i-- > 0;)
		if (fs[i].is_stack) {
			top = fs[i].n;
			any = true;
			break;
		}
	int rc;
	if (!any || top != l->stack) {
		if (s->fstack.len == 1 && (rc = leave(s, l, s->last_event_at)))
			return rc;
		char num[32];
		snprintf(num, sizeof(num), "STACK %lld", (long long)l->stack);
		if ((rc = enter_helper(s, l, at, name_frame(s, num, strlen(num)), true, l->stack)))
			return rc;
	}
	return enter_helper(s, l, at, name_frame(s, l->name, (size_t)(l->name_e - l->name)), false,
			    0);
}

static int try_leave(struct pap *s, const struct pline *l)
{
	pv_frame_ix f = name_frame(s, l->name, (size_t)(l->name_e - l->name));
	if (s->fstack.len && VEC(s->fstack, struct pframe)[s->fstack.len - 1].frame == f &&
	    !VEC(s->fstack, struct pframe)[s->fstack.len - 1].is_stack)
		return leave(s, l, l->at);
	if (s->last_event_at == 0) {
		/* running since the start */
		struct pline at0 = *l;
		at0.at = 0;
		int rc = enter(s, &at0, 0);
		return rc ? rc : leave(s, l, l->at);
	}
	s->not_entered++;
	return 0;
}

static void marker(struct pap *s, const struct pline *l)
{
	struct pv_builder *b = s->b;
	sbuf_reset(&s->tmp);
	sbuf_puts(&s->tmp, "{\"type\":\"papyrus\",\"stack\":");
	char num[32];
	snprintf(num, sizeof(num), "%lld", (long long)l->stack);
	sbuf_puts(&s->tmp, num);
	if (l->name) {
		sbuf_puts(&s->tmp, ",\"name\":");
		sbuf_json_string(&s->tmp, l->name, (size_t)(l->name_e - l->name));
	}
	sbuf_puts(&s->tmp, "}");
	struct raw_marker m = {
	    .name = builder_str(b, l->ev_s, (size_t)(l->ev_e - l->ev_s)),
	    .category = PV_NONE,
	    .phase = PV_PHASE_INSTANT,
	    .start_ns = l->at * 1000000,
	    .end_ns = PV_TIME_NONE,
	    .thread = s->th,
	    .payload = builder_str(b, sbuf_str(&s->tmp), s->tmp.len),
	    .cause_stack = PV_NONE,
	    .cause_time_ns = PV_TIME_NONE,
	};
	builder_marker(b, &m);
}

/* parseInt: leading blanks, a sign, digits; false when there are none. */
static bool parse_int(const char *p, const char *e, int64_t *out)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	bool neg = p < e && *p == '-';
	if (p < e && (*p == '-' || *p == '+'))
		p++;
	if (p >= e || !text_is_digit(*p))
		return false;
	int64_t v = 0;
	for (; p < e && text_is_digit(*p); p++)
		if (v > (PV_TIME_MAX / 1000000 - 9) / 10)
			return false;
		else
			v = v * 10 + (*p - '0');
	*out = neg ? -v : v;
	return true;
}

/* Whether speedscope skips the line [p, p + len) before splitting it. */
static bool skipped(const char *p, size_t len)
{
	return !len || text_eq(p, p + len, "Log closed") || memmem(p, len, "log opened", 10);
}

/* The next line [*p, *le) at s->next that speedscope keeps, s->next past it; false at the end. */
static bool next_kept(struct pap *s, const char **p, const char **le)
{
	const char *end = s->in->data + s->in->len;
	while (s->next < end) {
		const char *q = s->next, *e = text_line_end(q, end);
		s->next = e < end ? e + 1 : end;
		size_t len = (size_t)(e - q);
		if (len && q[len - 1] == '\r')
			len--;
		if (!skipped(q, len)) {
			*p = q;
			*le = q + len;
			return true;
		}
	}
	return false;
}

/* Splits [p, le) at its first six ':' into f: how many fields (at most 7). */
static int split(const char *p, const char *le, const char *f[7])
{
	int nf = 0;
	f[nf++] = p;
	for (const char *q = p; q < le && nf < 7; q++)
		if (*q == ':')
			f[nf++] = q + 1;
	return nf;
}

/*
 * Reads the next kept line onto the end of the queue (*got false at the end of the log); 0 or an
 * error. Lines are read as they are taken, so only those of one time are held at once.
 */
static int queue_line(struct pap *s, bool *got)
{
	const char *p, *le, *f[7];
	*got = next_kept(s, &p, &le);
	if (!*got)
		return 0;
	int nf = split(p, le, f);
	struct pline *l = vec_push(&s->lines, sizeof(*l));
	if (!l)
		return pv_error_set(s->err, PV_ENOMEM, "%s: out of memory", s->in->name);
	memset(l, 0, sizeof(*l));
	l->line = p;
	l->ev = EV_OTHER;
	if (nf < 3) /* parseLine's null */
		return 0;
	int64_t at;
	if (!parse_int(p, f[1] - 1, &at))
		return input_fail(s->in, s->err, PV_EPARSE, p,
				  "expected a time in ms at the start of the line");
	if (!s->started)
		s->start = at;
	s->started = true;
	l->at = at - s->start;
	if (l->at > PV_TIME_MAX / 1000000 || l->at < -PV_TIME_MAX / 1000000)
		return input_fail(s->in, s->err, PV_EPARSE, p,
				  "time out of range from the first line's");
	l->ev_s = f[1];
	l->ev_e = f[2] - 1;
	if (!parse_int(f[2], nf > 3 ? f[3] - 1 : le, &l->stack))
		l->stack = INT64_MIN; /* NaN: no stack is ever this one */
	if (nf > 5) {
		l->form = f[4];
		l->form_e = f[5] - 1;
		l->name = f[5];
		l->name_e = nf > 6 ? f[6] - 1 : le;
	}
	if (text_eq(l->ev_s, l->ev_e, "PUSH"))
		l->ev = EV_PUSH;
	else if (text_eq(l->ev_s, l->ev_e, "POP"))
		l->ev = EV_POP;
	else if (text_eq(l->ev_s, l->ev_e, "QUEUE_PUSH"))
		l->ev = EV_QUEUE_PUSH;
	s->last = *l;
	return 0;
}

/* The log's first and last kept lines are event lines (TIME:EVENT:STACK); 0 or an error. */
static int check_ends(struct pap *s)
{
	const char *d = s->in->data, *e = d + s->in->len, *f[7];
	const char *p, *le;
	if (!next_kept(s, &p, &le))
		return input_fail(s->in, s->err, PV_EPARSE, NULL,
				  "no event line (TIME:EVENT:STACK) in the log");
	if (split(p, le, f) < 3)
		return input_fail(s->in, s->err, PV_EPARSE, p,
				  "expected TIME:EVENT:STACK on the log's first line");
	s->next = d;
	/* the last: from the end back, line by line (a final newline ends the last line) */
	const char *q = e > d && e[-1] == '\n' ? e - 1 : e;
	for (;;) {
		const char *b = q;
		while (b > d && b[-1] != '\n')
			b--;
		size_t len = (size_t)(q - b);
		if (len && b[len - 1] == '\r')
			len--;
		if (!skipped(b, len))
			return split(b, b + len, f) < 3
				   ? input_fail(s->in, s->err, PV_EPARSE, b,
						"expected TIME:EVENT:STACK on the log's last line")
				   : 0;
		if (b == d)
			return 0;
		q = b - 1;
	}
}

/*
 * The PUSH line at row i of the queue, entered: a POP of it at the same time, among the lines of
 * that time (read into the queue as needed), is taken at once.
 */
static int take_pop(struct pap *s, uint32_t i)
{
	int rc;
	for (uint32_t k = i + 1;; k++) {
		bool got = true;
		if (k == s->lines.len && (rc = queue_line(s, &got)))
			return rc;
		if (!got)
			return 0;
		const struct pline *l = &VEC(s->lines, struct pline)[i];
		struct pline *lk = &VEC(s->lines, struct pline)[k];
		if (!lk->ev_s || lk->at != l->at)
			return 0;
		if (lk->done)
			continue;
		if (lk->ev == EV_POP && lk->name && lk->stack == l->stack &&
		    l->stack != INT64_MIN && lk->name_e - lk->name == l->name_e - l->name &&
		    memcmp(lk->name, l->name, (size_t)(l->name_e - l->name)) == 0) {
			if ((rc = try_leave(s, lk)))
				return rc;
			VEC(s->lines, struct pline)[k].done = true;
			return 0;
		}
	}
}

/* One line taken from the queue at row i. */
static int take(struct pap *s, uint32_t i)
{
	struct pline l = VEC(s->lines, struct pline)[i];
	if (!l.ev_s || l.done)
		return 0;
	if ((l.ev == EV_PUSH || l.ev == EV_POP) && !l.name) {
		s->other++;
		return 0;
	}
	if (l.form && l.form_e > l.form && l.ev == EV_PUSH)
		s->forms++;
	if (l.ev == EV_PUSH) {
		int rc = enter(s, &l, l.at);
		return rc ? rc : take_pop(s, i);
	}
	if (l.ev == EV_POP)
		return try_leave(s, &l);
	marker(s, &l);
	return 0;
}

static int run(struct pap *s)
{
	struct pv_builder *b = s->b;
	s->next = s->in->data;
	int rc = check_ends(s);
	if (rc)
		return rc;
	/* the thread: "Stack_3185" of "Stack_3185 log opened (PC)" */
	const char *d = s->in->data, *le = text_line_end(d, d + s->in->len);
	const char *sp = memchr(d, ' ', (size_t)(le - d));
	s->th =
	    builder_thread(b, sp ? builder_str(b, d, (size_t)(sp - d)) : builder_cstr(b, "papyrus"),
			   PV_ID_NONE, PV_ID_NONE, 0);
	builder_metric(b, builder_cstr(b, "time"), PV_UNIT_NS);
	b->p->meta.product = builder_cstr(b, "Papyrus");
	s->stack = PV_NONE;
	for (uint32_t head = 0; !b->status; head++) {
		if (head == s->lines.len) { /* all taken: the queue starts again */
			bool got;
			s->lines.len = 0;
			head = 0;
			if ((rc = queue_line(s, &got)))
				return rc;
			if (!got)
				break;
		}
		if ((rc = take(s, head)))
			return rc;
	}
	const struct pline *last = &s->last;
	while (s->fstack.len && !b->status)
		if ((rc = leave(s, last, last->at)))
			return rc;
	builder_lossy(b, s->not_entered,
		      "POP lines of functions not entered, after other events (skipped, as "
		      "speedscope does)");
	builder_lossy(b, s->other, "PUSH and POP lines without a function name (skipped)");
	builder_lossy(b, s->forms, "the forms functions run on (PUSH lines' fifth field)");
	return 0;
}

/* ---- probe and import ---- */

static int probe(const struct pv_input *in)
{
	const char *d = in->data, *e = d + in->len;
	if (!text_starts(d, e, "Stack_") && !text_starts(d, e, "Script_") &&
	    !text_starts(d, e, "Obj_"))
		return 0;
	const char *le = text_line_end(d, e);
	const char *sp = memchr(d, ' ', (size_t)(le - d));
	return sp && text_starts(sp, le, " log opened (PC)") ? 90 : 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct pap s = {.in = in, .err = err, .b = b};
	int rc = run(&s);
	vec_free(&s.lines);
	vec_free(&s.fstack);
	sbuf_release(&s.tmp);
	return rc;
}

const struct importer importer_papyrus = {
    .name = "papyrus",
    .description = "Papyrus script profiling log (Skyrim, Fallout 4)",
    .cut_short = input_ends_mid_line,
    .probe = probe,
    .import = import,
};
