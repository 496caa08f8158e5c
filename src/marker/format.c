/*
 * format.c - marker field formats, rendered as the Firefox Profiler renders them in en-US
 * (src/utils/format-numbers.ts): one locale, ',' between thousands, rounding half away from
 * zero on the exact value of the double (what Intl.NumberFormat does). Bytes are 1000-based, as
 * doc/markers.md's table says.
 *
 * Every number goes through fmt_number, which picks the decimals from significant digits the way
 * formatNumber does, then rounds the exact decimal expansion printf gives (printf alone would
 * round ties to even).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "marker/internal.h"

/*
 * a * 10^shift (a > 0, finite) rounded to places decimals and grouped by thousands, the way
 * Intl.NumberFormat does it: from the shortest decimal digits that read back as the double (so
 * 1.0005 is "1.0005", not 1.000499999...), half away from zero.
 */
static void put_rounded(double a, int shift, int places, struct sbuf *out)
{
	char sd[JS_DIGITS_MAX], dig[720];
	int point, k = js_shortest(a, sd, &point), nd = 0;
	point += shift;
	/* at least one integer digit, and every digit up to the one after the last kept */
	for (int i = point; i < 1 && nd < 400; i++)
		dig[nd++] = '0';
	int lead = nd;
	for (int i = 0; i < k; i++)
		dig[nd++] = sd[i];
	point += lead;
	while (nd < point + places + 1 && nd < (int)sizeof(dig))
		dig[nd++] = '0';
	int keep = point + places; /* digits kept */
	bool up = keep < nd && dig[keep] >= '5';
	for (int i = keep; up && i > 0; i--) {
		if (dig[i - 1] == '9') {
			dig[i - 1] = '0';
		} else {
			dig[i - 1]++;
			up = false;
		}
	}
	if (up) { /* 99.9 -> 100.0: a new first digit */
		memmove(dig + 1, dig, (size_t)keep);
		dig[0] = '1';
		point++;
	}
	int first = 0; /* leading zeros of the integer part, one kept */
	while (first < point - 1 && dig[first] == '0')
		first++;
	for (int i = first; i < point; i++) {
		if (i > first && (point - i) % 3 == 0)
			sbuf_put(out, ",", 1);
		sbuf_put(out, &dig[i], 1);
	}
	if (places > 0) {
		sbuf_put(out, ".", 1);
		sbuf_put(out, dig + point, (size_t)places);
	}
}

void fmt_number(double v, int sig, int maxfrac, bool percent, struct sbuf *out)
{
	if (isnan(v)) {
		sbuf_puts(out, "<invalid>");
		return;
	}
	if (isinf(v)) {
		sbuf_puts(out, v < 0 ? "-∞" : "∞");
	} else if (v == 0) {
		sbuf_put(out, "0", 1);
	} else {
		int left = (int)floor(log10(fabs(v))) + 1 + (percent ? 2 : 0);
		int places = sig - left;
		if (places < 0)
			places = 0;
		else if (places > maxfrac)
			places = maxfrac;
		if (v < 0)
			sbuf_put(out, "-", 1);
		put_rounded(fabs(v), percent ? 2 : 0, places, out);
	}
	if (percent)
		sbuf_put(out, "%", 1);
}

static bool is_int(double v)
{
	return isfinite(v) && v == floor(v);
}

/* JavaScript's Math.round: to the nearest integer, halves up (exact for every double). */
static double js_round(double x)
{
	double r = floor(x);
	return x - r >= 0.5 ? r + 1 : r;
}

static void fmt_seconds(double ms, int sig, int maxfrac, struct sbuf *out)
{
	fmt_number(ms / 1000, sig, maxfrac, false, out);
	sbuf_put(out, "s", 1);
}

/*
 * Minutes, hours and days round to their smallest shown unit first (seconds, minutes, hours), and
 * only then split: 59,999 ms is "1m", never "0m60s"; the remainder shows only when maxfrac > 0.
 */
static void fmt_minutes(double ms, int sig, int maxfrac, struct sbuf *out)
{
	ms = js_round(ms / 1000) * 1000;
	double seconds = fmod(ms, 60000);
	fmt_number((ms - seconds) / 60000, sig, 0, false, out);
	sbuf_put(out, "m", 1);
	if (seconds > 0 && maxfrac > 0)
		fmt_seconds(seconds, sig, 0, out);
}

