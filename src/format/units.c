/*
 * units.c - the one rule of how a metric's costs are shown (include/pv/format.h, doc/views.md
 * "Units"): in the unit the metric's name says ("REALTIME (sec)" in seconds, as hpcviewer
 * shows it), else times in ms (us, ns for a whole under 1 ms, 1 us) and other units as they
 * are; and a cost's text in that unit in three forms: exact, k/M/G, and hpcviewer's 1.48e+09.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/sbuf.h"
#include "pv/format.h"

/* A time unit a metric's name may end in, and the nanoseconds in one of it. */
static const struct {
	const char *word;
	const char *name;
	int64_t per;
	uint8_t decimals;
} time_words[] = {
    {"sec", "sec", 1000000000, 6},
    {"s", "sec", 1000000000, 6},
    {"seconds", "sec", 1000000000, 6},
    {"second", "sec", 1000000000, 6},
    {"ms", "ms", 1000000, 3},
    {"msec", "ms", 1000000, 3},
    {"milliseconds", "ms", 1000000, 3},
    {"us", "us", 1000, 3},
    {"usec", "us", 1000, 3},
    {"\xc2\xb5s", "us", 1000, 3},
    {"microseconds", "us", 1000, 3},
    {"ns", "ns", 1, 0},
    {"nsec", "ns", 1, 0},
    {"nanoseconds", "ns", 1, 0},
};

/* The word in the parentheses that end name ("REALTIME (sec)": "sec"), into w; false when the
 * name does not end so or the word is empty, long or has a space. */
static bool name_unit(const char *name, char *w, size_t n)
{
	size_t len = name ? strlen(name) : 0;
	if (len < 3 || name[len - 1] != ')')
		return false;
	const char *open = NULL;
	for (size_t i = len - 1; i-- > 0;)
		if (name[i] == '(') {
			open = name + i;
			break;
		}
	if (!open || (open > name && open[-1] != ' '))
		return false;
	size_t k = (size_t)(name + len - 1 - (open + 1));
	if (k == 0 || k >= n)
		return false;
	for (size_t i = 0; i < k; i++)
		if (isspace((unsigned char)open[1 + i]) || open[1 + i] == '(')
			return false;
	memcpy(w, open + 1, k);
	w[k] = 0;
	return true;
}

void pv_cost_unit(const char *metric, enum pv_unit u, int64_t whole, struct pv_cost_unit *cu)
{
	memset(cu, 0, sizeof(*cu));
	cu->per = 1;
	char w[sizeof(cu->name)];
	if (name_unit(metric, w, sizeof(w))) {
		for (size_t i = 0; i < sizeof(time_words) / sizeof(time_words[0]); i++) {
			if (strcasecmp(w, time_words[i].word) != 0)
				continue;
			snprintf(cu->name, sizeof(cu->name), "%s", time_words[i].name);
			cu->named = true;
			if (u == PV_UNIT_NS) { /* the model's nanoseconds in the name's unit */
				cu->per = time_words[i].per;
				cu->decimals = time_words[i].decimals;
			}
			return;
		}
		if (u != PV_UNIT_NS) { /* "(B)", "(count)", "(cycles)": the values are in it */
			snprintf(cu->name, sizeof(cu->name), "%s", w);
			cu->named = true;
			return;
		}
	}
	if (u != PV_UNIT_NS) {
		snprintf(cu->name, sizeof(cu->name), "%s", pv_unit_name(u));
		return;
	}
	/* the largest of ms, us and ns that keeps the whole at 1 or more (a 63 ns profile is
	 * not all zeros), three decimals (the nanosecond) below ns */
	int64_t a = whole < 0 ? (whole == INT64_MIN ? INT64_MAX : -whole) : whole;
	if (a >= 1000000 || a == 0) {
		snprintf(cu->name, sizeof(cu->name), "ms");
		cu->per = 1000000;
		cu->decimals = 3;
	} else if (a >= 1000) {
		snprintf(cu->name, sizeof(cu->name), "us");
		cu->per = 1000;
		cu->decimals = 3;
	} else {
		snprintf(cu->name, sizeof(cu->name), "ns");
	}
}

double pv_cost_value(const struct pv_cost_unit *cu, int64_t v)
{
	return (double)v / (double)cu->per;
}

/* x, a number of the shown unit, as k/M/G/T with 3 significant digits, or as it is below 1000
 * (3 significant digits). */
static size_t short_text(double x, char *buf, size_t n)
{
	static const char suffix[] = "kMGTPE";
	double a = fabs(x);
	int len;
	if (!isfinite(x)) {
		len = snprintf(buf, n, "%g", x);
	} else if (a < 999.5) {
		len = snprintf(buf, n, "%.3g", x);
	} else {
		int k = 0;
		double q = x / 1000;
		while (fabs(q) >= 999.5 && k + 1 < (int)sizeof(suffix) - 1) {
			q /= 1000;
			k++;
		}
		double b = fabs(q);
		len = snprintf(buf, n,
			       b >= 99.95   ? "%.0f%c"
			       : b >= 9.995 ? "%.1f%c"
					    : "%.2f%c",
			       q, suffix[k]);
	}
	return len < 0 ? 0 : (size_t)len;
}

