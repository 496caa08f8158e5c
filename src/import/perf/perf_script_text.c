/*
 * perf_script_text.c - the perf script importer's parts off the per-line path (perf_script.c
 * reads the events): the module of a frame's "(dso)" group, a tracepoint's payload as JSON, and
 * the end of the import (process names, the time zero, the report, the tables released).
 */
#include <stdio.h>
#include <string.h>

#include "base/text.h"
#include "import/perf/perf_script.h"
#include "import/symbols.h"

static enum pv_module_kind module_kind(const char *d, size_t n, const char *base, size_t bn)
{
	if (n && d[0] == '[') {
		if (has_prefix(d, n, "[kernel.") || has_prefix(d, n, "[guest.kernel"))
			return PV_MODULE_KERNEL;
		if (has_prefix(d, n, "[JIT]") || has_prefix(d, n, "[jit"))
			return PV_MODULE_JIT;
		if (has_prefix(d, n, "[vdso") || has_prefix(d, n, "[vsyscall") ||
		    has_prefix(d, n, "[vectors") || has_prefix(d, n, "[sigpage"))
			return PV_MODULE_LIBRARY;
		if (has_prefix(d, n, "[heap") || has_prefix(d, n, "[stack") ||
		    has_prefix(d, n, "[anon") || has_prefix(d, n, "[uprobes"))
			return PV_MODULE_UNKNOWN;
		return PV_MODULE_KERNEL; /* a kernel module: "[nf_conntrack]" */
	}
	if (has_prefix(base, bn, "vmlinux") || has_suffix(base, bn, ".ko") ||
	    memmem_n(base, bn, ".ko."))
		return PV_MODULE_KERNEL;
	if ((has_prefix(base, bn, "perf-") && memmem_n(base, bn, ".map")) ||
	    has_prefix(base, bn, "jitted-") || has_prefix(d, n, "//anon") ||
	    has_prefix(d, n, "/memfd:") || has_prefix(d, n, "[JIT]"))
		return PV_MODULE_JIT;
	if (has_suffix(base, bn, ".so") || memmem_n(base, bn, ".so.") ||
	    memmem_n(base, bn, ".so ") || has_suffix(base, bn, ".dll") ||
	    has_suffix(base, bn, ".dylib"))
		return PV_MODULE_LIBRARY;
	return PV_MODULE_BINARY;
}

pv_module_ix perf_module_new(struct pv_builder *b, const char *d, size_t n)
{
	const char *base = d;
	if (!(n && d[0] == '[') && !has_prefix(d, n, "//anon")) {
		for (size_t i = n; i-- > 0;) {
			if (d[i] == '/') {
				base = d + i + 1;
				break;
			}
		}
	}
	size_t bn = (size_t)(d + n - base);
	if (bn == 0) {
		base = d;
		bn = n;
	}
	enum pv_module_kind k = module_kind(d, n, base, bn);
	pv_str_ix name = builder_str(b, base, bn);
	pv_str_ix path = base == d ? 0 : builder_str(b, d, n);
	return builder_module(b, name, path, k);
}

pv_str_ix perf_unknown_name(struct pv_builder *b, pv_module_ix mod)
{
	if (mod == PV_NONE)
		return builder_str(b, "[unknown]", 9);
	const char *mn = pv_str(b->p, b->p->modules.name[mod]);
	return mn[0] == '[' ? b->p->modules.name[mod] : builder_strf(b, "[%s]", mn);
}

/* The module of a dso text; PV_NONE for "[unknown]" or none. */
/* The unit of an event's metric: time for the clocks, cycles, instructions, else a count. */
enum pv_unit perf_event_unit(const char *n, size_t len)
{
	/* the event name without a PMU ("cpu_core/cycles/") and modifiers */
	const char *p = n, *e = n + len;
	const char *c = memchr(p, ':', len);
	if (c)
		e = c;
	if (e > p && e[-1] == '/') {
		e--;
		const char *sl = p;
		for (const char *q = p; q < e; q++)
			if (*q == '/')
				sl = q + 1;
		p = sl;
	}
	size_t m = (size_t)(e - p);
	if ((m == 9 && memcmp(p, "cpu-clock", 9) == 0) ||
	    (m == 10 && memcmp(p, "task-clock", 10) == 0))
		return PV_UNIT_NS;
	if (m >= 6 && memcmp(p + m - 6, "cycles", 6) == 0)
		return PV_UNIT_CYCLES;
	if (m == 12 && memcmp(p, "instructions", 12) == 0)
		return PV_UNIT_INSTRUCTIONS;
	return PV_UNIT_COUNT;
}