static void fmt_hours(double ms, int sig, int maxfrac, struct sbuf *out)
{
	ms = js_round(ms / 60000) * 60000;
	double minutes = fmod(ms, 3600000);
	fmt_number((ms - minutes) / 3600000, sig, 0, false, out);
	sbuf_put(out, "h", 1);
	if (minutes > 0 && maxfrac > 0)
		fmt_minutes(minutes, sig, 0, out);
}

static void fmt_days(double ms, int sig, int maxfrac, struct sbuf *out)
{
	ms = js_round(ms / 3600000) * 3600000;
	double hours = fmod(ms, 86400000);
	fmt_number((ms - hours) / 86400000, sig, 0, false, out);
	sbuf_put(out, "d", 1);
	if (hours > 0 && maxfrac > 0)
		fmt_hours(hours, sig, 0, out);
}

void fmt_timestamp(double t, int sig, int maxfrac, struct sbuf *out)
{
	/* the unit that the rounded value reads best in: 59.5 s is already "1m" */
	if (t >= 60 * 1000 - 500) {
		if (t >= 60 * 60 * 1000 - 500) {
			if (t >= 24 * 60 * 60 * 1000 - 30 * 1000)
				fmt_days(t, sig, maxfrac, out);
			else
				fmt_hours(t, sig, maxfrac, out);
		} else {
			fmt_minutes(t, sig, maxfrac, out);
		}
		return;
	}
	if (t >= 1000) {
		fmt_seconds(t, sig, is_int(t / 1000) ? 0 : maxfrac, out);
		return;
	}
	if (t >= 1) {
		fmt_number(t, sig, is_int(t) ? 0 : maxfrac, false, out);
		sbuf_put(out, "ms", 2);
		return;
	}
	if (t * 1000 >= 1) {
		fmt_number(t * 1000, sig, is_int(t * 1000) ? 0 : maxfrac, false, out);
		sbuf_puts(out, "μs");
		return;
	}
	if (t == 0) {
		sbuf_put(out, "0s", 2);
		return;
	}
	fmt_number(t * 1000 * 1000, sig, is_int(t * 1000 * 1000) ? 0 : maxfrac, false, out);
	sbuf_put(out, "ns", 2);
}

void pv_format_timestamp(double t, struct sbuf *out)
{
	fmt_timestamp(t, 5, 3, out);
}

static void fmt_bytes(double b, struct sbuf *out)
{
	if (b < 10000) {
		fmt_number(b, 0, 3, false, out);
		sbuf_put(out, "B", 1);
	} else if (b < 1e6) {
		fmt_number(b / 1e3, 3, 2, false, out);
		sbuf_put(out, "KB", 2);
	} else if (b < 1e9) {
		fmt_number(b / 1e6, 3, 2, false, out);
		sbuf_put(out, "MB", 2);
	} else {
		fmt_number(b / 1e9, 3, 2, false, out);
		sbuf_put(out, "GB", 2);
	}
}

static const struct {
	const char *name;
	enum mfmt_kind kind;
} kinds[] = {
    {"string", F_STRING},
    {"url", F_STRING},
    {"file-path", F_STRING},
    {"sanitized-string", F_STRING},
    {"unique-string", F_UNIQUE_STRING},
    {"flow-id", F_UNIQUE_STRING},
    {"terminating-flow-id", F_UNIQUE_STRING},
    {"duration", F_DURATION},
    {"time", F_DURATION},
    {"seconds", F_SECONDS},
    {"milliseconds", F_MILLISECONDS},
    {"microseconds", F_MICROSECONDS},
    {"nanoseconds", F_NANOSECONDS},
    {"bytes", F_BYTES},
    {"integer", F_INTEGER},
    {"decimal", F_DECIMAL},
    {"percentage", F_PERCENTAGE},
    {"hexadecimal", F_HEX},
    {"pid", F_PID},
    {"tid", F_TID},
    {"list", F_LIST},
};

