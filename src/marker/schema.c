/*
 * schema.c - marker schemas: reading them, labels from their templates, and one marker resolved
 * for display (labels, description, formatted fields).
 *
 * The schema list of the model (meta.marker_schema) is read once per marker set, in either shape
 * Firefox wrote: processed "fields" ({key, label, format, hidden}), or old Gecko "data", whose
 * keyed rows are fields and whose static {label, value} rows are shown as they are (a
 * "Description" row becomes the description). The Firefox Profiler's front-end schemas for IPC,
 * Network and Jank replace the file's of the same name, as its computeCombinedMarkerSchemaList
 * does; lookup is by payload type only, the last schema of a name winning.
 *
 * Label templates are compiled once: the text is split at {...} placeholders as the Firefox
 * Profiler splits it (/{([^}]+)}/), each placeholder trimmed and understood as marker.name,
 * marker.start, marker.end, marker.duration, marker.category, marker.data.KEY or
 * marker.data.KEY ? 'yes' : 'no'. Anything else shows as an empty string and is noted once.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/hash.h"
#include "marker/internal.h"

/* ---- notes ---- */

void markers_note(struct pv_markers *ms, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (uint32_t i = 0; i < ms->nr_notes; i++)
		if (strcmp(ms->notes[i], msg) == 0)
			return;
	char **n = pv_realloc(ms->notes, (ms->nr_notes + 1) * sizeof(*n));
	if (!n)
		return; /* a note lost to memory pressure is not worth failing for */
	ms->notes = n;
	char *s = pv_strdup(msg);
	if (s)
		ms->notes[ms->nr_notes++] = s;
}

/* ---- reading ---- */

static const char *doc_strdup(struct pv_markers *ms, const struct jdoc *d, uint32_t n)
{
	size_t len;
	const char *s = jn_str(d, n, &len);
	return arena_strndup(ms->priv->arena, s, len);
}

/* A string member of obj as an arena copy; NULL when absent or not a string. */
static const char *member_str(struct pv_markers *ms, const struct jdoc *d, uint32_t obj,
			      const char *key)
{
	uint32_t v = jn_get(d, obj, key);
	if (v == JN_NONE || d->n[v].kind != JSON_STRING)
		return NULL;
	return doc_strdup(ms, d, v);
}

/* A field's format: a name, or {type: "table", columns: [{label?, type?}, ...]}. */
static int read_format(struct pv_markers *ms, const struct jdoc *d, uint32_t v, struct mfmt *f,
		       const char *schema, const char *key)
{
	memset(f, 0, sizeof(*f));
	f->name = "";
	f->kind = F_STRING;
	if (v == JN_NONE)
		return 0; /* no format: shown as text */
	if (d->n[v].kind == JSON_STRING) {
		size_t len;
		const char *s = jn_str(d, v, &len);
		f->name = arena_strndup(ms->priv->arena, s, len);
		if (!f->name)
			return PV_ENOMEM;
		f->kind = (uint8_t)mfmt_kind_of(s, len);
		if (f->kind == F_UNKNOWN)
			markers_note(ms,
				     "marker schema '%s': field '%s' has an unknown format '%s' "
				     "(shown raw)",
				     schema, key, f->name);
		return 0;
	}
	uint32_t cols = jn_get(d, v, "columns");
	if (d->n[v].kind != JSON_OBJECT || !jn_is(d, jn_get(d, v, "type"), "table") ||
	    cols == JN_NONE || d->n[cols].kind != JSON_ARRAY) {
		f->kind = F_UNKNOWN;
		markers_note(ms, "marker schema '%s': field '%s' has an unknown format (shown raw)",
			     schema, key);
		return 0;
	}
	f->kind = F_TABLE;
	f->nr_cols = d->n[cols].nkids;
	f->cols = arena_alloc(ms->priv->arena, (f->nr_cols ? f->nr_cols : 1) * sizeof(*f->cols));
	if (!f->cols)
		return PV_ENOMEM;
	uint32_t i = 0;
	for (uint32_t c = d->n[cols].first; c != JN_NONE; c = d->n[c].next, i++) {
		struct mcol *col = &f->cols[i];
		col->label = member_str(ms, d, c, "label");
		col->name = member_str(ms, d, c, "type");
		col->kind = F_STRING;
		if (col->name) {
			col->kind = (uint8_t)mfmt_kind_of(col->name, strlen(col->name));
			if (col->kind == F_UNKNOWN)
				markers_note(ms,
					     "marker schema '%s': field '%s' has a table column "
					     "of an unknown format '%s' (shown raw)",
					     schema, key, col->name);
		}
	}
	return 0;
}

