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
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "marker/internal.h"

/* |v| * 10^shift rounded to places decimals, half away from zero, grouped by thousands. */
static void put_rounded(double a, int shift, int places, struct pv_text *out)
{
	char buf[400], dig[400];
	int extra = 30;
	int n = snprintf(buf, sizeof(buf), "%.*f", places + shift + extra, a);
	if (n <= 0 || n >= (int)sizeof(buf)) {
		/* beyond any sensible marker value: printf's own rounding will do */
		pv_text_printf(out, "%.*f", places, a * (shift ? 100 : 1));
		return;
	}
	int nd = 0, point = 0;
	for (int i = 0; i < n; i++) {
		if (buf[i] == '.')
			point = nd;
		else
			dig[nd++] = buf[i];
	}
	point += shift;
	int keep = point + places; /* digits kept */
	bool up = keep < nd && dig[keep] >= '5';
	int k = keep;
	while (up && k > 0) {
		if (dig[k - 1] == '9') {
			dig[k - 1] = '0';
			k--;
		} else {
			dig[k - 1]++;
			up = false;
		}
	}
	const char *d = dig;
	char one[402];
	if (up) { /* 99.9 -> 100.0 */
		one[0] = '1';
		memcpy(one + 1, dig, (size_t)keep);
		d = one;
		point++;
		keep++;
	}
	int first = 0; /* leading zeros of the integer part, one kept */
	while (first < point - 1 && d[first] == '0')
		first++;
	for (int i = first; i < point; i++) {
		if (i > first && (point - i) % 3 == 0)
			pv_text_put(out, ",", 1);
		pv_text_put(out, &d[i], 1);
	}
	if (places > 0) {
		pv_text_put(out, ".", 1);
		pv_text_put(out, d + point, (size_t)places);
	}
}

void fmt_number(double v, int sig, int maxfrac, bool percent, struct pv_text *out)
{
	if (isnan(v)) {
		pv_text_puts(out, "<invalid>");
		return;
	}
	if (isinf(v)) {
		pv_text_puts(out, v < 0 ? "-∞" : "∞");
	} else if (v == 0) {
		pv_text_put(out, "0", 1);
	} else {
		int left = (int)floor(log10(fabs(v))) + 1 + (percent ? 2 : 0);
		int places = sig - left;
		if (places < 0)
			places = 0;
		else if (places > maxfrac)
			places = maxfrac;
		if (v < 0)
			pv_text_put(out, "-", 1);
		put_rounded(fabs(v), percent ? 2 : 0, places, out);
	}
	if (percent)
		pv_text_put(out, "%", 1);
}

static bool is_int(double v)
{
	return isfinite(v) && v == floor(v);
}

static void fmt_seconds(double ms, int sig, int maxfrac, struct pv_text *out)
{
	fmt_number(ms / 1000, sig, maxfrac, false, out);
	pv_text_put(out, "s", 1);
}

static void fmt_minutes(double ms, int sig, int maxfrac, struct pv_text *out)
{
	double seconds = fmod(ms, 60000);
	fmt_number((ms - seconds) / 60000, sig, 0, false, out);
	pv_text_put(out, "m", 1);
	if (seconds > 0 && maxfrac > 0)
		fmt_seconds(seconds, sig, 0, out);
}

static void fmt_hours(double ms, int sig, int maxfrac, struct pv_text *out)
{
	double minutes = fmod(ms, 3600000);
	fmt_number((ms - minutes) / 3600000, sig, 0, false, out);
	pv_text_put(out, "h", 1);
	if (minutes > 0 && maxfrac > 0)
		fmt_minutes(minutes, sig, 0, out);
}

static void fmt_days(double ms, int sig, int maxfrac, struct pv_text *out)
{
	double hours = fmod(ms, 86400000);
	fmt_number((ms - hours) / 86400000, sig, 0, false, out);
	pv_text_put(out, "d", 1);
	if (hours > 0 && maxfrac > 0)
		fmt_hours(hours, sig, 0, out);
}

void pv_format_timestamp(double t, struct pv_text *out)
{
	const int sig = 5, maxfrac = 3;
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
		pv_text_put(out, "ms", 2);
		return;
	}
	if (t * 1000 >= 1) {
		fmt_number(t * 1000, sig, is_int(t * 1000) ? 0 : maxfrac, false, out);
		pv_text_puts(out, "μs");
		return;
	}
	if (t == 0) {
		pv_text_put(out, "0s", 2);
		return;
	}
	fmt_number(t * 1000 * 1000, sig, is_int(t * 1000 * 1000) ? 0 : maxfrac, false, out);
	pv_text_put(out, "ns", 2);
}