pv_module_ix ps_module_of(struct pstate *s, const char *d, const char *de)
{
	if (!d || de == d)
		return PV_NONE;
	size_t n = (size_t)(de - d);
	if (n == s->last_dso_len && s->last_dso && memcmp(d, s->last_dso, n) == 0)
		return s->last_mod;
	if (n == 9 && memcmp(d, "[unknown]", 9) == 0)
		return PV_NONE;
	struct pv_builder *b = s->b;
	pv_str_ix raw = builder_str(b, d, n);
	if (b->status)
		return PV_NONE;
	uint32_t m = u64map_get(&s->dso_map, raw);
	if (m == UINT32_MAX) {
		m = perf_module_new(b, d, n);
		if (m == PV_NONE || u64map_put(&s->dso_map, raw, m)) {
			oom(s);
			return PV_NONE;
		}
	}
	s->last_dso = b->p->strings.ptr[raw];
	s->last_dso_len = (uint32_t)n;
	s->last_mod = m;
	return m;
}

const char *ps_name_unknown(struct pstate *s, pv_module_ix mod, const char *a, const char *ae)
{
	struct pv_builder *b = s->b;
	if (b->sym && b->sym->off)
		return NULL;
	const struct pv_profile *p = b->p;
	const char *path = pv_str(p, p->modules.path[mod]);
	/* a file to read: not [vdso] or [anon]; not the kernel, whose addresses move with each boot
	 * (perf script does not print where _text was) */
	if (path[0] != '/' || p->modules.kind[mod] == PV_MODULE_KERNEL)
		return NULL;
	uint64_t off = 0;
	int nd = 0;
	for (const char *c = a; c < ae && nd < 16; c++, nd++)
		off = off << 4 | (uint64_t)text_hex_digit(*c);
	if (!nd)
		return NULL;
	if (!s->z && !(s->z = symz_new(b->sym))) {
		oom(s);
		return NULL;
	}
	uint32_t h = u64map_get(&s->mod_bin, mod);
	if (h == UINT32_MAX) {
		h = symz_binary(s->z, path, NULL, 0);
		if (h == UINT32_MAX || u64map_put(&s->mod_bin, mod, h)) {
			oom(s);
			return NULL;
		}
	}
	if (mod >= s->ncount) {
		uint32_t nc = grow_cap(s->ncount, (uint64_t)mod + 1), old = s->ncount;
		if (!nc || COL_GROW(s->named, nc)) {
			oom(s);
			return NULL;
		}
		memset(s->named + old, 0, (size_t)(nc - old) * sizeof(*s->named));
		s->ncount = nc;
	}
	/* perf's address: an offset in the file; an address still unnamed stays as perf printed
	 * it, counted with why */
	enum symz_status why;
	const char *name = symz_name_at_offset(s->z, h, off, &why);
	if (name) {
		s->named[mod].named++;
	} else {
		s->named[mod].unnamed++;
		s->named[mod].why = why;
	}
	return name;
}

/* ---------------------------------------------------------------- tracepoint payloads */

struct jout {
	struct pv_builder *b;
	struct perf_json *j;
};

static int json_put(struct jout *s, const char *p, size_t n)
{
	struct perf_json *o = s->j;
	if (o->len + n + 1 > o->cap) {
		size_t nc = o->cap ? o->cap : 256;
		while (nc < o->len + n + 1)
			nc *= 2;
		char *j = pv_realloc(o->buf, nc);
		if (!j) {
			if (!s->b->status)
				s->b->status = PV_ENOMEM;
			return -1;
		}
		o->buf = j;
		o->cap = nc;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	return 0;
}

static void json_string(struct jout *s, const char *p, const char *e)
{
	json_put(s, "\"", 1);
	const char *run = p;
	for (; p < e; p++) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		json_put(s, run, (size_t)(p - run));
		char esc[8];
		int n = c == '"'    ? snprintf(esc, sizeof(esc), "\\\"")
			: c == '\\' ? snprintf(esc, sizeof(esc), "\\\\")
				    : snprintf(esc, sizeof(esc), "\\u%04x", c);
		json_put(s, esc, (size_t)n);
		run = p + 1;
	}
	json_put(s, run, (size_t)(p - run));
	json_put(s, "\"", 1);
}

