/*
 * merge.c - many profiles as one (include/pv/merge.h, doc/merge.md).
 *
 * One builder holds the merged tables. Adding a profile P interns every row of every table of
 * P, table after table, each in P's own row order: first all of P's strings, then categories,
 * modules, sources, functions, frames, stacks, metrics, formulas, labels, label sets; then P's
 * threads are appended with their samples and markers, and P's diagnostics added by message.
 * Each table of the result is therefore the ordered union of the tables added, which is
 * associative (doc/merge.md): the merge of a partial merge is the merge of its inputs.
 *
 * What may depend on more than one input is decided by rules that are associative too: the
 * format, version, product and interval are kept when every input agrees, else "merged", ""
 * and 0; the first input's default metric, marker schemas and start time are kept. No string is
 * made while two merges are joined (it would land at another place in the string table than in
 * the merge input by input): the one string a join may need, "merged", is string 1 of every
 * merge, and what a join cannot keep is said through the note callback, not in the model.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "import/importer.h"
#include "model/builder.h"
#include "pv/import.h"
#include "pv/merge.h"

struct pv_merge {
	struct pv_builder b;
	struct pv_merge_opts o;
	regex_t re;
	bool has_re;
	pv_str_ix merged; /* "merged": string 1 */
	uint64_t count;
	uint64_t skipped; /* inputs left out (pv_merge_skipped), said in the result's diags */
	/* P's row -> the merge's row, one array per table, for the profile being added */
	uint32_t *str, *cat, *sub, *module, *source, *func, *frame, *stack, *metric, *label, *lset;
	uint32_t *items; /* scratch: one label set's rows */
	struct sbuf name;
	bool no_rows;		   /* adding without the sample rows (pv_merge_add_dictionary) */
	struct pv_merge_map *keep; /* where the maps of the profile being added go, or NULL */
};

static void note(struct pv_merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct pv_merge *m, const char *fmt, ...)
{
	if (!m->o.note)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	m->o.note(m->o.note_ctx, buf);
}

/* ---- the options ---- */

static const char *const keys[] = {"file", "path", "thread", "process",
				   "pid",  "tid",  "input",  "dir"};

/*
 * The placeholder at s ('{' there): its key in keys (0..7), 100 + N for {N}; -1 when s is no
 * known placeholder. *len: its length with the braces.
 */
static int placeholder(const char *s, size_t *len)
{
	const char *e = strchr(s, '}');
	if (!e)
		return -1;
	size_t n = (size_t)(e - s - 1);
	*len = n + 2;
	if (n == 1 && s[1] >= '0' && s[1] <= '9')
		return 100 + (s[1] - '0');
	for (int k = 0; k < (int)(sizeof(keys) / sizeof(keys[0])); k++)
		if (strlen(keys[k]) == n && memcmp(s + 1, keys[k], n) == 0)
			return k;
	return -1;
}

int pv_merge_new(const struct pv_merge_opts *o, struct pv_merge **out, struct pv_error *err)
{
	struct pv_merge *m = pv_calloc(1, sizeof(*m));
	if (!m || builder_init(&m->b)) {
		pv_free(m);
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	m->o = *o;
	m->merged = builder_cstr(&m->b, "merged");
	if (o->context_regex) {
		int rc = regcomp(&m->re, o->context_regex, REG_EXTENDED);
		if (rc) {
			char msg[256];
			regerror(rc, &m->re, msg, sizeof(msg));
			pv_merge_free(m);
			return pv_error_set(err, PV_EINVAL, "--context-regex%s '%s': %s",
					    o->regex_on_path ? "-path" : "", o->context_regex, msg);
		}
		m->has_re = true;
	}
	for (const char *s = o->context_name; s && (s = strchr(s, '{'));) {
		size_t len = 0;
		int k = placeholder(s, &len);
		if (k < 0) {
			const char *e = strchr(s, '}');
			int n = e ? (int)(e - s + 1) : (int)strlen(s);
			pv_merge_free(m);
			return pv_error_set(
			    err, PV_EINVAL,
			    "--context-name: unknown placeholder '%.*s' (known: {0}..{9}, "
			    "{file}, {dir}, {path}, {thread}, {process}, {pid}, {tid}, {input})",
			    n, s);
		}
		if (k >= 100 && (!m->has_re || (size_t)(k - 100) > m->re.re_nsub)) {
			size_t groups = m->has_re ? m->re.re_nsub : 0;
			pv_merge_free(m);
			return pv_error_set(
			    err, PV_EINVAL,
			    "--context-name: {%d} names a group of --context-regex, "
			    "which has %zu",
			    k - 100, groups);
		}
		s += len;
	}
	*out = m;
	return 0;
}

static void maps_free(struct pv_merge *m)
{
	uint32_t **maps[] = {&m->str,	&m->cat,   &m->sub,    &m->module, &m->source, &m->func,
			     &m->frame, &m->stack, &m->metric, &m->label,  &m->lset,   &m->items};
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		pv_free(*maps[i]);
		*maps[i] = NULL;
	}
}