size_t pv_number_text(double x, enum pv_num_form form, char *buf, size_t n)
{
	int len;
	switch (form) {
	case PV_NUM_SHORT: return short_text(x, buf, n);
	case PV_NUM_SCI: len = snprintf(buf, n, "%.2e", x); break;
	default: len = snprintf(buf, n, "%.6g", x); break;
	}
	return len < 0 ? 0 : (size_t)len;
}

/* len bytes of t into buf of n bytes as snprintf would put them (cut to n - 1 and a NUL);
 * returns len. */
static size_t put_cut(char *buf, size_t n, const char *t, size_t len)
{
	if (n) {
		size_t c = len < n ? len : n - 1;
		memcpy(buf, t, c);
		buf[c] = 0;
	}
	return len;
}

size_t pv_cost_text(const struct pv_cost_unit *cu, int64_t v, enum pv_num_form form, char *buf,
		    size_t n)
{
	if (form != PV_NUM_EXACT)
		return pv_number_text(pv_cost_value(cu, v), form, buf, n);
	/* the digits by hand (a tree prints two costs a row): snprintf's "%" PRId64, or
	 * "%s%" PRIu64 ".%0*" PRIu64 as the exact form below, byte for byte */
	char t[SBUF_U64_MAX + 2 + 256];
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	size_t len = v < 0;
	t[0] = '-';
	if (cu->per <= 1)
		return put_cut(buf, n, t, len + sbuf_u64_text(t + len, a));
	/* exact: whole units and cu->decimals digits, rounded half away from zero, in integers */
	uint64_t per = (uint64_t)cu->per, q = a / per, r = a % per, scale = 1;
	int decimals = cu->decimals;
	for (int i = 0; i < decimals; i++)
		scale *= 10;
	uint64_t frac = (r * scale + per / 2) / per; /* r < per <= 1e9, scale <= 1e9 */
	if (frac == scale) {
		q++;
		frac = 0;
	}
	len += sbuf_u64_text(t + len, q);
	if (decimals) {
		t[len++] = '.';
		for (int i = decimals - 1; i >= 0; i--, frac /= 10)
			t[len + (size_t)i] = (char)('0' + frac % 10);
		len += (size_t)decimals;
	}
	return put_cut(buf, n, t, len);
}

size_t pv_pct_text(double p, char *buf, size_t n)
{
	/*
	 * printf's "%.2f%%" rounds p's exact value at the second decimal, ties to even: the same
	 * as rounding p * 100 to an integer. y, that product in a double, is within 2^-53 y of it
	 * (< 1e-8 here), so y's rounding is p * 100's unless y lies within 1e-6 of a half: then
	 * (and for large or odd values) snprintf itself.
	 */
	double a = fabs(p), y = a * 100.0, f = floor(y), d = y - f;
	if (!(a < 1e6) || fabs(d - 0.5) < 1e-6) {
		int len = snprintf(buf, n, "%.2f%%", p);
		return len < 0 ? 0 : (size_t)len;
	}
	uint64_t hundredths = (uint64_t)f + (d > 0.5);
	char t[SBUF_U64_MAX + 8];
	size_t len = signbit(p) != 0; /* -0.001 and -0.0 print "-0.00" */
	t[0] = '-';
	len += sbuf_u64_text(t + len, hundredths / 100);
	t[len++] = '.';
	t[len++] = (char)('0' + hundredths % 100 / 10);
	t[len++] = (char)('0' + hundredths % 10);
	t[len++] = '%';
	return put_cut(buf, n, t, len);
}

void pv_view_cost_unit(const struct pv_view *v, uint32_t col, struct pv_cost_unit *cu)
{
	if (pv_view_metric_derived(v, col)) { /* its values are its formula's, as they are */
		char b[300];
		pv_cost_unit(pv_view_metric_name(v, col, b, sizeof(b)), PV_UNIT_OTHER, 0, cu);
		if (!cu->named)
			cu->name[0] = 0;
		return;
	}
	const struct pv_profile *p = v->p;
	pv_metric_ix m = v->metrics[col];
	const char *name = m < p->metrics.len ? pv_str(p, p->metrics.name[m]) : "";
	enum pv_unit u = pv_view_metric_unit(v, col);
	/* a statistic of the metric (cfvar: a count) keeps the metric's unit when it has one */
	pv_cost_unit(u == PV_UNIT_COUNT && m < p->metrics.len && p->metrics.unit[m] != u ? ""
											 : name,
		     u, v->whole[col], cu);
}

size_t pv_view_cost_text(const struct pv_view *v, uint32_t col, int64_t x, enum pv_num_form form,
			 char *buf, size_t n)
{
	if (pv_view_metric_derived(v, col)) {
		if (form == PV_NUM_EXACT || x == PV_VALUE_NONE)
			return pv_view_value_text(v, col, x, false, buf, n);
		return pv_number_text(pv_view_value(v, col, x), form, buf, n);
	}
	struct pv_cost_unit cu;
	pv_view_cost_unit(v, col, &cu);
	return pv_cost_text(&cu, x, form, buf, n);
}

void pv_json_cost_unit(struct pv_json *j, const struct pv_cost_unit *cu)
{
	pv_json_object(j);
	pv_json_kstr(j, "unit", cu->name);
	pv_json_kint(j, "per", cu->per);
	pv_json_kint(j, "decimals", cu->decimals);
	pv_json_kbool(j, "named", cu->named);
	pv_json_end(j);
}