/* A canonical JSON integer: -?(0|[1-9][0-9]*), at most 18 digits. */
static int is_json_int(const char *p, const char *e)
{
	if (p < e && *p == '-')
		p++;
	if (p == e || e - p > 18 || (*p == '0' && e - p > 1))
		return 0;
	for (; p < e; p++)
		if (!text_is_digit(*p))
			return 0;
	return 1;
}

static void json_value(struct jout *s, const char *p, const char *e)
{
	if (is_json_int(p, e))
		json_put(s, p, (size_t)(e - p));
	else
		json_string(s, p, e);
}

/*
 * "k=v k=v ..." into {"k":v,...}: a token without '=' continues the previous value ("comm=Web
 * Content"), "==>" (sched_switch) separates; anything else is {"text":"..."}.
 */
pv_str_ix perf_payload_json(struct pv_builder *b, struct perf_json *j, const char *p, const char *e)
{
	struct jout jo = {b, j}, *s = &jo;
	j->len = 0;
	if (p == e)
		return 0;
	const char *t0 = token_end(p, e);
	const char *eq = memchr(p, '=', (size_t)(t0 - p));
	json_put(s, "{", 1);
	if (!eq || eq == p) {
		json_put(s, "\"text\":", 7);
		json_string(s, p, e);
	} else {
		int first = 1;
		const char *key = NULL, *key_end = NULL, *val = NULL, *val_end = NULL;
		for (const char *t = p; t < e;) {
			const char *te = token_end(t, e);
			const char *q = memchr(t, '=', (size_t)(te - t));
			int sep = te - t == 3 && memcmp(t, "==>", 3) == 0;
			if ((q && q > t) || sep) {
				if (key) {
					if (!first)
						json_put(s, ",", 1);
					first = 0;
					json_string(s, key, key_end);
					json_put(s, ":", 1);
					json_value(s, val, val_end);
				}
				key = NULL;
				if (!sep) {
					key = t;
					key_end = q;
					val = q + 1;
					val_end = te;
				}
			} else if (key) {
				val_end = te; /* the value goes on, blanks included */
			}
			t = text_skip_blanks(te, e);
		}
		if (key) {
			if (!first)
				json_put(s, ",", 1);
			json_string(s, key, key_end);
			json_put(s, ":", 1);
			json_value(s, val, val_end);
		}
	}
	json_put(s, "}", 1);
	if (s->b->status)
		return 0;
	return builder_str(b, j->buf, j->len);
}

pv_str_ix ps_payload_json(struct pstate *s, const char *p, const char *e)
{
	return perf_payload_json(s->b, &s->json, p, e);
}

/* ---------------------------------------------------------------- the end of the import */

void ps_release(struct pstate *s)
{
	for (uint32_t i = 0; i < s->nts; i++) {
		pv_free(s->ts[i].pf);
		pv_free(s->ts[i].ps);
	}
	pv_free(s->ts);
	pv_free(s->tmap);
	pv_free(s->fc_raw);
	pv_free(s->lslot_raw);
	for (uint32_t i = 0; i < s->nrchunk; i++)
		pv_free(s->rraw[i]);
	pv_free(s->rchunk);
	pv_free(s->rraw);
	u64map_release(&s->dso_map);
	pv_free(s->ev);
	pv_free(s->weights);
	pv_free(s->frames);
	pv_free(s->frame_rec);
	pv_free(s->pend);
	pv_free(s->json.buf);
	symz_free(s->z);
	u64map_release(&s->mod_bin);
	pv_free(s->named);
}