void pv_merge_free(struct pv_merge *m)
{
	if (!m)
		return;
	builder_release(&m->b);
	if (m->has_re)
		regfree(&m->re);
	maps_free(m);
	sbuf_release(&m->name);
	pv_free(m);
}

uint64_t pv_merge_count(const struct pv_merge *m)
{
	return m->count;
}

/* ---- adding one profile ---- */

static int alloc_map(uint32_t **map, uint32_t n)
{
	*map = pv_malloc((size_t)(n ? n : 1) * sizeof(**map));
	return *map ? 0 : -1;
}

/* The subcategory of the merge's category c named name: found, else added when it can be. */
static uint16_t merge_subcategory(struct pv_merge *m, pv_cat_ix c, pv_str_ix name)
{
	const struct pv_profile *a = m->b.p;
	const struct pv_categories *ct = &a->categories;
	for (uint32_t k = 0; k < ct->sub_len[c]; k++)
		if (a->subcategories.name[ct->sub_first[c] + k] == name)
			return (uint16_t)k;
	/* only the newest category's list can grow (they are contiguous) */
	if (ct->sub_len[c] && ct->sub_first[c] + ct->sub_len[c] != a->subcategories.len) {
		note(m,
		     "subcategory '%s' of category '%s' not in the first input's list: its "
		     "frames show the category's first subcategory",
		     pv_str(a, name), pv_str(a, ct->name[c]));
		return 0;
	}
	return (uint16_t)builder_subcategory(&m->b, c, name);
}