/* JavaScript's String.prototype.trim whitespace, as UTF-8: the length of the one at s, or 0. */
static size_t js_space(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	if (n >= 1 && (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r')))
		return 1;
	if (n >= 2 && u[0] == 0xc2 && (u[1] == 0xa0 || u[1] == 0x85))
		return u[1] == 0xa0 ? 2 : 0;
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 &&
	    ((u[2] >= 0x80 && u[2] <= 0x8a) || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf))
		return 3;
	if (n >= 3 && ((u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80) ||
		       (u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f) ||
		       (u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80) ||
		       (u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf)))
		return 3;
	return 0;
}

static void trim(const char **s, size_t *n)
{
	size_t k;
	while (*n && (k = js_space(*s, *n))) {
		*s += k;
		*n -= k;
	}
	/* from the end: step back over whole UTF-8 sequences */
	for (;;) {
		size_t back = 0;
		for (size_t w = 1; w <= 3 && w <= *n; w++)
			if (js_space(*s + *n - w, w) == w)
				back = w;
		if (!back)
			break;
		*n -= back;
	}
}

static const struct mfmt *field_format(const struct pv_marker_schema *sc, const char *key)
{
	for (uint32_t i = 0; i < sc->nr_fields; i++)
		if (sc->fields[i].key && strcmp(sc->fields[i].key, key) == 0)
			return &sc->fields[i].fmt;
	return NULL;
}

/* A quoted string ('...' or "...") at *s: its text, and *s moved past it. */
static bool quoted(const char **s, const char *e, const char **q, size_t *qn)
{
	const char *p = *s;
	while (p < e && js_space(p, (size_t)(e - p)))
		p += js_space(p, (size_t)(e - p));
	if (p >= e || (*p != '\'' && *p != '"'))
		return false;
	const char *close = memchr(p + 1, *p, (size_t)(e - p - 1));
	if (!close)
		return false;
	*q = p + 1;
	*qn = (size_t)(close - p - 1);
	*s = close + 1;
	return true;
}

/* One placeholder (without braces) into part; false when it is not understood. */
static bool placeholder(struct pv_markers *ms, const struct pv_marker_schema *sc, const char *s,
			size_t n, struct lpart *part)
{
	trim(&s, &n);
	const char *q = memchr(s, '?', n);
	const char *cond = s;
	size_t cn = q ? (size_t)(q - s) : n;
	if (q) {
		/* marker.data.KEY ? 'yes' : 'no' */
		const char *p = q + 1, *e = s + n, *yes, *no;
		size_t yn, nn;
		if (!quoted(&p, e, &yes, &yn))
			return false;
		while (p < e && js_space(p, (size_t)(e - p)))
			p += js_space(p, (size_t)(e - p));
		if (p >= e || *p != ':')
			return false;
		p++;
		if (!quoted(&p, e, &no, &nn))
			return false;
		while (p < e && js_space(p, (size_t)(e - p)))
			p += js_space(p, (size_t)(e - p));
		if (p != e)
			return false;
		part->yes = arena_strndup(ms->priv->arena, yes, yn);
		part->no = arena_strndup(ms->priv->arena, no, nn);
		trim(&cond, &cn);
	}
	/* split at '.' into 2 or 3 parts, the first "marker" */
	const char *dot1 = memchr(cond, '.', cn);
	if (!dot1 || (size_t)(dot1 - cond) != 6 || memcmp(cond, "marker", 6) != 0)
		return false;
	const char *k = dot1 + 1, *e = cond + cn;
	const char *dot2 = memchr(k, '.', (size_t)(e - k));
	if (!dot2) {
		if (q)
			return false;
		static const struct {
			const char *name;
			enum lpart_kind kind;
		} keys[] = {{"name", LP_NAME},
			    {"start", LP_START},
			    {"end", LP_END},
			    {"duration", LP_DURATION},
			    {"category", LP_CATEGORY}};
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if ((size_t)(e - k) == strlen(keys[i].name) &&
			    memcmp(k, keys[i].name, (size_t)(e - k)) == 0) {
				part->kind = (uint8_t)keys[i].kind;
				return true;
			}
		}
		return false;
	}
	const char *key = dot2 + 1;
	if ((size_t)(dot2 - k) != 4 || memcmp(k, "data", 4) != 0 ||
	    memchr(key, '.', (size_t)(e - key)))
		return false;
	part->text = arena_strndup(ms->priv->arena, key, (size_t)(e - key));
	if (!part->text)
		return false;
	part->kind = (uint8_t)(q ? LP_TERNARY : LP_DATA);
	part->fmt = field_format(sc, part->text);
	return !q || (part->yes && part->no);
}