enum mfmt_kind mfmt_kind_of(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].name) == len && memcmp(kinds[i].name, name, len) == 0)
			return kinds[i].kind;
	return F_UNKNOWN;
}

/* The placeholder of an empty value: "(empty)", nothing when bare (MFMT_BARE). */
static void empty(unsigned how, struct sbuf *out)
{
	if (!(how & MFMT_BARE))
		sbuf_puts(out, "(empty)");
}

/* String(value) || "(empty)" */
static void fmt_string(const struct jdoc *d, uint32_t n, unsigned how, struct sbuf *out)
{
	size_t before = out->len;
	jn_js_string(d, n, out);
	if (out->len == before)
		empty(how, out);
}

/*
 * A string-table index (unique-string, flow-id, terminating-flow-id): the importers put the
 * string itself in the payload, so a string shows as it is, even an empty one; a value that is
 * still a number indexed no string, and shows "(empty)" (getString's fallback).
 */
static void fmt_unique_string(const struct jdoc *d, uint32_t n, unsigned how, struct sbuf *out)
{
	if (d->n[n].kind == JSON_STRING)
		jn_js_string(d, n, out);
	else
		empty(how, out);
}

/* The process of a pid text: its last main thread (a GeckoMain thread), PV_NONE. */
static pv_thread_ix thread_of_pid(const struct pv_profile *p, const char *s, size_t n)
{
	char id[24];
	for (pv_thread_ix x = p->threads.len; x-- > 0;) {
		if (p->threads.pid[x] == PV_ID_NONE ||
		    strcmp(pv_str(p, p->threads.name[x]), "GeckoMain") != 0)
			continue;
		int len = snprintf(id, sizeof(id), "%lld", (long long)p->threads.pid[x]);
		if ((size_t)len == n && memcmp(id, s, n) == 0)
			return x;
	}
	return PV_NONE;
}

/*
 * pid and tid: "Name (id)" when ids are resolved and the id names a thread, else "PID: id" /
 * "TID: id". As in the Firefox Profiler's maps: a tid (a number) names the last thread of that
 * tid, by its friendly name; a pid (a string, as processed profiles write pids) the last main
 * thread of that process. Labels do not resolve (the front end formats them without the maps).
 */
static void fmt_id(const struct pv_markers *ms, bool tid, bool ids, const struct jdoc *d,
		   uint32_t n, struct sbuf *out)
{
	const struct pv_profile *p = ms && ids ? ms->p : NULL;
	pv_thread_ix t = PV_NONE;
	double v;
	if (p && tid && d->n[n].kind == JSON_NUMBER && jn_number(d, n, &v) && is_int(v) &&
	    fabs(v) < 9.2e18) {
		t = thread_of_tid(p, (int64_t)v);
	} else if (p && !tid && d->n[n].kind == JSON_STRING) {
		size_t len;
		const char *s = jn_str(d, n, &len);
		t = thread_of_pid(p, s, len);
	}
	if (t != PV_NONE && ms->friendly) {
		sbuf_addf(out, "%s (", ms->friendly[t]);
		jn_js_string(d, n, out);
		sbuf_put(out, ")", 1);
		return;
	}
	sbuf_puts(out, tid ? "TID: " : "PID: ");
	jn_js_string(d, n, out);
}

/*
 * The Firefox Profiler's formatHexadecimal, '0x' + (value >>> 0).toString(16): the value made a
 * number as JavaScript does (a numeric string, a boolean, an array of one number; anything else
 * NaN), then an unsigned 32-bit integer, truncated and taken modulo 2^32 (NaN and the
 * infinities 0): -1 is 0xffffffff, 2^32 is 0x0, 3.5 is 0x3.
 */
static void fmt_hex(const struct jdoc *d, uint32_t n, struct sbuf *out)
{
	double v = NAN;
	if (d->n[n].kind == JSON_ARRAY) {
		struct sbuf s = {0};
		jn_js_string(d, n, &s);
		if (s.oom || !js_str_number(sbuf_str(&s), s.len, &v))
			v = NAN;
		sbuf_release(&s);
	} else if (!jn_number(d, n, &v)) {
		v = NAN;
	}
	double m = isfinite(v) ? fmod(trunc(v), 4294967296.0) : 0;
	sbuf_addf(out, "0x%" PRIx32, (uint32_t)(m < 0 ? m + 4294967296.0 : m));
}