static void add_tables(struct pv_merge *m, const struct pv_profile *p)
{
	struct pv_builder *b = &m->b;
	uint32_t *str = m->str;
	str[0] = 0;
	for (uint32_t i = 1; i < p->strings.len; i++)
		str[i] = builder_str(b, p->strings.ptr[i], p->strings.size[i]);

	const struct pv_categories *c = &p->categories;
	for (uint32_t i = 0; i < c->len; i++) {
		m->cat[i] = builder_category(b, str[c->name[i]], str[c->color[i]]);
		for (uint32_t k = 0; k < c->sub_len[i] && !b->status; k++)
			m->sub[c->sub_first[i] + k] = merge_subcategory(
			    m, m->cat[i], str[p->subcategories.name[c->sub_first[i] + k]]);
	}
	const struct pv_modules *mo = &p->modules;
	for (uint32_t i = 0; i < mo->len; i++)
		m->module[i] = builder_module(b, str[mo->name[i]], str[mo->path[i]],
					      (enum pv_module_kind)mo->kind[i]);
	for (uint32_t i = 0; i < p->sources.len; i++)
		m->source[i] = builder_source(b, str[p->sources.path[i]]);
	const struct pv_funcs *f = &p->funcs;
	for (uint32_t i = 0; i < f->len; i++)
		m->func[i] = builder_func_at(
		    b, str[f->name[i]],
		    pv_func_module(p, i) == PV_NONE ? PV_NONE : m->module[pv_func_module(p, i)],
		    pv_func_source(p, i) == PV_NONE ? PV_NONE : m->source[pv_func_source(p, i)],
		    pv_func_line(p, i), pv_func_column(p, i));
	const struct pv_frames *fr = &p->frames;
	for (uint32_t i = 0; i < fr->len; i++) {
		pv_cat_ix cat = pv_frame_category(p, i);
		struct frame_key k = {
		    .func = m->func[fr->func[i]],
		    .line = pv_frame_line(p, i),
		    .column = pv_frame_column(p, i),
		    .addr = pv_frame_addr(p, i),
		    .inline_depth = pv_frame_inline_depth(p, i),
		    .category = cat == PV_NONE ? PV_NONE : m->cat[cat],
		    .subcategory = 0,
		    .kind = pv_frame_kind(p, i),
		    .source1 =
			pv_frame_source(p, i) == PV_NONE ? 0 : m->source[pv_frame_source(p, i)] + 1,
		};
		if (cat != PV_NONE && pv_frame_subcategory(p, i) < c->sub_len[cat])
			k.subcategory =
			    (uint16_t)m->sub[c->sub_first[cat] + pv_frame_subcategory(p, i)];
		m->frame[i] = builder_frame(b, &k);
	}
	const struct pv_stacks *st = &p->stacks;
	builder_stacks_reserve(b, st->len);
	for (uint32_t i = 0; i < st->len; i++)
		m->stack[i] =
		    builder_stack(b, st->prefix[i] == PV_NONE ? PV_NONE : m->stack[st->prefix[i]],
				  m->frame[st->frame[i]]);

	struct pv_metrics *am = &b->p->metrics;
	for (uint32_t i = 0; i < p->metrics.len; i++) {
		uint32_t before = am->len;
		pv_metric_ix k = m->metric[i] =
		    builder_metric(b, str[p->metrics.name[i]], (enum pv_unit)p->metrics.unit[i]);
		if (k == PV_NONE)
			return;
		if (k < before && am->unit[k] != p->metrics.unit[i])
			note(m, "metric '%s': unit %s, the first input's %s kept",
			     pv_str(p, p->metrics.name[i]),
			     pv_unit_name((enum pv_unit)p->metrics.unit[i]),
			     pv_unit_name((enum pv_unit)am->unit[k]));
		if (!am->description[k])
			builder_metric_description(b, k, str[p->metrics.description[i]]);
	}
	for (uint32_t i = 0; i < p->formulas.len; i++) {
		pv_str_ix name = str[p->formulas.name[i]];
		uint32_t k = 0;
		while (k < b->p->formulas.len && b->p->formulas.name[k] != name)
			k++;
		if (k == b->p->formulas.len)
			builder_formula(b, name, str[p->formulas.formula[i]],
					str[p->formulas.self[i]], str[p->formulas.description[i]]);
	}
	const struct pv_labels *l = &p->labels;
	for (uint32_t i = 0; i < l->len; i++)
		m->label[i] =
		    builder_label(b, str[l->key[i]], str[l->str[i]], l->num[i], str[l->unit[i]]);
	const struct pv_label_sets *ls = &p->label_sets;
	for (uint32_t i = 0; i < ls->len && !b->status; i++) {
		for (uint32_t k = 0; k < ls->count[i]; k++)
			m->items[k] = m->label[ls->items[ls->first[i] + k]];
		m->lset[i] = builder_label_set(b, m->items, ls->count[i]);
	}
}

/* The meta of the merge with P's (its strings mapped already). */
static void add_meta(struct pv_merge *m, const struct pv_profile *p)
{
	struct pv_meta *a = &m->b.p->meta;
	const struct pv_meta *q = &p->meta;
	const uint32_t *str = m->str;
	a->one_program = true; /* ranks of one program, whatever their format */
	if (m->count == 0) {
		a->format = str[q->format];
		a->format_version = str[q->format_version];
		a->product = str[q->product];
		a->interval_ns = q->interval_ns;
		a->start_unix_ns = q->start_unix_ns;
		a->default_metric =
		    q->default_metric < p->metrics.len ? m->metric[q->default_metric] : 0;
		a->marker_schema = str[q->marker_schema];
		return;
	}
	if (a->format != str[q->format])
		a->format = m->merged;
	if (a->format_version != str[q->format_version])
		a->format_version = 0;
	if (a->product != str[q->product])
		a->product = 0;
	if (a->interval_ns != q->interval_ns)
		a->interval_ns = 0;
	if (!a->start_unix_ns)
		a->start_unix_ns = q->start_unix_ns;
	if (!a->marker_schema)
		a->marker_schema = str[q->marker_schema];
	else if (q->marker_schema && str[q->marker_schema] != a->marker_schema)
		note(m, "marker schemas differ between inputs: the first input's kept");
}

/* The last component of path (without the slashes that end a folder's path): *len bytes. */
static const char *file_name(const char *path, size_t *len)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	const char *file = path;
	for (size_t i = 0; i + 1 < n; i++)
		if (path[i] == '/')
			file = path + i + 1;
	*len = (size_t)(path + n - file);
	return file;
}