/* "{marker.name} - " or "{marker.name} — " (any one whitespace around the dash) */
static size_t name_prefix(const char *s, size_t n)
{
	if (n < 13 || memcmp(s, "{marker", 7) != 0 || memcmp(s + 8, "name}", 5) != 0)
		return 0;
	size_t i = 13, w = js_space(s + i, n - i);
	if (!w)
		return 0;
	i += w;
	if (i < n && s[i] == '-')
		i++;
	else if (i + 3 <= n && memcmp(s + i, "\xe2\x80\x94", 3) == 0)
		i += 3;
	else
		return 0;
	w = js_space(s + i, n - i);
	return w ? i + w : 0;
}

static int compile_label(struct pv_markers *ms, struct pv_marker_schema *sc, enum pv_label_kind k,
			 const char *tmpl, const char *what)
{
	struct label *l = &sc->label[k];
	size_t n = strlen(tmpl);
	if (!n)
		return 0; /* an empty template is no template: the fallback applies */
	if (k == PV_LABEL_TABLE) {
		/* the table has a name column: the name is not repeated in the details */
		size_t cut = name_prefix(tmpl, n);
		tmpl += cut;
		n -= cut;
	}
	/* at most one text part and one placeholder per brace, plus the tail */
	uint32_t cap = 1;
	for (size_t i = 0; i < n; i++)
		cap += tmpl[i] == '{' ? 2 : 0;
	l->parts = arena_alloc(ms->priv->arena, cap * sizeof(*l->parts));
	if (!l->parts)
		return PV_ENOMEM;
	const char *text = tmpl, *e = tmpl + n;
	for (const char *p = tmpl; p < e; p++) {
		if (*p != '{')
			continue;
		const char *close = memchr(p + 1, '}', (size_t)(e - p - 1));
		if (!close)
			break;
		if (close == p + 1)
			continue; /* "{}" is text */
		struct lpart *part = &l->parts[l->nr];
		memset(part, 0, sizeof(*part));
		part->kind = LP_TEXT;
		part->text = arena_strndup(ms->priv->arena, text, (size_t)(p - text));
		if (!part->text)
			return PV_ENOMEM;
		l->nr += p > text;
		part = &l->parts[l->nr++];
		memset(part, 0, sizeof(*part));
		if (!placeholder(ms, sc, p + 1, (size_t)(close - p - 1), part)) {
			part->kind = LP_EMPTY;
			markers_note(ms,
				     "marker schema '%s': %s: '{%.*s}' is not a placeholder "
				     "(shown empty)",
				     sc->name, what, (int)(close - p - 1), p + 1);
		}
		text = p = close;
		text++;
	}
	struct lpart *part = &l->parts[l->nr];
	memset(part, 0, sizeof(*part));
	part->kind = LP_TEXT;
	part->text = arena_strndup(ms->priv->arena, text, (size_t)(e - text));
	if (!part->text)
		return PV_ENOMEM;
	l->nr += e > text || l->nr == 0;
	return 0;
}