/* Process names: the comm of the thread whose tid is the pid. */
void ps_name_processes(struct pstate *s)
{
	struct pv_builder *b = s->b;
	struct u64map main_comm = {0};
	for (uint32_t i = 0; i < s->nts; i++) {
		const struct tstate *t = &s->ts[i];
		if (t->pid == PV_ID_NONE || t->pid < 0 || t->pid != t->tid || !t->comm)
			continue;
		if (u64map_get(&main_comm, (uint64_t)t->pid) == UINT32_MAX &&
		    u64map_put(&main_comm, (uint64_t)t->pid, t->comm)) {
			oom(s);
			break;
		}
	}
	for (uint32_t i = 0; i < s->nts && !b->status; i++) {
		const struct tstate *t = &s->ts[i];
		if (t->pid == PV_ID_NONE || t->pid < 0)
			continue;
		uint32_t c = u64map_get(&main_comm, (uint64_t)t->pid);
		if (c != UINT32_MAX)
			b->p->threads.process_name[t->th] = c;
	}
	u64map_release(&main_comm);
}

/* Times relative to the earliest sample or marker. */
void ps_rebase_times(struct pstate *s)
{
	if (s->min_time != INT64_MAX)
		perf_rebase_times(s->b, s->min_time);
}

void perf_rebase_times(struct pv_builder *b, int64_t z)
{
	struct pv_profile *p = b->p;
	if (b->status)
		return;
	for (uint32_t i = 0; p->samples.time_ns && i < p->samples.len; i++)
		if (p->samples.time_ns[i] != PV_TIME_NONE)
			p->samples.time_ns[i] -= z;
	for (uint32_t i = 0; i < p->markers.len; i++) {
		if (p->markers.start_ns[i] != PV_TIME_NONE)
			p->markers.start_ns[i] -= z;
		if (p->markers.cause_time_ns[i] != PV_TIME_NONE)
			p->markers.cause_time_ns[i] -= z;
	}
	/* as the file wrote it: microseconds, or nanoseconds (--ns) */
	long long sec = (long long)(z / 1000000000), ns = (long long)(z % 1000000000);
	if (ns % 1000 == 0)
		builder_lossy(b, 1,
			      "absolute times: the profile starts at %lld.%06lld s of perf's clock",
			      sec, ns / 1000);
	else
		builder_lossy(b, 1,
			      "absolute times: the profile starts at %lld.%09lld s of perf's clock",
			      sec, ns);
}

void ps_report(struct pstate *s)
{
	struct pv_builder *b = s->b;
	if (s->bad_lines)
		builder_lossy(
		    b, s->bad_lines,
		    "skipped lines that are neither sample headers nor frames (first at line %llu)",
		    (unsigned long long)s->first_bad_line);
	if (s->bad_headers)
		builder_lossy(
		    b, s->bad_headers,
		    "skipped samples with a number out of range in the header (first at line %llu)",
		    (unsigned long long)s->first_bad_header);
	if (s->stray_frames)
		builder_lossy(b, s->stray_frames,
			      "skipped frame lines outside a sample (first at line %llu)",
			      (unsigned long long)s->first_stray);
	if (s->header_text)
		builder_lossy(b, s->header_text,
			      "sample header text after the event that is not a frame, not kept "
			      "(first at line %llu)",
			      (unsigned long long)s->first_header_text);
	if (s->sideband)
		builder_lossy(b, s->sideband, "side-band records (PERF_RECORD_*) not kept");
	for (uint32_t m = 0; m < s->ncount; m++) {
		const char *path = pv_str(b->p, b->p->modules.path[m]);
		if (!*path)
			path = pv_str(b->p, b->p->modules.name[m]);
		/* perf printed them unnamed too (nothing lost): said only of a binary that named
		 * others, or whose debug file was not used */
		uint32_t h = s->named[m].unnamed ? u64map_get(&s->mod_bin, m) : UINT32_MAX;
		if (h != UINT32_MAX && (s->named[m].named || symz_rejected(s->z, h))) {
			char why[4400];
			builder_lossy(
			    b, s->named[m].unnamed,
			    "distinct addresses perf script printed as [unknown] in %s not "
			    "named: %s",
			    path,
			    symz_why(s->z, h, (enum symz_status)s->named[m].why, why, sizeof(why)));
		}
		if (s->named[m].named)
			builder_lossy(
			    b, s->named[m].named,
			    "distinct addresses perf script printed as [unknown] in %s named from "
			    "this "
			    "machine's binary (its build id unchecked: perf script does not "
			    "print it)",
			    path);
	}
	if (s->srclines > s->srclines_kept)
		builder_lossy(b, s->srclines - s->srclines_kept,
			      "srcline lines without a file and line (??:0, an address): those "
			      "frames have no line");
}