/* The name of the folder that holds path ("." when path names none): *len bytes. */
static const char *dir_name(const char *path, size_t *len)
{
	size_t n = 0;
	const char *file = file_name(path, &n);
	size_t end = (size_t)(file - path);
	while (end > 0 && path[end - 1] == '/')
		end--;
	if (end == 0) {
		*len = 1; /* "/" for a file at the root, "." for none */
		return file > path ? "/" : ".";
	}
	size_t start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	*len = end - start;
	return path + start;
}

/*
 * The name of context t of P (input number index from path, file its name), into m->name; the
 * regex's groups g index subject (the file name, or the path with --context-regex-path).
 */
static int context_name(struct pv_merge *m, const struct pv_profile *p, pv_thread_ix t,
			const char *path, const char *file, uint64_t index, const regmatch_t *g)
{
	size_t file_len = strlen(file);
	const char *subject = m->o.regex_on_path ? path : file;
	const char *pat = m->o.context_name;
	if (!pat)
		pat = p->threads.len == 1 ? "{file}" : "{file} {thread}";
	struct sbuf *s = &m->name;
	sbuf_reset(s);
	int rc = 0;
	while (*pat && !rc) {
		size_t len = 0;
		int k = *pat == '{' ? placeholder(pat, &len) : -1;
		if (k < 0) {
			rc = sbuf_put(s, pat, 1);
			pat++;
			continue;
		}
		pat += len;
		char num[32] = "";
		int64_t id = PV_ID_NONE;
		switch (k) {
		case 0: rc = sbuf_put(s, file, file_len); break;
		case 1: rc = sbuf_puts(s, path); break;
		case 2:
			if (p->threads.name[t])
				rc = sbuf_puts(s, pv_str(p, p->threads.name[t]));
			else if (snprintf(num, sizeof(num), "#%" PRIu32, t) > 0)
				rc = sbuf_puts(s, num);
			break;
		case 3: rc = sbuf_puts(s, pv_str(p, p->threads.process_name[t])); break;
		case 4: id = p->threads.pid[t]; break;
		case 5: id = p->threads.tid[t]; break;
		case 6:
			snprintf(num, sizeof(num), "%" PRIu64, index);
			rc = sbuf_puts(s, num);
			break;
		case 7: {
			size_t dl = 0;
			const char *d = dir_name(path, &dl);
			rc = sbuf_put(s, d, dl);
			break;
		}
		default:
			if (g[k - 100].rm_so >= 0)
				rc = sbuf_put(s, subject + g[k - 100].rm_so,
					      (size_t)(g[k - 100].rm_eo - g[k - 100].rm_so));
		}
		if (id != PV_ID_NONE) {
			snprintf(num, sizeof(num), "%" PRId64, id);
			rc = sbuf_puts(s, num);
		}
	}
	return rc;
}

/* Adds count to the diagnostic msg of the merge (a new one at the end of the list). */
static void add_diag(struct pv_builder *b, pv_str_ix msg, uint64_t count)
{
	struct pv_diags *d = &b->p->diags;
	uint32_t k = 0;
	while (k < d->len && d->msg[k] != msg)
		k++;
	if (k < d->len) {
		d->count[k] += count;
		return;
	}
	if (d->len == d->cap) {
		uint32_t nc = grow_cap(d->cap, (uint64_t)d->len + 1);
		if (!nc || COL_GROW(d->msg, nc) || COL_GROW(d->count, nc)) {
			b->status = PV_ENOMEM;
			return;
		}
		d->cap = nc;
	}
	d->msg[d->len] = msg;
	d->count[d->len++] = count;
}