static int read_field(struct pv_markers *ms, struct pv_marker_schema *sc, const struct jdoc *d,
		      uint32_t f, struct mfield *out)
{
	memset(out, 0, sizeof(*out));
	out->key = member_str(ms, d, f, "key");
	out->label = member_str(ms, d, f, "label");
	out->hidden = jn_truthy(d, jn_get(d, f, "hidden"));
	if (!out->key) {
		/* a static row of an old schema: {label, value} */
		uint32_t v = jn_get(d, f, "value");
		struct sbuf t = SBUF_INIT;
		if (v != JN_NONE)
			jn_js_string(d, v, &t);
		out->value = t.oom ? NULL : arena_strndup(ms->priv->arena, sbuf_str(&t), t.len);
		sbuf_release(&t);
		if (!out->value)
			return PV_ENOMEM;
		out->fmt.name = "";
		out->fmt.kind = F_STRING;
		return 0;
	}
	if (!out->label)
		out->label = out->key;
	return read_format(ms, d, jn_get(d, f, "format"), &out->fmt, sc->name, out->key);
}

static int read_schema(struct pv_markers *ms, const struct jdoc *d, uint32_t o,
		       struct pv_marker_schema *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->name = member_str(ms, d, o, "name");
	if (!sc->name)
		return 1; /* unusable: no name to look it up by */
	sc->description = member_str(ms, d, o, "description");
	uint32_t fields = jn_get(d, o, "fields");
	if (fields == JN_NONE || d->n[fields].kind != JSON_ARRAY)
		fields = jn_get(d, o, "data");
	if (fields != JN_NONE && d->n[fields].kind == JSON_ARRAY) {
		sc->fields =
		    arena_alloc(ms->priv->arena, (d->n[fields].nkids ? d->n[fields].nkids : 1) *
						     sizeof(*sc->fields));
		if (!sc->fields)
			return PV_ENOMEM;
		for (uint32_t f = d->n[fields].first; f != JN_NONE; f = d->n[f].next) {
			if (d->n[f].kind != JSON_OBJECT)
				continue;
			struct mfield *mf = &sc->fields[sc->nr_fields];
			int rc = read_field(ms, sc, d, f, mf);
			if (rc)
				return rc;
			if (!mf->key && mf->label && strcmp(mf->label, "Description") == 0 &&
			    !sc->description) {
				sc->description = mf->value;
				continue;
			}
			sc->nr_fields++;
		}
	}
	static const char *const keys[3] = {"tooltipLabel", "tableLabel", "chartLabel"};
	for (int k = 0; k < 3; k++) {
		uint32_t v = jn_get(d, o, keys[k]);
		if (v == JN_NONE || d->n[v].kind != JSON_STRING)
			continue;
		const char *t = doc_strdup(ms, d, v);
		if (!t)
			return PV_ENOMEM;
		int rc = compile_label(ms, sc, (enum pv_label_kind)k, t, keys[k]);
		if (rc)
			return rc;
	}
	return 0;
}

