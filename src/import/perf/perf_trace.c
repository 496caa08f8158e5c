/*
 * perf_trace.c - the tracing data section of perf.data read with libtraceevent (perf_trace.h).
 *
 * Its layout (perf's trace-event-info.c): "\x17\x08\x44tracing", a version ("0.6\0"), one byte
 * (1: big endian), one byte (sizeof(long)), the page size (4 bytes); "header_page\0" and
 * "header_event\0" each with an 8-byte size and that text; the ftrace formats (a 4-byte count,
 * each an 8-byte size and text); the event systems (a 4-byte count, each its name, NUL, a
 * 4-byte count of formats, each an 8-byte size and text); then kallsyms, printk formats and the
 * saved command lines (not needed to print the fields). Numbers in the recording's byte order.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "import/perf/perf_trace.h"

struct perf_trace {
	struct tep_handle *tep;
	struct trace_seq seq;
	bool big;
};

struct rd {
	const unsigned char *p, *e;
	bool big, bad;
};

static uint64_t rd_num(struct rd *r, int n)
{
	if (r->bad || r->e - r->p < n) {
		r->bad = true;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->big ? n - 1 - i : i] << (8 * i);
	r->p += n;
	return v;
}

/* A NUL-terminated string; NULL when cut short. */
static const char *rd_str(struct rd *r)
{
	const unsigned char *z = r->bad ? NULL : memchr(r->p, 0, (size_t)(r->e - r->p));
	if (!z) {
		r->bad = true;
		return NULL;
	}
	const char *s = (const char *)r->p;
	r->p = z + 1;
	return s;
}

/* An 8-byte size and that many bytes: the text in *txt. */
static size_t rd_blob(struct rd *r, const char **txt)
{
	uint64_t n = rd_num(r, 8);
	if (r->bad || n > (uint64_t)(r->e - r->p)) {
		r->bad = true;
		return 0;
	}
	*txt = (const char *)r->p;
	r->p += n;
	return (size_t)n;
}

/* count formats of system sys, each parsed into the handle (a format libtraceevent refuses is
 * left out: its events print nothing). */
static void formats(struct perf_trace *t, struct rd *r, const char *sys, uint32_t count)
{
	for (uint32_t i = 0; i < count && !r->bad; i++) {
		const char *txt = NULL;
		size_t n = rd_blob(r, &txt);
		if (!r->bad)
			tep_parse_event(t->tep, txt, n, sys);
	}
}

struct perf_trace *perf_trace_new(const unsigned char *p, size_t n, const char **why)
{
	const char *w = "not perf's tracing data (no \"\\x17\\x08\\x44tracing\" at its start)";
	struct rd r = {p, p + n, false, false};
	struct perf_trace *t = NULL;
	if (n < 10 || memcmp(p, "\x17\x08\x44tracing", 10) != 0)
		goto out;
	r.p += 10;
	rd_str(&r); /* the version */
	r.big = rd_num(&r, 1) != 0;
	int long_size = (int)rd_num(&r, 1);
	int page_size = (int)rd_num(&r, 4);
	w = "out of memory";
	if (r.bad || !(t = calloc(1, sizeof(*t))) || !(t->tep = tep_alloc()))
		goto out;
	t->big = r.big;
	tep_set_file_bigendian(t->tep, r.big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, long_size);
	tep_set_page_size(t->tep, page_size);
	trace_seq_init(&t->seq);
	const char *txt = NULL;
	for (int i = 0; i < 2; i++) { /* header_page, header_event */
		rd_str(&r);
		size_t hn = rd_blob(&r, &txt);
		if (i == 0 && !r.bad)
			tep_parse_header_page(t->tep, (char *)(uintptr_t)txt, hn, long_size);
	}
	formats(t, &r, "ftrace", (uint32_t)rd_num(&r, 4));
	uint32_t nsys = (uint32_t)rd_num(&r, 4);
	for (uint32_t i = 0; i < nsys && !r.bad; i++) {
		const char *sys = rd_str(&r);
		uint32_t count = (uint32_t)rd_num(&r, 4);
		if (sys)
			formats(t, &r, sys, count);
	}
	w = "the tracing data is cut short";
	if (r.bad)
		goto out;
	return t;
out:
	perf_trace_free(t);
	if (why)
		*why = w;
	return NULL;
}

void perf_trace_free(struct perf_trace *t)
{
	if (!t)
		return;
	if (t->tep) {
		trace_seq_destroy(&t->seq);
		tep_free(t->tep);
	}
	free(t);
}

/*
 * Whether every field of the fields list f lies in the n bytes of raw data (a dynamic field's
 * data too: its 32-bit location, the offset in the low half, the length in the high half,
 * relative to the field's end when TEP_FIELD_IS_RELATIVE): libtraceevent reads them unchecked.
 */
static bool fields_inside(const struct perf_trace *t, const struct tep_format_field *f,
			  const unsigned char *raw, uint32_t n)
{
	for (; f; f = f->next) {
		if (f->offset < 0 || f->size < 0 || (uint64_t)f->offset + (uint64_t)f->size > n)
			return false;
		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size < 4)
			continue;
		struct rd r = {raw + f->offset, raw + n, t->big, false};
		uint32_t loc = (uint32_t)rd_num(&r, 4);
		uint64_t at = loc & 0xffff, size = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			at += (uint64_t)f->offset + (uint64_t)f->size;
		if (at + size > n)
			return false;
	}
	return true;
}

int perf_trace_print(struct perf_trace *t, uint64_t id, const unsigned char *raw, uint32_t n,
		     int cpu, uint64_t time, const char **out, size_t *len)
{
	struct tep_event *ev = id <= INT32_MAX ? tep_find_event(t->tep, (int)id) : NULL;
	if (!ev || !fields_inside(t, ev->format.common_fields, raw, n) ||
	    !fields_inside(t, ev->format.fields, raw, n))
		return -1;
	struct tep_record rec = {
	    .ts = time,
	    .size = (int)n,
	    .cpu = cpu,
	    .data = (void *)(uintptr_t)raw,
	};
	trace_seq_reset(&t->seq);
	tep_print_event(t->tep, &t->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&t->seq);
	*out = t->seq.buffer;
	*len = (size_t)t->seq.len;
	return 0;
}