/* Appends P's threads, samples and markers; names from the pattern when path is given. */
static int add_threads(struct pv_merge *m, const struct pv_profile *p, const char *path,
		       const char *file, uint64_t index, const regmatch_t *g, struct pv_error *err)
{
	struct pv_builder *b = &m->b;
	struct pv_profile *a = b->p;
	const uint32_t *str = m->str;
	pv_thread_ix first = a->threads.len;
	for (pv_thread_ix t = 0; t < p->threads.len && !b->status; t++) {
		pv_str_ix name = str[p->threads.name[t]];
		if (path) {
			if (context_name(m, p, t, path, file, index, g))
				return pv_error_set(err, PV_ENOMEM, "out of memory");
			name = builder_str(b, m->name.buf ? m->name.buf : "", m->name.len);
		}
		pv_thread_ix th = builder_thread(b, name, p->threads.pid[t], p->threads.tid[t],
						 str[p->threads.process_name[t]]);
		if (th == PV_NONE)
			break;
		a = b->p;
		a->threads.process_type[th] = str[p->threads.process_type[t]];
		a->threads.start_ns[th] = p->threads.start_ns[t];
		a->threads.end_ns[th] = p->threads.end_ns[t];

		uint32_t s0 = p->threads.sample_begin[t], n = p->threads.sample_end[t] - s0;
		if (!n || m->no_rows)
			continue;
		uint32_t at = a->samples.len;
		if (builder_samples_reserve(b, (uint64_t)at + n, false))
			break;
		struct pv_samples *as = &a->samples;
		const struct pv_samples *ps = &p->samples;
		for (uint32_t i = 0; i < n; i++) {
			pv_stack_ix s = ps->stack[s0 + i];
			as->stack[at + i] = s == PV_NONE ? PV_NONE : m->stack[s];
		}
		for (uint32_t i = 0; i < n; i++)
			as->time_ns[at + i] = pv_sample_time(p, s0 + i);
		builder_samples_commit(b, th, at, n);
		/* weights: P's own, 1 where P's column is NULL, 0 for a metric P does not have */
		for (uint32_t k = 0; k < a->metrics.len && !b->status; k++) {
			uint32_t pk = 0;
			while (pk < p->metrics.len && m->metric[pk] != k)
				pk++;
			if (pk < p->metrics.len && !ps->weight[pk])
				continue; /* 1, as committed */
			int64_t *w = builder_samples_weight(b, k);
			if (!w)
				break;
			if (pk < p->metrics.len)
				memcpy(w + at, ps->weight[pk] + s0, (size_t)n * sizeof(*w));
			else
				memset(w + at, 0, (size_t)n * sizeof(*w));
		}
		if (ps->label_set && !b->status) {
			if (!as->label_set &&
			    !(as->label_set = pv_calloc(as->cap, sizeof(uint32_t)))) {
				b->status = PV_ENOMEM;
				break;
			}
			for (uint32_t i = 0; i < n; i++)
				as->label_set[at + i] = m->lset[ps->label_set[s0 + i]];
		}
		if (ps->event_delay_ns) {
			int64_t *d = builder_samples_event_delay(b);
			if (!d)
				break;
			memcpy(d + at, ps->event_delay_ns + s0, (size_t)n * sizeof(*d));
		}
		if (ps->addr) {
			uint64_t *d = builder_samples_addr(b);
			if (!d)
				break;
			memcpy(d + at, ps->addr + s0, (size_t)n * sizeof(*d));
		}
	}
	const struct pv_raw_markers *mk = &p->markers;
	for (uint32_t i = 0; i < mk->len && !b->status; i++) {
		struct raw_marker r = {
		    .name = str[mk->name[i]],
		    .category = mk->category[i] == PV_NONE ? PV_NONE : m->cat[mk->category[i]],
		    .phase = (enum pv_marker_phase)mk->phase[i],
		    .start_ns = mk->start_ns[i],
		    .end_ns = mk->end_ns[i],
		    .thread = first + mk->thread[i],
		    .payload = str[mk->payload[i]],
		    .cause_stack =
			mk->cause_stack[i] == PV_NONE ? PV_NONE : m->stack[mk->cause_stack[i]],
		    .cause_time_ns = mk->cause_time_ns[i],
		};
		builder_marker(b, &r);
	}
	for (uint32_t i = 0; i < p->diags.len && !b->status; i++)
		add_diag(b, str[p->diags.msg[i]], p->diags.count[i]);
	return 0;
}