/* The Firefox Profiler's front-end schemas (marker-schema.tsx), which replace the file's. */
static const char builtin_schemas[] =
    "[{\"name\":\"Jank\",\"display\":[\"marker-table\",\"marker-chart\"],"
    "\"tooltipLabel\":\"Jank \xe2\x80\x93 event processing delay\","
    "\"tableLabel\":\"Event processing delay\",\"fields\":[],"
    "\"description\":\"Jank markers show when the main event loop of a thread has been "
    "busy. It is a good indicator that there may be some kind of performance problem that is "
    "worth investigating.\"},"
    "{\"name\":\"IPC\",\"tooltipLabel\":\"IPC \xe2\x80\x94\xc2\xa0{marker.data.niceDirection}\","
    "\"tableLabel\":\"{marker.data.messageType} \xe2\x80\x94 {marker.data.niceDirection}\","
    "\"chartLabel\":\"{marker.data.messageType}\","
    "\"display\":[\"marker-chart\",\"marker-table\",\"timeline-ipc\"],\"fields\":["
    "{\"key\":\"messageType\",\"label\":\"Type\",\"format\":\"string\"},"
    "{\"key\":\"sync\",\"label\":\"Sync\",\"format\":\"string\"},"
    "{\"key\":\"sendThreadName\",\"label\":\"From\",\"format\":\"string\"},"
    "{\"key\":\"recvThreadName\",\"label\":\"To\",\"format\":\"string\"},"
    "{\"key\":\"otherPid\",\"label\":\"Other Pid\",\"format\":\"pid\"}]},"
    "{\"name\":\"Network\",\"display\":[\"marker-table\",\"marker-chart\"],"
    "\"chartLabel\":\"{marker.data.URI}\",\"fields\":["
    "{\"format\":\"string\",\"key\":\"contentType\",\"label\":\"Content Type\","
    "\"hidden\":true},"
    "{\"format\":\"integer\",\"key\":\"responseStatus\",\"label\":\"Response Status\","
    "\"hidden\":true}]}]";

static bool builtin_name(const char *name)
{
	return strcmp(name, "Jank") == 0 || strcmp(name, "IPC") == 0 ||
	       strcmp(name, "Network") == 0;
}

/* ---- display locations ---- */

static const char *const display_names[] = {
    "marker-chart", "marker-table",    "timeline-overview", "timeline-memory",
    "timeline-ipc", "timeline-fileio", "sidebar",	    "stack-chart",
};

/* The display list of schema object o (every schema of the file's list that has a name, the
 * built-in names too: their display is the file's). */
static int read_display(struct pv_markers *ms, const struct jdoc *d, uint32_t o)
{
	uint32_t nv = jn_get(d, o, "name");
	if (nv == JN_NONE || d->n[nv].kind != JSON_STRING)
		return 0;
	const char *name = doc_strdup(ms, d, nv);
	if (!name)
		return PV_ENOMEM;
	uint32_t mask = 0, v = jn_get(d, o, "display");
	for (uint32_t e = v != JN_NONE && d->n[v].kind == JSON_ARRAY ? d->n[v].first : JN_NONE;
	     e != JN_NONE; e = d->n[e].next)
		for (uint32_t k = 0; k < sizeof(display_names) / sizeof(display_names[0]); k++)
			if (jn_is(d, e, display_names[k]))
				mask |= 1u << k;
	ms->priv->displays[ms->priv->nr_displays++] = (struct marker_display){name, mask};
	return 0;
}

int pv_markers_displayed(const struct pv_markers *ms, enum pv_marker_display loc,
			 const uint32_t *idx, uint32_t n, uint8_t *shown)
{
	struct jdoc d = {0};
	for (uint32_t k = 0; k < n; k++) {
		const char *data = ms->data[idx[k]];
		shown[k] = 0;
		if (!data || jdoc_parse(&d, data, strlen(data), NULL) || d.n[0].kind != JSON_OBJECT)
			continue;
		uint32_t t = jn_get(&d, 0, "type");
		if (t == JN_NONE || d.n[t].kind != JSON_STRING)
			continue;
		size_t len;
		const char *type = jn_str(&d, t, &len);
		uint32_t x = 0;
		while (x < ms->priv->nr_displays &&
		       (strlen(ms->priv->displays[x].name) != len ||
			memcmp(ms->priv->displays[x].name, type, len) != 0))
			x++;
		if (x < ms->priv->nr_displays)
			shown[k] = (ms->priv->displays[x].mask & loc) != 0;
		else
			shown[k] = loc == PV_DISPLAY_TIMELINE_OVERVIEW &&
				   (jn_is(&d, t, "IPC") || jn_is(&d, t, "Network"));
	}
	jdoc_release(&d);
	return 0;
}