/* One value of a simple (not table) kind; ids: resolve pid and tid values to names. */
static void fmt_simple(const struct pv_markers *ms, enum mfmt_kind kind, unsigned how,
		       const struct jdoc *d, uint32_t n, struct sbuf *out)
{
	double v = NAN;
	if (n == JN_NONE || d->n[n].kind == JSON_NULL) {
		empty(how, out);
		return;
	}
	switch (kind) {
	case F_STRING: fmt_string(d, n, how, out); return;
	case F_UNIQUE_STRING: fmt_unique_string(d, n, how, out); return;
	case F_PID:
	case F_TID: fmt_id(ms, kind == F_TID, how & MFMT_IDS, d, n, out); return;
	case F_HEX: fmt_hex(d, n, out); return;
	case F_LIST:
		if (d->n[n].kind != JSON_ARRAY) {
			jn_js_string(d, n, out);
			return;
		}
		for (uint32_t c = d->n[n].first; c != JN_NONE; c = d->n[c].next) {
			if (c != d->n[n].first)
				sbuf_put(out, ", ", 2);
			fmt_simple(ms, F_STRING, how, d, c, out);
		}
		return;
	case F_UNKNOWN:
	case F_TABLE: jn_js_string(d, n, out); return;
	default: break;
	}
	jn_number(d, n, &v);
	switch (kind) {
	case F_DURATION: pv_format_timestamp(v, out); break;
	case F_SECONDS: fmt_seconds(v, 5, 3, out); break;
	case F_MILLISECONDS:
		fmt_number(v, 2, 3, false, out);
		sbuf_put(out, "ms", 2);
		break;
	case F_MICROSECONDS:
		fmt_number(v, 2, 3, false, out);
		sbuf_puts(out, "μs");
		break;
	case F_NANOSECONDS:
		fmt_number(v, 3, 4, false, out);
		sbuf_put(out, "ns", 2);
		break;
	case F_BYTES: fmt_bytes(v, out); break;
	case F_INTEGER: fmt_number(v, 0, 0, false, out); break;
	case F_DECIMAL: fmt_number(v, 2, 3, false, out); break;
	case F_PERCENTAGE: fmt_number(v, 2, 1, true, out); break;
	default: break;
	}
}

void mfmt_value(const struct pv_markers *ms, const struct mfmt *f, unsigned how,
		const struct jdoc *d, uint32_t n, struct sbuf *out)
{
	if (f->kind != F_TABLE || n == JN_NONE || d->n[n].kind != JSON_ARRAY) {
		fmt_simple(ms, (enum mfmt_kind)f->kind, how, d, n, out);
		return;
	}
	/* (label, label),(cell, cell),...: a header row when any column has a label */
	bool header = false;
	for (uint32_t c = 0; c < f->nr_cols; c++)
		header |= f->cols[c].label != NULL;
	bool first_row = true;
	if (header) {
		sbuf_put(out, "(", 1);
		for (uint32_t c = 0; c < f->nr_cols; c++) {
			if (c)
				sbuf_put(out, ", ", 2);
			const char *l = f->cols[c].label;
			if (l && *l)
				sbuf_puts(out, l);
			else
				empty(how, out);
		}
		sbuf_put(out, ")", 1);
		first_row = false;
	}
	for (uint32_t r = d->n[n].first; r != JN_NONE; r = d->n[r].next) {
		if (!first_row)
			sbuf_put(out, ",", 1);
		first_row = false;
		sbuf_put(out, "(", 1);
		if (d->n[r].kind != JSON_ARRAY) {
			jn_js_string(d, r, out);
		} else {
			uint32_t c = 0;
			for (uint32_t x = d->n[r].first; x != JN_NONE; x = d->n[x].next, c++) {
				if (c)
					sbuf_put(out, ", ", 2);
				fmt_simple(
				    ms, c < f->nr_cols ? (enum mfmt_kind)f->cols[c].kind : F_STRING,
				    how, d, x, out);
			}
		}
		sbuf_put(out, ")", 1);
	}
}