static int add(struct pv_merge *m, const struct pv_profile *p, const char *path, uint64_t index,
	       struct pv_error *err)
{
	regmatch_t g[10];
	for (int i = 0; i < 10; i++)
		g[i].rm_so = g[i].rm_eo = -1;
	char *file = NULL;
	if (path) {
		size_t len;
		const char *f = file_name(path, &len);
		if (!(file = pv_malloc(len + 1)))
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		memcpy(file, f, len);
		file[len] = 0;
	}
	if (path && m->has_re && regexec(&m->re, m->o.regex_on_path ? path : file, 10, g, 0) != 0) {
		pv_free(file);
		return pv_error_set(err, PV_EINVAL,
				    m->o.regex_on_path
					? "%s: the path does not match --context-regex-path '%s'"
					: "%s: the file name does not match --context-regex '%s'",
				    path, m->o.context_regex);
	}
	const char *what = path ? path : "a partial merge";
	if (p->callgraph.nr_nodes || p->func_costs.self)
		note(m,
		     "%s: its call graph (callgrind's exact function costs) is not merged: the "
		     "merged views use its calling contexts",
		     what);
	if (p->trace.len)
		note(m, "%s: its %u trace records (an HPCToolkit trace) are not merged", what,
		     p->trace.len);
	uint32_t items = 0;
	for (uint32_t i = 0; i < p->label_sets.len; i++)
		if (p->label_sets.count[i] > items)
			items = p->label_sets.count[i];
	int rc = 0;
	if (alloc_map(&m->str, p->strings.len) || alloc_map(&m->cat, p->categories.len) ||
	    alloc_map(&m->sub, p->subcategories.len) || alloc_map(&m->module, p->modules.len) ||
	    alloc_map(&m->source, p->sources.len) || alloc_map(&m->func, p->funcs.len) ||
	    alloc_map(&m->frame, p->frames.len) || alloc_map(&m->stack, p->stacks.len) ||
	    alloc_map(&m->metric, p->metrics.len) || alloc_map(&m->label, p->labels.len) ||
	    alloc_map(&m->lset, p->label_sets.len) || alloc_map(&m->items, items))
		m->b.status = PV_ENOMEM;
	if (!m->b.status)
		add_tables(m, p);
	if (!m->b.status)
		add_meta(m, p);
	if (!m->b.status)
		rc = add_threads(m, p, path, file, index, g, err);
	if (m->keep && !rc && !m->b.status) {
		*m->keep = (struct pv_merge_map){.stack = m->stack,
						 .metric = m->metric,
						 .lset = m->lset,
						 .nstack = p->stacks.len,
						 .nmetric = p->metrics.len,
						 .nlset = p->label_sets.len};
		m->stack = m->metric = m->lset = NULL;
	}
	maps_free(m);
	pv_free(file);
	if (rc)
		return rc;
	if (m->b.status)
		return pv_error_set(err, m->b.status,
				    m->b.status == PV_ENOMEM
					? "%s: out of memory while merging it"
					: "%s: the merged tables are past their "
					  "limit of 2^32 - 2 rows",
				    what);
	m->count++;
	return 0;
}

int pv_merge_add_profile(struct pv_merge *m, const struct pv_profile *p, const char *path,
			 uint64_t index, struct pv_error *err)
{
	return add(m, p, path, index, err);
}

int pv_merge_add_partial(struct pv_merge *m, const struct pv_profile *part, struct pv_error *err)
{
	return add(m, part, NULL, 0, err);
}

int pv_merge_add_dictionary(struct pv_merge *m, const struct pv_profile *part,
			    struct pv_merge_map *map, struct pv_error *err)
{
	*map = (struct pv_merge_map){0};
	m->no_rows = true;
	m->keep = map;
	int rc = add(m, part, NULL, 0, err);
	m->no_rows = false;
	m->keep = NULL;
	if (rc)
		pv_merge_map_free(map);
	return rc;
}

void pv_merge_map_free(struct pv_merge_map *map)
{
	pv_free(map->stack);
	pv_free(map->metric);
	pv_free(map->lset);
	*map = (struct pv_merge_map){0};
}

int pv_merge_add_file(struct pv_merge *m, const char *path, uint64_t index, struct pv_error *err)
{
	struct pv_profile *p = NULL;
	int rc = pv_import_file(path, m->o.format, &p, err);
	if (!rc)
		rc = pv_profile_check(p, err);
	if (!rc)
		rc = add(m, p, path, index, err);
	pv_profile_free(p);
	return rc;
}

/* ---- the result ---- */

/* Drops a column whose every one of n values is v (elt bytes each). */
static void drop_if_all(void **col, size_t elt, uint32_t n, const void *v)
{
	const char *c = *col;
	if (!c)
		return;
	for (uint32_t i = 0; i < n; i++)
		if (memcmp(c + (size_t)i * elt, v, elt))
			return;
	pv_free(*col);
	*col = NULL;
}

void pv_merge_skipped(struct pv_merge *m, uint64_t n)
{
	m->skipped += n;
}

/*
 * Context names made unique: the second context named x is "x #2", the third "x #3", ... (a
 * number that no context had as its name is taken). Done on the whole result only (at its end,
 * so the strings it makes come last whatever the split of the merge).
 */