static void fmt_bytes(double b, struct pv_text *out)
{
	if (b < 10000) {
		fmt_number(b, 0, 3, false, out);
		pv_text_put(out, "B", 1);
	} else if (b < 1e6) {
		fmt_number(b / 1e3, 3, 2, false, out);
		pv_text_put(out, "KB", 2);
	} else if (b < 1e9) {
		fmt_number(b / 1e6, 3, 2, false, out);
		pv_text_put(out, "MB", 2);
	} else {
		fmt_number(b / 1e9, 3, 2, false, out);
		pv_text_put(out, "GB", 2);
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

/* String(value) || "(empty)" */
static void fmt_string(const struct jdoc *d, uint32_t n, struct pv_text *out)
{
	size_t before = out->len;
	jn_js_string(d, n, out);
	if (out->len == before)
		pv_text_puts(out, "(empty)");
}

/* "Name (id)" when a thread (tid) or a process (pid) of that id has a name, else "PID: id". */
static void fmt_id(const struct pv_markers *ms, bool tid, const struct jdoc *d, uint32_t n,
		   struct pv_text *out)
{
	double v;
	const struct pv_profile *p = ms ? ms->p : NULL;
	if (p && jn_number(d, n, &v) && is_int(v)) {
		for (uint32_t t = 0; t < p->threads.len; t++) {
			int64_t id = tid ? p->threads.tid[t] : p->threads.pid[t];
			const char *name = pv_str(p, tid ? p->threads.name[t]
							 : p->threads.process_name[t]);
			if (id != PV_ID_NONE && (double)id == v && *name) {
				pv_text_printf(out, "%s (", name);
				jn_js_string(d, n, out);
				pv_text_put(out, ")", 1);
				return;
			}
		}
	}
	pv_text_puts(out, tid ? "TID: " : "PID: ");
	jn_js_string(d, n, out);
}

static void fmt_hex(const struct jdoc *d, uint32_t n, struct pv_text *out)
{
	double v;
	size_t len;
	const char *s = jn_str(d, n, &len);
	if (d->n[n].kind == JSON_STRING && len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		pv_text_put(out, s, len); /* a 64-bit value written as hex text already */
		return;
	}
	if (!jn_number(d, n, &v) || !isfinite(v) || fabs(v) >= 18446744073709551616.0) {
		jn_js_string(d, n, out);
		return;
	}
	double a = fabs(trunc(v));
	pv_text_printf(out, "%s0x%llx", v < 0 && a > 0 ? "-" : "", (unsigned long long)a);
}

/* One value of a simple (not table) kind. */
static void fmt_simple(const struct pv_markers *ms, enum mfmt_kind kind, const struct jdoc *d,
		       uint32_t n, struct pv_text *out)
{
	double v = NAN;
	if (n == JN_NONE || d->n[n].kind == JSON_NULL) {
		pv_text_puts(out, "(empty)");
		return;
	}
	switch (kind) {
	case F_STRING:
	case F_UNIQUE_STRING:
		fmt_string(d, n, out);
		return;
	case F_PID:
	case F_TID:
		fmt_id(ms, kind == F_TID, d, n, out);
		return;
	case F_HEX:
		fmt_hex(d, n, out);
		return;
	case F_LIST:
		if (d->n[n].kind != JSON_ARRAY) {
			jn_js_string(d, n, out);
			return;
		}
		for (uint32_t c = d->n[n].first; c != JN_NONE; c = d->n[c].next) {
			if (c != d->n[n].first)
				pv_text_put(out, ", ", 2);
			fmt_simple(ms, F_STRING, d, c, out);
		}
		return;
	case F_UNKNOWN:
	case F_TABLE:
		jn_js_string(d, n, out);
		return;
	default:
		break;
	}
	jn_number(d, n, &v);
	switch (kind) {
	case F_DURATION: pv_format_timestamp(v, out); break;
	case F_SECONDS: fmt_seconds(v, 5, 3, out); break;
	case F_MILLISECONDS:
		fmt_number(v, 2, 3, false, out);
		pv_text_put(out, "ms", 2);
		break;
	case F_MICROSECONDS:
		fmt_number(v, 2, 3, false, out);
		pv_text_puts(out, "μs");
		break;
	case F_NANOSECONDS:
		fmt_number(v, 3, 4, false, out);
		pv_text_put(out, "ns", 2);
		break;
	case F_BYTES: fmt_bytes(v, out); break;
	case F_INTEGER: fmt_number(v, 0, 0, false, out); break;
	case F_DECIMAL: fmt_number(v, 2, 3, false, out); break;
	case F_PERCENTAGE: fmt_number(v, 2, 1, true, out); break;
	default: break;
	}
}

void mfmt_value(const struct pv_markers *ms, const struct mfmt *f, const struct jdoc *d,
		uint32_t n, struct pv_text *out)
{
	if (f->kind != F_TABLE || n == JN_NONE || d->n[n].kind != JSON_ARRAY) {
		fmt_simple(ms, (enum mfmt_kind)f->kind, d, n, out);
		return;
	}
	/* (label, label),(cell, cell),...: a header row when any column has a label */
	bool header = false;
	for (uint32_t c = 0; c < f->nr_cols; c++)
		header |= f->cols[c].label != NULL;
	bool first_row = true;
	if (header) {
		pv_text_put(out, "(", 1);
		for (uint32_t c = 0; c < f->nr_cols; c++) {
			if (c)
				pv_text_put(out, ", ", 2);
			const char *l = f->cols[c].label;
			pv_text_puts(out, l && *l ? l : "(empty)");
		}
		pv_text_put(out, ")", 1);
		first_row = false;
	}
	for (uint32_t r = d->n[n].first; r != JN_NONE; r = d->n[r].next) {
		if (!first_row)
			pv_text_put(out, ",", 1);
		first_row = false;
		pv_text_put(out, "(", 1);
		if (d->n[r].kind != JSON_ARRAY) {
			jn_js_string(d, r, out);
		} else {
			uint32_t c = 0;
			for (uint32_t x = d->n[r].first; x != JN_NONE; x = d->n[x].next, c++) {
				if (c)
					pv_text_put(out, ", ", 2);
				fmt_simple(ms, c < f->nr_cols ? (enum mfmt_kind)f->cols[c].kind
							      : F_STRING, d, x, out);
			}
		}
		pv_text_put(out, ")", 1);
	}
}