/* Reads the schema objects of one list; builtins: only those, else all but the built-in names. */
static int read_list(struct pv_markers *ms, const char *text, size_t len, bool builtins,
		     struct pv_error *err)
{
	struct jdoc d = {0};
	struct pv_error e;
	pv_error_clear(&e);
	int rc = jdoc_parse(&d, text, len, &e);
	if (!rc && d.n[0].kind != JSON_ARRAY)
		rc = pv_error_set(&e, PV_EPARSE, "expected a JSON array");
	if (rc) {
		jdoc_release(&d);
		return pv_error_set(err, rc, "%s: the marker schema list: %s",
				    pv_str(ms->p, ms->p->meta.format), e.msg);
	}
	uint32_t room = ms->nr_schemas + d.n[0].nkids;
	struct pv_marker_schema *s = pv_realloc(ms->schemas, (room ? room : 1) * sizeof(*s));
	if (!s) {
		jdoc_release(&d);
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	ms->schemas = s;
	if (!builtins &&
	    !(ms->priv->displays = arena_alloc(ms->priv->arena, (d.n[0].nkids ? d.n[0].nkids : 1) *
								    sizeof(*ms->priv->displays)))) {
		jdoc_release(&d);
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	for (uint32_t o = d.n[0].first; o != JN_NONE; o = d.n[o].next) {
		if (d.n[o].kind != JSON_OBJECT)
			continue;
		if (!builtins && (rc = read_display(ms, &d, o)))
			break;
		struct pv_marker_schema *sc = &ms->schemas[ms->nr_schemas];
		rc = read_schema(ms, &d, o, sc);
		if (rc == PV_ENOMEM)
			break;
		if (rc == 0 && builtin_name(sc->name) == builtins)
			ms->nr_schemas++;
		rc = 0;
	}
	jdoc_release(&d);
	return rc ? pv_error_set(err, rc, "out of memory") : 0;
}

int schemas_load(struct pv_markers *ms, struct pv_error *err)
{
	const struct pv_profile *p = ms->p;
	int rc = 0;
	if (p->meta.marker_schema) {
		pv_str_ix s = p->meta.marker_schema;
		rc = read_list(ms, p->strings.ptr[s], p->strings.size[s], false, err);
	}
	if (!rc)
		rc = read_list(ms, builtin_schemas, sizeof(builtin_schemas) - 1, true, err);
	return rc;
}

const struct pv_marker_schema *pv_marker_schema_find(const struct pv_markers *ms, const char *type)
{
	if (!type)
		return NULL;
	for (uint32_t i = ms->nr_schemas; i-- > 0;)
		if (strcmp(ms->schemas[i].name, type) == 0)
			return &ms->schemas[i];
	return NULL;
}

/* ---- one marker ---- */

/* A time of the model as the front end holds it: milliseconds in a double. */
static double ms_of(int64_t ns)
{
	return (double)ns / 1e6;
}

static void put_time(int64_t ns, struct sbuf *out)
{
	pv_format_timestamp(ms_of(ns), out);
}

/*
 * end - start as the front end computes it, in milliseconds, the difference of the two doubles
 * (a duration of 0.0004 ms from 1.0001 to 1.0005 is 400.00000000004 ns, shown "400.00ns").
 */
static double duration_ms(const struct pv_markers *ms, uint32_t i)
{
	return ms_of(ms->end_ns[i]) - ms_of(ms->start_ns[i]);
}

void pv_marker_duration_text(const struct pv_markers *ms, uint32_t i, struct sbuf *out)
{
	if (ms->flags[i] & PV_MARKER_INCOMPLETE)
		sbuf_puts(out, "unknown duration");
	else if (ms->end_ns[i] != PV_TIME_NONE)
		fmt_timestamp(duration_ms(ms, i), 3, 1, out);
}

static void apply_label(const struct pv_markers *ms, uint32_t i, const struct pv_marker_schema *sc,
			const struct label *l, const struct jdoc *d, uint32_t root,
			struct sbuf *out)
{
	const struct pv_profile *p = ms->p;
	for (uint32_t k = 0; k < l->nr; k++) {
		const struct lpart *part = &l->parts[k];
		int64_t s = ms->start_ns[i], e = ms->end_ns[i];
		switch (part->kind) {
		case LP_TEXT: sbuf_puts(out, part->text); break;
		case LP_NAME: sbuf_puts(out, ms->name[i]); break;
		case LP_START: put_time(s, out); break;
		case LP_END:
			if (e == PV_TIME_NONE)
				sbuf_puts(out, "unknown");
			else
				put_time(e, out);
			break;
		case LP_DURATION:
			if (e == PV_TIME_NONE)
				sbuf_puts(out, "unknown");
			else
				pv_format_timestamp(duration_ms(ms, i), out);
			break;
		case LP_CATEGORY:
			if (ms->category[i] != PV_NONE && ms->category[i] < p->categories.len)
				sbuf_puts(out, pv_str(p, p->categories.name[ms->category[i]]));
			break;
		case LP_DATA: {
			uint32_t v = jn_get(d, root, part->text);
			if (v == JN_NONE || d->n[v].kind == JSON_NULL)
				break;
			if (part->fmt)
				mfmt_value(ms, part->fmt, 0, d, v, out);
			else
				jn_js_string(d, v, out);
			break;
		}
		case LP_TERNARY:
			sbuf_puts(out,
				  jn_truthy(d, jn_get(d, root, part->text)) ? part->yes : part->no);
			break;
		default: break;
		}
	}
	(void)sc;
}

/*
 * The table's fallback for FileIO markers, as the front end builds it: "(source) " when there is
 * a source, then String(operation) ("undefined" when missing); with a filename, "... — filename"
 * when the operation is not empty, else the filename alone (the source goes too).
 */
static void fileio_label(const struct jdoc *d, uint32_t root, struct sbuf *out)
{
	uint32_t src = jn_get(d, root, "source"), op = jn_get(d, root, "operation"),
		 file = jn_get(d, root, "filename");
	size_t from = out->len;
	if (jn_truthy(d, src)) {
		sbuf_put(out, "(", 1);
		jn_js_string(d, src, out);
		sbuf_put(out, ") ", 2);
	}
	jn_js_string(d, op, out);
	if (!jn_truthy(d, file))
		return;
	if (jn_truthy(d, op)) {
		sbuf_puts(out, " \xe2\x80\x94 ");
	} else {
		sbuf_setlen(out, from);
	}
	jn_js_string(d, file, out);
}

struct pv_markers *markers_alloc(void)
{
	struct markers_block {
		struct pv_markers ms;
		struct pv_markers_priv priv;
	} *b = pv_calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->ms.priv = &b->priv;
	return &b->ms;
}

/* Records the end of the text written since the last mark, as a string of the detail. */
static void mark(struct pv_marker_detail_priv *x, uint32_t k)
{
	sbuf_put(&x->buf, "", 1); /* the NUL that ends it; len moves past it */
	x->offs[k] = x->buf.len;
}

int pv_marker_detail(const struct pv_markers *ms, uint32_t i, struct pv_marker_detail *d)
{
	struct pv_marker_detail_priv *x = d->priv;
	if (!x && !(x = d->priv = pv_calloc(1, sizeof(*x))))
		return PV_ENOMEM;
	struct jdoc *doc = &x->doc;
	sbuf_reset(&x->buf);
	d->type = NULL;
	d->description = NULL;
	d->nr_fields = 0;
	uint32_t root = JN_NONE;
	const char *data = ms->data[i];
	if (data && !jdoc_parse(doc, data, strlen(data), NULL) && doc->n[0].kind == JSON_OBJECT)
		root = 0;
	uint32_t tn = jn_get(doc, root, "type");
	const char *type = NULL;
	size_t type_len = 0;
	if (tn != JN_NONE && doc->n[tn].kind == JSON_STRING)
		type = jn_str(doc, tn, &type_len);
	const struct pv_marker_schema *sc = NULL;
	/* strings: the type, the three labels, then a value per field */
	uint32_t nf = 0;
	char tbuf[256];
	if (type && type_len < sizeof(tbuf)) {
		memcpy(tbuf, type, type_len);
		tbuf[type_len] = 0;
		sc = pv_marker_schema_find(ms, tbuf);
		nf = sc ? sc->nr_fields : 0;
	}
	uint32_t need = 5 + nf;
	if (need > x->cap) {
		size_t *o = pv_realloc(x->offs, need * sizeof(*o));
		struct pv_marker_field *f = pv_realloc(d->fields, (nf ? nf : 1) * sizeof(*f));
		if (o)
			x->offs = o;
		if (f)
			d->fields = f;
		if (!o || !f)
			return PV_ENOMEM;
		x->cap = need;
	}
	x->offs[0] = 0;
	if (type)
		sbuf_put(&x->buf, type, type_len);
	mark(x, 1);
	for (int k = 0; k < 3; k++) {
		const struct label *l = sc ? &sc->label[k] : NULL;
		if (l && l->nr)
			apply_label(ms, i, sc, l, doc, root, &x->buf);
		else if (k == PV_LABEL_TOOLTIP)
			sbuf_puts(&x->buf, ms->name[i]);
		else if (k == PV_LABEL_TABLE && type && type_len == 6 &&
			 memcmp(type, "FileIO", 6) == 0)
			fileio_label(doc, root, &x->buf);
		mark(x, 2 + (uint32_t)k);
	}
	uint32_t nout = 0;
	for (uint32_t f = 0; f < nf; f++) {
		const struct mfield *mf = &sc->fields[f];
		if (mf->key) {
			uint32_t v = jn_get(doc, root, mf->key);
			if (v == JN_NONE || doc->n[v].kind == JSON_NULL)
				continue; /* values are optional */
			mfmt_value(ms, &mf->fmt, MFMT_IDS, doc, v, &x->buf);
		} else {
			sbuf_puts(&x->buf, mf->value);
		}
		mark(x, 5 + nout);
		d->fields[nout].key = mf->key;
		d->fields[nout].label = mf->label ? mf->label : "";
		d->fields[nout].hidden = mf->hidden;
		nout++;
	}
	if (x->buf.oom)
		return PV_ENOMEM;
	/* the buffer is complete: turn offsets into pointers */
	const char *b = sbuf_str(&x->buf);
	d->type = type ? b : NULL;
	for (int k = 0; k < 3; k++)
		d->label[k] = b + x->offs[1 + k];
	for (uint32_t f = 0; f < nout; f++)
		d->fields[f].value = b + x->offs[4 + f];
	d->nr_fields = nout;
	d->description = sc ? sc->description : NULL;
	return 0;
}

void pv_marker_detail_release(struct pv_marker_detail *d)
{
	struct pv_marker_detail_priv *x = d->priv;
	if (x) {
		jdoc_release(&x->doc);
		sbuf_release(&x->buf);
		sbuf_release(&x->raw);
		pv_free(x->offs);
		pv_free(x);
	}
	pv_free(d->fields);
	memset(d, 0, sizeof(*d));
}

void pv_marker_format(const struct pv_markers *ms, const char *format, size_t format_len,
		      const char *value, size_t value_len, struct sbuf *out)
{
	struct jdoc fd = {0}, vd = {0};
	struct pv_markers_priv scratch_priv = {0};
	struct pv_markers scratch = {.priv = &scratch_priv};
	struct mfmt f = {.kind = F_UNKNOWN, .name = ""};
	scratch_priv.arena = arena_new();
	scratch.p = ms ? ms->p : NULL;
	if (scratch_priv.arena && !jdoc_parse(&fd, format, format_len, NULL))
		read_format(&scratch, &fd, 0, &f, "", "");
	uint32_t v = value && !jdoc_parse(&vd, value, value_len, NULL) ? 0 : JN_NONE;
	mfmt_value(ms, &f, MFMT_IDS, &vd, v, out);
	jdoc_release(&fd);
	jdoc_release(&vd);
	for (uint32_t i = 0; i < scratch.nr_notes; i++)
		pv_free(scratch.notes[i]);
	pv_free(scratch.notes);
	arena_free(scratch_priv.arena);
}