static void unique_names(struct pv_merge *m)
{
	struct pv_builder *b = &m->b;
	uint32_t nstr = b->p->strings.len, nthr = b->p->threads.len;
	/* per string: 1 when a context had it as its name, then the last number given to it */
	uint32_t *used = pv_calloc(nstr ? nstr : 1, sizeof(*used));
	if (!used) {
		b->status = PV_ENOMEM;
		return;
	}
	uint32_t renamed = 0;
	pv_str_ix first = 0;
	for (pv_thread_ix t = 0; t < nthr; t++)
		used[b->p->threads.name[t]] = 1;
	uint8_t *seen = pv_calloc(nstr ? nstr : 1, 1);
	if (!seen) {
		pv_free(used);
		b->status = PV_ENOMEM;
		return;
	}
	for (pv_thread_ix t = 0; t < nthr && !b->status; t++) {
		pv_str_ix name = b->p->threads.name[t];
		if (!name || !seen[name]) {
			seen[name] = 1;
			continue;
		}
		/* a copy: interning may move the string table */
		char *base = pv_strdup(pv_str(b->p, name));
		if (!base) {
			b->status = PV_ENOMEM;
			break;
		}
		for (;;) {
			char num[24];
			snprintf(num, sizeof(num), " #%" PRIu32, ++used[name]);
			struct sbuf *s = &m->name;
			sbuf_reset(s);
			if (sbuf_puts(s, base) || sbuf_puts(s, num)) {
				b->status = PV_ENOMEM;
				break;
			}
			pv_str_ix k = builder_str(b, s->buf, s->len);
			if (k == PV_NONE || b->status)
				break;
			if (k < nstr && used[k])
				continue; /* some context's own name */
			b->p->threads.name[t] = k;
			break;
		}
		pv_free(base);
		if (!renamed++)
			first = name;
	}
	if (renamed && !b->status)
		note(m,
		     "%" PRIu32 " context names already taken by earlier contexts: numbered ' #2', "
		     "' #3', ... (the first: '%s')",
		     renamed, pv_str(b->p, first));
	pv_free(seen);
	pv_free(used);
}

static int finish(struct pv_merge *m, bool whole, struct pv_profile **out, struct pv_error *err)
{
	if (whole && !m->b.status)
		unique_names(m);
	if (whole && m->skipped && !m->b.status)
		add_diag(&m->b,
			 builder_cstr(&m->b,
				      "merge --skip-bad: an input that could not be read was "
				      "left out (each named on the merge's standard error)"),
			 m->skipped);
	struct pv_profile *a = m->b.p;
	if (!m->b.status) {
		struct pv_samples *s = &a->samples;
		const int64_t one = 1, none = PV_TIME_NONE;
		const uint64_t no_addr = PV_ADDR_NONE;
		const uint32_t zero = 0;
		for (uint32_t k = 0; k < a->metrics.len; k++)
			drop_if_all((void **)&s->weight[k], sizeof(int64_t), s->len, &one);
		drop_if_all((void **)&s->label_set, sizeof(uint32_t), s->len, &zero);
		drop_if_all((void **)&s->event_delay_ns, sizeof(int64_t), s->len, &none);
		drop_if_all((void **)&s->addr, sizeof(uint64_t), s->len, &no_addr);
	}
	struct pv_profile *p = NULL;
	int rc = builder_finish(&m->b, &p);
	if (rc)
		return pv_error_set(err, rc,
				    rc == PV_ENOMEM ? "out of memory while merging"
						    : "the merged tables are past their limit");
	struct pv_error verr;
	if (pv_profile_validate(p, &verr)) {
		pv_profile_free(p);
		return pv_error_set(err, PV_EPARSE, "the merged profile breaks an invariant: %s",
				    verr.msg);
	}
	*out = p;
	return 0;
}

int pv_merge_finish(struct pv_merge *m, struct pv_profile **out, struct pv_error *err)
{
	return finish(m, true, out, err);
}

int pv_merge_finish_partial(struct pv_merge *m, struct pv_profile **out, struct pv_error *err)
{
	return finish(m, false, out, err);
}

/* ---- the list of inputs ---- */

struct list {
	char **v;
	uint64_t n, cap;
	bool keep; /* a path that cannot be read is listed as it is (its import says why) */
};

static int list_add(struct list *l, char *s, struct pv_error *err)
{
	if (!s)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	if (l->n == l->cap) {
		uint64_t nc = l->cap ? l->cap * 2 : 64;
		char **v = pv_realloc(l->v, (size_t)nc * sizeof(*v));
		if (!v) {
			pv_free(s);
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		}
		l->v = v;
		l->cap = nc;
	}
	l->v[l->n++] = s;
	return 0;
}

/* A folder's entry: its name and whether the folder says it is a regular file. */
struct entry {
	char *name;
	bool file;
};

static int by_entry_name(const void *x, const void *y)
{
	return strcmp(((const struct entry *)x)->name, ((const struct entry *)y)->name);
}

static int add_path(struct list *l, const char *path, int depth, struct pv_error *err);

/* The entries of folder d at path, in byte order of their names, names starting with . skipped. */
static int add_folder(struct list *l, DIR *d, const char *path, int depth, struct pv_error *err)
{
	struct entry *v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (struct dirent *e; !rc && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			struct entry *nv = pv_realloc(v, (cap ? cap * 2 : 64) * sizeof(*v));
			if (!nv) {
				rc = pv_error_set(err, PV_ENOMEM, "out of memory");
				break;
			}
			v = nv;
			cap = cap ? cap * 2 : 64;
		}
		if (!(v[n].name = pv_strdup(e->d_name)))
			rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		else
			v[n++].file = e->d_type == DT_REG;
	}
	if (!rc && n)
		pv_sort(v, n, sizeof(*v), by_entry_name);
	size_t plen = strlen(path);
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	for (size_t i = 0; !rc && i < n; i++) {
		size_t len = plen + strlen(v[i].name) + 2;
		char *sub = pv_malloc(len);
		if (!sub) {
			rc = pv_error_set(err, PV_ENOMEM, "out of memory");
			break;
		}
		snprintf(sub, len, "%.*s/%s", (int)plen, path, v[i].name);
		/* a regular file is an input as it is: no stat of each of 10,000 files */
		if (v[i].file) {
			rc = list_add(l, sub, err);
			continue;
		}
		rc = add_path(l, sub, depth + 1, err);
		pv_free(sub);
	}
	for (size_t i = 0; i < n; i++)
		pv_free(v[i].name);
	pv_free(v);
	return rc;
}

static int add_path(struct list *l, const char *path, int depth, struct pv_error *err)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		if (l->keep)
			return list_add(l, pv_strdup(path), err);
		return pv_error_set(err, PV_EIO, "%s: cannot read: %s", path, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode) || import_folder_is_profile(path))
		return list_add(l, pv_strdup(path), err);
	if (depth > 64)
		return pv_error_set(err, PV_EIO, "%s: folders nested deeper than 64", path);
	DIR *d = opendir(path);
	if (!d) {
		if (l->keep)
			return list_add(l, pv_strdup(path), err);
		return pv_error_set(err, PV_EIO, "%s: cannot read: %s", path, strerror(errno));
	}
	int rc = add_folder(l, d, path, depth, err);
	closedir(d);
	return rc;
}

static int add_list(struct list *l, const char *file, struct pv_error *err)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return pv_error_set(err, PV_EIO, "%s: cannot read: %s", file, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while (!rc && (n = getline(&line, &cap, f)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (n == 0 || line[0] == '#')
			continue;
		rc = add_path(l, line, 0, err);
	}
	if (!rc && ferror(f))
		rc = pv_error_set(err, PV_EIO, "%s: cannot read: %s", file, strerror(errno));
	free(line);
	fclose(f);
	return rc;
}

int pv_merge_inputs(char *const *args, int nargs, char ***paths, uint64_t *n, struct pv_error *err)
{
	return pv_merge_inputs_keep(args, nargs, false, paths, n, err);
}

int pv_merge_inputs_keep(char *const *args, int nargs, bool keep, char ***paths, uint64_t *n,
			 struct pv_error *err)
{
	struct list l = {.keep = keep};
	int rc = 0;
	for (int i = 0; !rc && i < nargs; i++)
		rc = args[i][0] == '@' ? add_list(&l, args[i] + 1, err)
				       : add_path(&l, args[i], 0, err);
	if (rc) {
		pv_merge_inputs_free(l.v, l.n);
		return rc;
	}
	*paths = l.v;
	*n = l.n;
	return 0;
}

void pv_merge_inputs_free(char **paths, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		pv_free(paths[i]);
	pv_free(paths);
}
