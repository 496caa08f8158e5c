/*
 * snapshot.c - the snapshot format (doc/snapshot.md): write a profile's columns as sections of
 * one file, and open such a file as a profile whose columns point into its mapping.
 *
 * One table (cols[]) names every column of struct pv_profile with the table whose length counts
 * its rows; the writer, the reader and the documentation follow it, so a column added to the
 * model is added here once (and the version raised). Nothing of the file is trusted: the header,
 * the section table and each section are checksummed (XXH3, base/hash.h), every section must lie
 * inside the file, be aligned and hold exactly rows x element size bytes, and the profile built
 * over them must pass pv_profile_validate, so a crafted file cannot index out of bounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/output.h"
#include "base/sort.h"
#include "import/importer.h"
#include "model/profile_priv.h"
#include "pv/snapshot.h"

#define SNAP_VERSION	6
#define HEADER_SIZE	64
#define ENTRY_SIZE	32
#define ALIGN		64
#define BYTE_ORDER_MARK 0x01020304u
#define MAX_SECTIONS	(1u << 20)

static const unsigned char magic[8] = {0x89, 'P', 'V', 'S', '\r', '\n', 0x1a, '\n'};

/* ---- the layout ---- */

/*
 * The scalars of the model, in the order of the META section (one little-endian 64-bit word
 * each). The first NR_TABLES are row counts: a column's table is an index into this list.
 */
enum {
	T_STRINGS,
	T_CATEGORIES,
	T_SUBCATEGORIES,
	T_MODULES,
	T_SOURCES,
	T_FUNCS,
	T_FRAMES,
	T_STACKS,
	T_THREADS,
	T_SAMPLES,
	T_METRICS,
	T_MARKERS,
	T_DIAGS,
	T_LABELS,
	T_LABEL_SETS,
	T_LABEL_ITEMS,
	T_FUNC_COSTS,
	T_CG_NODES,
	T_CG_EDGES,
	T_CG_METRICS,
	T_FORMULAS,
	T_TRACE,
	NR_TABLES
};

struct scalar {
	const char *name;
	size_t off;   /* offsetof(struct pv_profile, ...) */
	uint8_t size; /* 4 (uint32_t) or 8 (int64_t) */
};

#define U32(name, field)                                    \
	{                                                   \
		name, offsetof(struct pv_profile, field), 4 \
	}
#define I64(name, field)                                    \
	{                                                   \
		name, offsetof(struct pv_profile, field), 8 \
	}

static const struct scalar scalars[] = {
    U32("strings", strings.len),
    U32("categories", categories.len),
    U32("subcategories", subcategories.len),
    U32("modules", modules.len),
    U32("sources", sources.len),
    U32("funcs", funcs.len),
    U32("frames", frames.len),
    U32("stacks", stacks.len),
    U32("threads", threads.len),
    U32("samples", samples.len),
    U32("metrics", metrics.len),
    U32("markers", markers.len),
    U32("diags", diags.len),
    U32("labels", labels.len),
    U32("label_sets", label_sets.len),
    U32("label_sets.items", label_sets.nr_items),
    U32("func_costs", func_costs.funcs_len),
    U32("callgraph.nodes", callgraph.nr_nodes),
    U32("callgraph.edges", callgraph.nr_edges),
    U32("callgraph.metrics", callgraph.nr_metrics),
    U32("formulas", formulas.len),
    U32("trace", trace.len),
    U32("meta.format", meta.format),
    U32("meta.format_version", meta.format_version),
    U32("meta.product", meta.product),
    I64("meta.interval_ns", meta.interval_ns),
    I64("meta.start_unix_ns", meta.start_unix_ns),
    U32("meta.default_metric", meta.default_metric),
    U32("meta.marker_schema", meta.marker_schema),
    I64("trace.end_ns", trace.end_ns),
};
#define NR_SCALARS (sizeof(scalars) / sizeof(scalars[0]))
/* and one more word after them: which arrays of per-metric columns exist, and meta.one_program
 * (FLAG_*) */
#define FLAG_WEIGHTS	 1u
#define FLAG_FUNC_COSTS	 2u
#define FLAG_CALLGRAPH	 4u
#define FLAG_ONE_PROGRAM 8u /* meta.one_program */
#define META_SIZE	 ((NR_SCALARS + 1) * 8)

/* Sections that are not columns. */
enum { S_META = 1, S_STRING_BYTES = 2, S_SOURCE = 3 };

/*
 * A column: section id, the table counting its rows, the element size, where its pointer is.
 * per_metric: the pointer is an array of columns (int64_t **), one per metric, the section's
 * index naming the metric; its count is metrics.len, or callgraph.nr_metrics (T_CG_METRICS).
 */
struct col {
	uint16_t id;
	uint8_t table;
	uint8_t elem;
	uint8_t optional;   /* NULL is a valid value whatever the row count */
	uint8_t per_metric; /* 0, or the table counting the array's columns */
	size_t off;
	const char *name;
};

#define ELEM(field) sizeof(*((struct pv_profile *)0)->field)
#define COLUMN(id, t, field)                                                         \
	{                                                                            \
		id, t, ELEM(field), 0, 0, offsetof(struct pv_profile, field), #field \
	}
#define OPTIONAL(id, t, field)                                                       \
	{                                                                            \
		id, t, ELEM(field), 1, 0, offsetof(struct pv_profile, field), #field \
	}
#define METRIC_COLS(id, t, n, field)                                                    \
	{                                                                               \
		id, t, ELEM(field[0]), 1, n, offsetof(struct pv_profile, field), #field \
	}

static const struct col cols[] = {
    COLUMN(16, T_STRINGS, strings.size),
    COLUMN(17, T_CATEGORIES, categories.name),
    COLUMN(18, T_CATEGORIES, categories.color),
    COLUMN(19, T_CATEGORIES, categories.sub_first),
    COLUMN(20, T_CATEGORIES, categories.sub_len),
    COLUMN(21, T_SUBCATEGORIES, subcategories.name),
    COLUMN(22, T_MODULES, modules.name),
    COLUMN(23, T_MODULES, modules.path),
    COLUMN(24, T_MODULES, modules.kind),
    COLUMN(25, T_SOURCES, sources.path),
    COLUMN(26, T_FUNCS, funcs.name),
    OPTIONAL(27, T_FUNCS, funcs.module),
    OPTIONAL(28, T_FUNCS, funcs.source),
    OPTIONAL(29, T_FUNCS, funcs.line),
    OPTIONAL(30, T_FUNCS, funcs.column),
    COLUMN(31, T_FRAMES, frames.func),
    OPTIONAL(32, T_FRAMES, frames.line),
    OPTIONAL(33, T_FRAMES, frames.column),
    OPTIONAL(34, T_FRAMES, frames.addr),
    OPTIONAL(35, T_FRAMES, frames.inline_depth),
    OPTIONAL(36, T_FRAMES, frames.category),
    OPTIONAL(37, T_FRAMES, frames.subcategory),
    OPTIONAL(38, T_FRAMES, frames.kind),
    OPTIONAL(39, T_FRAMES, frames.source),
    COLUMN(40, T_STACKS, stacks.frame),
    COLUMN(41, T_STACKS, stacks.prefix),
    COLUMN(42, T_THREADS, threads.name),
    COLUMN(43, T_THREADS, threads.process_name),
    COLUMN(44, T_THREADS, threads.process_type),
    COLUMN(45, T_THREADS, threads.pid),
    COLUMN(46, T_THREADS, threads.tid),
    COLUMN(47, T_THREADS, threads.start_ns),
    COLUMN(48, T_THREADS, threads.end_ns),
    COLUMN(49, T_THREADS, threads.sample_begin),
    COLUMN(50, T_THREADS, threads.sample_end),
    COLUMN(51, T_SAMPLES, samples.stack),
    OPTIONAL(52, T_SAMPLES, samples.time_ns),
    OPTIONAL(53, T_SAMPLES, samples.label_set),
    OPTIONAL(54, T_SAMPLES, samples.event_delay_ns),
    COLUMN(55, T_METRICS, metrics.name),
    COLUMN(56, T_METRICS, metrics.unit),
    COLUMN(57, T_METRICS, metrics.description),
    COLUMN(58, T_MARKERS, markers.name),
    COLUMN(59, T_MARKERS, markers.category),
    COLUMN(60, T_MARKERS, markers.phase),
    COLUMN(61, T_MARKERS, markers.start_ns),
    COLUMN(62, T_MARKERS, markers.end_ns),
    COLUMN(63, T_MARKERS, markers.thread),
    COLUMN(64, T_MARKERS, markers.payload),
    COLUMN(65, T_MARKERS, markers.cause_stack),
    COLUMN(66, T_MARKERS, markers.cause_time_ns),
    COLUMN(67, T_DIAGS, diags.msg),
    COLUMN(68, T_DIAGS, diags.count),
    COLUMN(69, T_LABELS, labels.key),
    COLUMN(70, T_LABELS, labels.str),
    COLUMN(71, T_LABELS, labels.num),
    COLUMN(72, T_LABELS, labels.unit),
    COLUMN(73, T_LABEL_SETS, label_sets.first),
    COLUMN(74, T_LABEL_SETS, label_sets.count),
    COLUMN(75, T_LABEL_ITEMS, label_sets.items),
    COLUMN(76, T_CG_NODES, callgraph.node_thread),
    COLUMN(77, T_CG_NODES, callgraph.node_func),
    COLUMN(78, T_CG_EDGES, callgraph.edge_thread),
    COLUMN(79, T_CG_EDGES, callgraph.caller),
    COLUMN(80, T_CG_EDGES, callgraph.callee),
    COLUMN(81, T_CG_EDGES, callgraph.calls),
    COLUMN(82, T_CG_EDGES, callgraph.kind),
    COLUMN(83, T_FORMULAS, formulas.name),
    COLUMN(84, T_FORMULAS, formulas.formula),
    COLUMN(85, T_FORMULAS, formulas.description),
    COLUMN(86, T_TRACE, trace.thread),
    COLUMN(87, T_TRACE, trace.time_ns),
    COLUMN(88, T_TRACE, trace.stack),
    COLUMN(89, T_FORMULAS, formulas.self),
    OPTIONAL(90, T_SAMPLES, samples.addr),
    METRIC_COLS(128, T_SAMPLES, T_METRICS, samples.weight),
    METRIC_COLS(129, T_FUNC_COSTS, T_METRICS, func_costs.self),
    METRIC_COLS(130, T_FUNC_COSTS, T_METRICS, func_costs.total),
    METRIC_COLS(131, T_CG_NODES, T_CG_METRICS, callgraph.node_self),
    METRIC_COLS(132, T_CG_EDGES, T_CG_METRICS, callgraph.edge_cost),
};
#define NR_COLS (sizeof(cols) / sizeof(cols[0]))

static void **col_ptr(struct pv_profile *p, const struct col *c)
{
	return (void **)((char *)p + c->off);
}

static uint32_t *scalar_u32(struct pv_profile *p, size_t i)
{
	return (uint32_t *)((char *)p + scalars[i].off);
}

static uint32_t rows_of(const struct pv_profile *p, uint8_t table)
{
	return *scalar_u32((struct pv_profile *)p, table);
}

static uint32_t flags_of(const struct pv_profile *p)
{
	return (p->samples.weight ? FLAG_WEIGHTS : 0) | (p->func_costs.self ? FLAG_FUNC_COSTS : 0) |
	       (p->callgraph.node_self || p->callgraph.edge_cost ? FLAG_CALLGRAPH : 0) |
	       (p->meta.one_program ? FLAG_ONE_PROGRAM : 0);
}

static uint32_t metric_flag(const struct col *c)
{
	return c->id == 128		       ? FLAG_WEIGHTS
	       : c->per_metric == T_CG_METRICS ? FLAG_CALLGRAPH
					       : FLAG_FUNC_COSTS;
}

static uint64_t rd64(const unsigned char *b)
{
	uint64_t v;
	memcpy(&v, b, 8);
	return v;
}

static uint32_t rd32(const unsigned char *b)
{
	uint32_t v;
	memcpy(&v, b, 4);
	return v;
}

static void wr64(unsigned char *b, uint64_t v)
{
	memcpy(b, &v, 8);
}

static void wr32(unsigned char *b, uint32_t v)
{
	memcpy(b, &v, 4);
}

/* ---- writing ---- */

struct out_section {
	uint32_t id, index;
	const void *data;
	uint64_t size, offset, hash;
};

struct writer {
	struct out_section *s;
	uint32_t n, cap;
};

static int add(struct writer *w, uint32_t id, uint32_t index, const void *data, uint64_t size)
{
	if (w->n == w->cap) {
		uint32_t cap = w->cap ? w->cap * 2 : 128;
		struct out_section *ns = pv_realloc(w->s, cap * sizeof(*ns));
		if (!ns)
			return PV_ENOMEM;
		w->s = ns;
		w->cap = cap;
	}
	w->s[w->n++] = (struct out_section){.id = id, .index = index, .data = data, .size = size};
	return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const char *b = buf;
	while (n) {
		ssize_t r = write(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

static int write_file(int fd, const struct writer *w, const unsigned char *head, size_t head_len)
{
	static const unsigned char zero[ALIGN];
	uint64_t at = head_len;
	if (write_all(fd, head, head_len))
		return -1;
	for (uint32_t i = 0; i < w->n; i++) {
		if (w->s[i].offset > at && write_all(fd, zero, (size_t)(w->s[i].offset - at)))
			return -1;
		at = w->s[i].offset;
		if (!w->s[i].data) { /* a hole, written by others */
			at += w->s[i].size;
			if (lseek(fd, (off_t)at, SEEK_SET) < 0)
				return -1;
			continue;
		}
		if (write_all(fd, w->s[i].data, (size_t)w->s[i].size))
			return -1;
		at += w->s[i].size;
	}
	return ftruncate(fd, (off_t)at);
}

/* A snapshot laid out in memory: the header and section table, and the sections it points to. */
struct layout {
	struct writer w;
	unsigned char meta[META_SIZE];
	unsigned char *head, *strings, *source;
	size_t head_len;
	uint64_t total; /* the file's size */
};

static void layout_free(struct layout *l)
{
	pv_free(l->head);
	pv_free(l->source);
	pv_free(l->strings);
	pv_free(l->w.s);
}

/*
 * Whether the sample column c (metric m) is a hole of rows (written by others), and its bit in
 * rows->cols.
 */
static bool is_hole(const struct pv_snapshot_rows *rows, const struct col *c, uint32_t m)
{
	if (!rows || c->table != T_SAMPLES)
		return false;
	switch (c->id) {
	case 51: return true;
	case 52: return rows->cols & PV_SNAP_TIME;
	case 53: return rows->cols & PV_SNAP_LABEL_SET;
	case 54: return rows->cols & PV_SNAP_EVENT_DELAY;
	case 90: return rows->cols & PV_SNAP_ADDR;
	default: return rows->weight[m];
	}
}

/* The columns' sections; with rows, the sample columns are holes (data NULL) of rows->rows. */
static int add_columns(const struct pv_profile *p, const struct pv_snapshot_rows *rows,
		       struct writer *w)
{
	for (size_t i = 0; i < NR_COLS; i++) {
		const struct col *c = &cols[i];
		void *col = *col_ptr((struct pv_profile *)p, c);
		uint64_t nrows = rows_of(p, c->table);
		if (rows && c->table == T_SAMPLES)
			nrows = rows->rows;
		uint64_t size = nrows * c->elem;
		bool holes = rows && c->table == T_SAMPLES;
		if (!c->per_metric) {
			if (holes ? is_hole(rows, c, 0) && add(w, c->id, 0, NULL, size)
				  : col && add(w, c->id, 0, col, size))
				return PV_ENOMEM;
			continue;
		}
		int64_t **arr = col;
		for (uint32_t m = 0; (arr || holes) && m < rows_of(p, c->per_metric); m++) {
			if (holes ? is_hole(rows, c, m) && add(w, c->id, m, NULL, size)
				  : arr[m] && add(w, c->id, m, arr[m], size))
				return PV_ENOMEM;
		}
	}
	return 0;
}

/* Lays p out as a snapshot (nothing written yet). Returns 0 or PV_ENOMEM. */
static int lay_out(const struct pv_profile *p, const struct pv_snapshot_source *src,
		   const struct pv_snapshot_rows *rows, struct layout *l)
{
	struct writer *w = &l->w;
	unsigned char *meta = l->meta;
	for (size_t i = 0; i < NR_SCALARS; i++) {
		const char *f = (const char *)p + scalars[i].off;
		uint64_t v;
		if (scalars[i].size == 4) {
			uint32_t u;
			memcpy(&u, f, 4);
			v = u;
		} else {
			int64_t s;
			memcpy(&s, f, 8);
			v = (uint64_t)s;
		}
		wr64(meta + i * 8, v);
	}
	if (rows)
		wr64(meta + T_SAMPLES * 8, rows->rows);
	wr64(meta + NR_SCALARS * 8, flags_of(p));
	if (add(w, S_META, 0, meta, sizeof(l->meta)))
		return PV_ENOMEM;

	/* the strings' bytes, each followed by its NUL, in index order */
	uint64_t nbytes = 0;
	for (uint32_t i = 0; i < p->strings.len; i++)
		nbytes += (uint64_t)p->strings.size[i] + 1;
	if (nbytes > SIZE_MAX || !(l->strings = pv_malloc((size_t)nbytes)))
		return PV_ENOMEM;
	for (uint64_t i = 0, at = 0; i < p->strings.len; i++) {
		memcpy(l->strings + at, p->strings.ptr[i], (size_t)p->strings.size[i] + 1);
		at += (uint64_t)p->strings.size[i] + 1;
	}
	if (add(w, S_STRING_BYTES, 0, l->strings, nbytes))
		return PV_ENOMEM;

	if (src) {
		size_t pl = strlen(src->path), fl = strlen(src->format);
		if (!(l->source = pv_malloc(24 + pl + fl)))
			return PV_ENOMEM;
		wr64(l->source, src->size);
		wr64(l->source + 8, (uint64_t)src->mtime_ns);
		wr32(l->source + 16, (uint32_t)pl);
		wr32(l->source + 20, (uint32_t)fl);
		memcpy(l->source + 24, src->path, pl);
		memcpy(l->source + 24 + pl, src->format, fl);
		if (add(w, S_SOURCE, 0, l->source, 24 + pl + fl))
			return PV_ENOMEM;
	}

	if (add_columns(p, rows, w))
		return PV_ENOMEM;

	/* the layout: header, section table, then the sections, each aligned */
	size_t head_len = HEADER_SIZE + (size_t)w->n * ENTRY_SIZE;
	uint64_t at = head_len;
	for (uint32_t i = 0; i < w->n; i++) {
		at = (at + ALIGN - 1) / ALIGN * ALIGN;
		w->s[i].offset = at;
		if (w->s[i].data) /* a hole's, once it is written: pv_snapshot_parts_finish */
			w->s[i].hash = hash_bytes(w->s[i].data, (size_t)w->s[i].size);
		at += w->s[i].size;
	}
	unsigned char *head = l->head = pv_calloc(1, head_len);
	if (!head)
		return PV_ENOMEM;
	for (uint32_t i = 0; i < w->n; i++) {
		unsigned char *e = head + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
		wr32(e, w->s[i].id);
		wr32(e + 4, w->s[i].index);
		wr64(e + 8, w->s[i].offset);
		wr64(e + 16, w->s[i].size);
		wr64(e + 24, w->s[i].hash);
	}
	memcpy(head, magic, sizeof(magic));
	wr32(head + 8, SNAP_VERSION);
	wr32(head + 12, BYTE_ORDER_MARK);
	wr64(head + 16, at);
	wr32(head + 24, w->n);
	wr64(head + 32, hash_bytes(head + HEADER_SIZE, (size_t)w->n * ENTRY_SIZE));
	snprintf((char *)head + 40, 16, "profview %s", PV_VERSION);
	wr64(head + 56, hash_bytes(head, 56));
	l->head_len = head_len;
	l->total = at;
	return 0;
}

int pv_snapshot_write(const struct pv_profile *p, const char *path,
		      const struct pv_snapshot_source *src, struct pv_error *err)
{
	struct layout l = {0};
	char *tmp = NULL;
	int rc, fd = -1;
	if ((rc = pv_output_check(path, err))) /* before the work of laying it out */
		return rc;
	if ((rc = lay_out(p, src, NULL, &l)))
		goto out;
	if ((rc = output_temp(path, &fd, &tmp, err)))
		goto out;
	if (write_file(fd, &l.w, l.head, l.head_len) || close(fd)) {
		int e = errno;
		fd = -1;
		unlink(tmp);
		rc = pv_error_set(err, PV_EIO, "%s: cannot write: %s", path, strerror(e));
		goto out;
	}
	fd = -1;
	rc = output_replace(tmp, path, err);
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	if (rc == PV_ENOMEM)
		pv_error_set(err, PV_ENOMEM, "%s: out of memory while writing the snapshot", path);
	pv_free(tmp);
	layout_free(&l);
	return rc;
}

int pv_snapshot_write_memory(const struct pv_profile *p, void **buf, size_t *len,
			     struct pv_error *err)
{
	struct layout l = {0};
	unsigned char *b = NULL;
	int rc = lay_out(p, NULL, NULL, &l);
	if (!rc && (l.total > SIZE_MAX || !(b = pv_calloc(1, (size_t)l.total))))
		rc = PV_ENOMEM;
	if (!rc) {
		memcpy(b, l.head, l.head_len);
		for (uint32_t i = 0; i < l.w.n; i++)
			memcpy(b + l.w.s[i].offset, l.w.s[i].data, (size_t)l.w.s[i].size);
		*buf = b;
		*len = (size_t)l.total;
	} else {
		pv_error_set(err, PV_ENOMEM, "out of memory while laying out a snapshot");
	}
	layout_free(&l);
	return rc;
}

/* ---- a snapshot whose sample rows others write (profview merge under MPI) ---- */

struct pv_snapshot_parts {
	struct layout l;
	char *path, *tmp;
	int fd;
};

void pv_snapshot_parts_free(struct pv_snapshot_parts *sp)
{
	if (!sp)
		return;
	if (sp->fd >= 0) {
		close(sp->fd);
		unlink(sp->tmp);
	}
	layout_free(&sp->l);
	pv_free(sp->path);
	pv_free(sp->tmp);
	pv_free(sp);
}

int pv_snapshot_parts_begin(const struct pv_profile *p, const struct pv_snapshot_rows *rows,
			    const char *path, struct pv_snapshot_parts **out, struct pv_error *err)
{
	struct pv_snapshot_parts *sp = pv_calloc(1, sizeof(*sp));
	if (!sp)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", path);
	sp->fd = -1;
	int rc = pv_output_check(path, err);
	if (!rc && (!(sp->path = pv_strdup(path)) || lay_out(p, NULL, rows, &sp->l)))
		rc = pv_error_set(err, PV_ENOMEM, "%s: out of memory while writing the snapshot",
				  path);
	if (!rc)
		rc = output_temp(path, &sp->fd, &sp->tmp, err);
	if (!rc && write_file(sp->fd, &sp->l.w, sp->l.head, sp->l.head_len))
		rc = pv_error_set(err, PV_EIO, "%s: cannot write: %s", path, strerror(errno));
	if (rc) {
		pv_snapshot_parts_free(sp);
		return rc;
	}
	*out = sp;
	return 0;
}

const char *pv_snapshot_parts_file(const struct pv_snapshot_parts *sp)
{
	return sp->tmp;
}

uint64_t pv_snapshot_parts_offset(const struct pv_snapshot_parts *sp, uint32_t id, uint32_t index)
{
	for (uint32_t i = 0; i < sp->l.w.n; i++)
		if (sp->l.w.s[i].id == id && sp->l.w.s[i].index == index && !sp->l.w.s[i].data)
			return sp->l.w.s[i].offset;
	return 0;
}

int pv_snapshot_parts_finish(struct pv_snapshot_parts *sp, struct pv_error *err)
{
	struct writer *w = &sp->l.w;
	unsigned char *head = sp->l.head;
	/* opened again: what the other processes wrote, as a file system that is not local shows
	 * it to a process that opens the file after they closed it */
	int fd = open(sp->tmp, O_RDONLY | O_CLOEXEC);
	void *map = MAP_FAILED;
	if (fd >= 0 && sp->l.total)
		map = mmap(NULL, (size_t)sp->l.total, PROT_READ, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	if (map == MAP_FAILED)
		return pv_error_set(err, PV_EIO, "%s: cannot read it back: %s", sp->path,
				    strerror(errno));
	for (uint32_t i = 0; i < w->n; i++) {
		unsigned char *e = head + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
		if (!w->s[i].data)
			wr64(e + 24,
			     hash_bytes((const char *)map + w->s[i].offset, (size_t)w->s[i].size));
	}
	munmap(map, (size_t)sp->l.total);
	wr64(head + 32, hash_bytes(head + HEADER_SIZE, (size_t)w->n * ENTRY_SIZE));
	wr64(head + 56, hash_bytes(head, 56));
	if (pwrite(sp->fd, head, sp->l.head_len, 0) != (ssize_t)sp->l.head_len || close(sp->fd)) {
		int e = errno;
		sp->fd = -1;
		unlink(sp->tmp);
		return pv_error_set(err, PV_EIO, "%s: cannot write: %s", sp->path, strerror(e));
	}
	sp->fd = -1;
	return output_replace(sp->tmp, sp->path, err);
}

/* ---- reading ---- */

/* Whether n bytes at b have the checksum sum. */
static int sum_ok(uint64_t sum, const void *b, uint64_t n)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	/* a fuzzer cannot forge checksums: it tests the checks behind them */
	(void)sum;
	(void)b;
	(void)n;
	return 1;
#else
	return hash_bytes(b, (size_t)n) == sum;
#endif
}

struct in_section {
	uint32_t id, index;
	uint64_t offset, size, hash;
	uint64_t entry; /* byte offset of its entry in the section table */
};

struct reader {
	const struct pv_input *in;
	const unsigned char *b;
	size_t len;
	struct in_section *s; /* sorted by (id, index) */
	uint32_t n;
	struct pv_error *err;
};

__attribute__((format(printf, 4, 5))) static int fail_at(struct pv_error *err, const char *name,
							 uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = name_vfail_byte(name, err, PV_EPARSE, off, fmt, ap);
	va_end(ap);
	return rc;
}

/* "NAME: byte OFF: what", PV_EPARSE */
#define fail(r, off, ...) fail_at((r)->err, (r)->in->name, (off), __VA_ARGS__)

static int by_key(const void *a, const void *b)
{
	const struct in_section *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static uint32_t first(const struct reader *r, uint32_t id);

static const struct in_section *find(const struct reader *r, uint32_t id, uint32_t index)
{
	for (uint32_t k = first(r, id); k < r->n && r->s[k].id == id; k++)
		if (r->s[k].index == index)
			return &r->s[k];
	return NULL;
}

/* The first section of id (r->n when none). */
static uint32_t first(const struct reader *r, uint32_t id)
{
	uint32_t lo = 0, hi = r->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (r->s[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const char *section_name(uint32_t id)
{
	switch (id) {
	case S_META: return "meta";
	case S_STRING_BYTES: return "string bytes";
	case S_SOURCE: return "source";
	}
	for (size_t i = 0; i < NR_COLS; i++)
		if (cols[i].id == id)
			return cols[i].name;
	return NULL;
}

static int by_offset(const void *a, const void *b)
{
	const struct in_section *x = *(const struct in_section *const *)a,
				*y = *(const struct in_section *const *)b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * The sections do not overlap and the bytes between them (their alignment) are zeros, so every
 * byte of the file is either checksummed or known: no damage goes unseen.
 */
static int check_gaps(struct reader *r)
{
	const struct in_section **by = pv_malloc((r->n ? r->n : 1) * sizeof(*by));
	if (!by)
		return pv_error_set(r->err, PV_ENOMEM, "%s: out of memory", r->in->name);
	for (uint32_t i = 0; i < r->n; i++)
		by[i] = &r->s[i];
	pv_sort(by, r->n, sizeof(*by), by_offset);
	uint64_t at = HEADER_SIZE + (uint64_t)r->n * ENTRY_SIZE;
	int rc = 0;
	for (uint32_t i = 0; i <= r->n && !rc; i++) {
		uint64_t next = i < r->n ? by[i]->offset : r->len;
		if (next < at) {
			rc = fail(
			    r, by[i]->entry + 8,
			    "snapshot section %s overlaps the one before it (at %llu, that one "
			    "ends at %llu)",
			    section_name(by[i]->id), (unsigned long long)next,
			    (unsigned long long)at);
			break;
		}
		for (uint64_t k = at; k < next; k++)
			if (r->b[k]) {
				rc = fail(r, k,
					  "snapshot damaged: a zero byte of padding was "
					  "expected between sections");
				break;
			}
		if (i < r->n)
			at = by[i]->offset + by[i]->size;
	}
	pv_free(by);
	return rc;
}

/* The header and the section table: each section inside the file, aligned, known, once. */
static int read_table(struct reader *r)
{
	const unsigned char *b = r->b;
	if (memcmp(b, magic, r->len < sizeof(magic) ? r->len : sizeof(magic)) != 0)
		return fail(r, 0,
			    "not a profview snapshot (its first 8 bytes are not the snapshot "
			    "magic)");
	if (r->len < HEADER_SIZE)
		return fail(r, r->len, "snapshot cut short: %zu bytes, a header of %d was expected",
			    r->len, HEADER_SIZE);
	uint32_t version = rd32(b + 8);
	if (rd32(b + 12) != BYTE_ORDER_MARK)
		return fail(r, 12,
			    "snapshot of another byte order (written on another kind of "
			    "machine): make it again here with 'profview snapshot'");
	if (version != SNAP_VERSION) {
		char writer[17] = ""; /* its control bytes escaped by the message */
		memcpy(writer, b + 40, 16);
		return fail(r, 8,
			    "snapshot version %u (written by %s), this profview reads version %d: "
			    "make it again with 'profview snapshot'",
			    version, *writer ? writer : "an unknown writer", SNAP_VERSION);
	}
	if (!sum_ok(rd64(b + 56), b, 56))
		return fail(r, 56, "snapshot header damaged (its checksum does not match)");
	uint64_t size = rd64(b + 16);
	if (size != r->len)
		return fail(r, r->len < size ? r->len : size,
			    "snapshot %s: %zu bytes, its header says %llu",
			    r->len < size ? "cut short" : "with trailing bytes", r->len,
			    (unsigned long long)size);
	uint32_t n = rd32(b + 24);
	if (n > MAX_SECTIONS || HEADER_SIZE + (uint64_t)n * ENTRY_SIZE > r->len)
		return fail(r, 24, "snapshot section count %u does not fit in its %zu bytes", n,
			    r->len);
	if (!sum_ok(rd64(b + 32), b + HEADER_SIZE, (uint64_t)n * ENTRY_SIZE))
		return fail(r, HEADER_SIZE,
			    "snapshot section table damaged (its checksum does not match)");
	r->s = pv_malloc((n ? n : 1) * sizeof(*r->s));
	if (!r->s)
		return pv_error_set(r->err, PV_ENOMEM, "%s: out of memory", r->in->name);
	r->n = n;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *e = b + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
		struct in_section *s = &r->s[i];
		s->entry = HEADER_SIZE + (uint64_t)i * ENTRY_SIZE;
		s->id = rd32(e);
		s->index = rd32(e + 4);
		s->offset = rd64(e + 8);
		s->size = rd64(e + 16);
		s->hash = rd64(e + 24);
		if (!section_name(s->id))
			return fail(r, s->entry, "snapshot section %u: unknown id %u", i, s->id);
		if (s->offset % 8 || s->offset < HEADER_SIZE + (uint64_t)n * ENTRY_SIZE ||
		    s->offset > r->len || s->size > r->len - s->offset)
			return fail(r, s->entry + 8,
				    "snapshot section %s: bytes [%llu, +%llu) are not inside the "
				    "file's data (%zu bytes), aligned to 8",
				    section_name(s->id), (unsigned long long)s->offset,
				    (unsigned long long)s->size, r->len);
	}
	pv_sort(r->s, n, sizeof(*r->s), by_key);
	for (uint32_t i = 1; i < n; i++)
		if (r->s[i].id == r->s[i - 1].id && r->s[i].index == r->s[i - 1].index)
			return fail(r, r->s[i].entry, "snapshot section %s[%u] appears twice",
				    section_name(r->s[i].id), r->s[i].index);
	return check_gaps(r);
}

/*
 * Each section's checksum. Hashing reads every byte of the file once, most of what an open would
 * cost, so the sections of LAZY_BYTES or more (the sample columns: nearly all the bytes of a big
 * profile) are hashed by a helper thread started at open, which goes on after the open returns,
 * while the caller computes its view; pv_profile_check() waits for its verdict, and front ends
 * ask for it before they show anything (doc/snapshot.md). The rest is hashed at open. What the
 * helper needs outlives the open: it is the profile's storage (struct snap).
 */
#define LAZY_BYTES ((uint64_t)1 << 20)

struct snap {
	struct pv_input *in; /* the bytes (input_take), NULL until the open succeeds */
	const unsigned char *b;
	char *name;	      /* for messages */
	struct in_section *s; /* the section table, sorted by (id, index) */
	uint32_t n;
	uint8_t *mine; /* [section]: 1 for the helper's */
	uint32_t bad;  /* the helper's first damaged section, n when none */
	pthread_t th;
	int running;
	pthread_mutex_t lock;
};

static uint32_t hash_sections(const unsigned char *b, const struct in_section *s, uint32_t n,
			      const uint8_t *mine, uint8_t who)
{
	for (uint32_t i = 0; i < n; i++)
		if ((mine ? mine[i] : 0) == who && !sum_ok(s[i].hash, b + s[i].offset, s[i].size))
			return i;
	return n;
}

static void *hash_helper(void *arg)
{
	struct snap *h = arg;
	h->bad = hash_sections(h->b, h->s, h->n, h->mine, 1);
	return NULL;
}

/* Starts the helper on the big sections (mine[]); hashes them here when no thread starts. */
static void hash_start(struct snap *h)
{
	h->bad = h->n;
	uint32_t big = 0;
	for (uint32_t i = 0; i < h->n; i++)
		big += h->mine[i];
	if (big && !(h->running = pthread_create(&h->th, NULL, hash_helper, h) == 0))
		h->bad = hash_sections(h->b, h->s, h->n, h->mine, 1); /* no thread: here */
}

/* The helper's verdict, once it is done: its first damaged section, n when none. */
static uint32_t hash_wait(struct snap *h)
{
	pthread_mutex_lock(&h->lock);
	if (h->running) {
		pthread_join(h->th, NULL);
		h->running = 0;
	}
	pthread_mutex_unlock(&h->lock);
	return h->bad;
}

static void snap_free(void *ctx)
{
	struct snap *h = ctx;
	if (!h)
		return;
	hash_wait(h);
	pthread_mutex_destroy(&h->lock);
	if (h->in) {
		input_close(h->in);
		pv_free(h->in);
	}
	pv_free(h->mine);
	pv_free(h->s);
	pv_free(h->name);
	pv_free(h);
}

static int snap_damaged(struct pv_error *err, const char *name, const struct in_section *s)
{
	return fail_at(err, name, s->offset,
		       "snapshot section %s[%u] damaged (%llu bytes: their checksum does "
		       "not match)",
		       section_name(s->id), s->index, (unsigned long long)s->size);
}

/* pv_storage's check: the big sections' verdict. */
static int snap_check(void *ctx, struct pv_error *err)
{
	struct snap *h = ctx;
	uint32_t bad = hash_wait(h);
	return bad < h->n ? snap_damaged(err, h->name, &h->s[bad]) : 0;
}

/* The META section into p's scalars (row counts, meta); *flags the per-metric arrays. */
static int read_meta(struct reader *r, struct pv_profile *p, uint32_t *flags)
{
	const struct in_section *s = find(r, S_META, 0);
	if (!s)
		return fail(r, HEADER_SIZE, "snapshot has no meta section");
	if (s->size != META_SIZE)
		return fail(r, s->entry + 16, "snapshot meta section of %llu bytes, %zu expected",
			    (unsigned long long)s->size, (size_t)META_SIZE);
	const unsigned char *b = r->b + s->offset;
	for (size_t i = 0; i < NR_SCALARS; i++) {
		uint64_t v = rd64(b + i * 8);
		char *f = (char *)p + scalars[i].off;
		if (scalars[i].size == 8) {
			memcpy(f, &v, 8);
			continue;
		}
		if (v > UINT32_MAX || (i < NR_TABLES && v > PV_MAX_ROWS))
			return fail(r, s->offset + i * 8,
				    "snapshot %s: %llu, a 32-bit %s was expected", scalars[i].name,
				    (unsigned long long)v, i < NR_TABLES ? "row count" : "index");
		uint32_t u = (uint32_t)v;
		memcpy(f, &u, 4);
	}
	uint64_t fl = rd64(b + NR_SCALARS * 8);
	if (fl & ~(uint64_t)(FLAG_WEIGHTS | FLAG_FUNC_COSTS | FLAG_CALLGRAPH | FLAG_ONE_PROGRAM))
		return fail(r, s->offset + NR_SCALARS * 8, "snapshot flags 0x%llx: unknown bits",
			    (unsigned long long)fl);
	*flags = (uint32_t)fl;
	p->meta.one_program = fl & FLAG_ONE_PROGRAM;
	/* the one count no section bounds: the call graph's metric columns are the profile's */
	if (p->callgraph.nr_metrics && p->callgraph.nr_metrics != p->metrics.len)
		return fail(r, s->offset + T_CG_METRICS * 8,
			    "snapshot callgraph.metrics: %u, 0 or the %u metrics expected",
			    p->callgraph.nr_metrics, p->metrics.len);
	if (!p->strings.len)
		return fail(r, s->offset, "snapshot has no string table (string 0 is \"\")");
	return 0;
}

/* Points the column (or column m of an array) at its section: exactly rows x elem bytes. */
static int bind(struct reader *r, const struct col *c, const struct in_section *s, uint32_t rows,
		void **dst)
{
	uint64_t want = (uint64_t)rows * c->elem;
	if (s->size != want)
		return fail(r, s->entry + 16,
			    "snapshot section %s[%u]: %llu bytes, %u rows of %u bytes (%llu) "
			    "expected",
			    c->name, s->index, (unsigned long long)s->size, rows, c->elem,
			    (unsigned long long)want);
	if (s->offset % c->elem)
		return fail(r, s->entry + 8, "snapshot section %s: offset %llu not aligned to %u",
			    c->name, (unsigned long long)s->offset, c->elem);
	*dst = (void *)(r->b + s->offset);
	return 0;
}

static int read_columns(struct reader *r, struct pv_profile *p, uint32_t flags)
{
	for (size_t i = 0; i < NR_COLS; i++) {
		const struct col *c = &cols[i];
		uint32_t rows = rows_of(p, c->table);
		void **dst = col_ptr(p, c);
		if (!c->per_metric) {
			const struct in_section *s = find(r, c->id, 0);
			int rc;
			if (s && (rc = bind(r, c, s, rows, dst)))
				return rc;
			if (!s && rows && !c->optional)
				return fail(r, HEADER_SIZE,
					    "snapshot has no section %s (%u rows expected)",
					    c->name, rows);
			continue;
		}
		uint32_t n = rows_of(p, c->per_metric);
		bool has = flags & metric_flag(c);
		if (has) {
			*dst = pv_calloc(n ? n : 1, sizeof(int64_t *));
			if (!*dst)
				return pv_error_set(r->err, PV_ENOMEM, "%s: out of memory",
						    r->in->name);
		}
		void **arr = *dst;
		for (uint32_t k = first(r, c->id); k < r->n && r->s[k].id == c->id; k++) {
			const struct in_section *s = &r->s[k];
			if (!has || s->index >= n)
				return fail(r, s->entry + 4,
					    "snapshot section %s[%u]: no such metric column (%u "
					    "metrics)",
					    c->name, s->index, has ? n : 0);
			int rc = bind(r, c, s, rows, &arr[s->index]);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* strings.ptr from the string bytes and strings.size: each string NUL-terminated in place. */
static int read_strings(struct reader *r, struct pv_profile *p)
{
	const struct in_section *s = find(r, S_STRING_BYTES, 0);
	if (!s)
		return fail(r, HEADER_SIZE, "snapshot has no string bytes");
	const char *base = (const char *)r->b + s->offset;
	p->strings.ptr = pv_malloc(p->strings.len * sizeof(*p->strings.ptr));
	if (!p->strings.ptr)
		return pv_error_set(r->err, PV_ENOMEM, "%s: out of memory", r->in->name);
	uint64_t at = 0;
	for (uint32_t i = 0; i < p->strings.len; i++) {
		uint64_t n = p->strings.size[i];
		if (n >= s->size - at || base[at + n] != 0)
			return fail(r, s->offset + (at < s->size ? at : s->size),
				    "snapshot string %u: %llu bytes and a NUL expected within the "
				    "string bytes (%llu bytes)",
				    i, (unsigned long long)n, (unsigned long long)s->size);
		p->strings.ptr[i] = base + at;
		at += n + 1;
	}
	if (at != s->size)
		return fail(r, s->offset + at,
			    "snapshot string bytes: %llu bytes after the last "
			    "string",
			    (unsigned long long)(s->size - at));
	return 0;
}

static void set_caps(struct pv_profile *p)
{
	p->strings.cap = p->strings.len;
	p->categories.cap = p->categories.len;
	p->subcategories.cap = p->subcategories.len;
	p->modules.cap = p->modules.len;
	p->sources.cap = p->sources.len;
	p->funcs.cap = p->funcs.len;
	p->frames.cap = p->frames.len;
	p->stacks.cap = p->stacks.len;
	p->threads.cap = p->threads.len;
	p->samples.cap = p->samples.len;
	p->metrics.cap = p->metrics.len;
	p->markers.cap = p->markers.len;
	p->diags.cap = p->diags.len;
	p->labels.cap = p->labels.len;
	p->label_sets.cap = p->label_sets.len;
	p->label_sets.items_cap = p->label_sets.nr_items;
	p->callgraph.cap_nodes = p->callgraph.nr_nodes;
	p->callgraph.cap_edges = p->callgraph.nr_edges;
	p->formulas.cap = p->formulas.len;
	p->trace.cap = p->trace.len;
}

static int open_snapshot(struct pv_input *in, struct pv_profile **out, struct pv_error *err)
{
	struct reader r = {
	    .in = in, .b = (const unsigned char *)in->data, .len = in->len, .err = err};
	if ((uintptr_t)in->data % 8)
		return pv_error_set(err, PV_EINVAL, "%s: snapshot bytes not aligned in memory",
				    in->name);
	struct pv_profile *p = profile_alloc();
	struct snap *h = pv_calloc(1, sizeof(*h));
	if (!p || !h || !(h->name = pv_strdup(in->name))) {
		pv_free(p);
		snap_free(h);
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	}
	pthread_mutex_init(&h->lock, NULL);
	/* the columns point into in's bytes: none of them is the profile's to free */
	p->storage.base = in->data;
	p->storage.len = in->len;
	p->storage.release = snap_free;
	p->storage.check = snap_check;
	p->storage.ctx = h;
	int rc = read_table(&r);
	h->s = r.s;
	h->n = r.n;
	h->b = r.b;
	if (!rc && !(h->mine = pv_calloc(r.n ? r.n : 1, 1)))
		rc = pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	if (rc) {
		pv_profile_free(p);
		return rc;
	}
	/* the small sections are hashed and the model read and checked here (safe on damaged
	 * bytes: every bound is checked); the helper hashes the big ones once that is done, so it
	 * does not share the memory bandwidth and the CPU with the open's own pass over the sample
	 * columns, and runs while the caller computes its view */
	for (uint32_t i = 0; i < r.n; i++)
		h->mine[i] = r.s[i].size >= LAZY_BYTES;
	uint32_t flags = 0, bad = hash_sections(r.b, r.s, r.n, h->mine, 0);
	struct pv_error verr;
	int vrc = 0;
	if (bad < r.n)
		rc = snap_damaged(err, in->name, &r.s[bad]);
	else if (!(rc = read_meta(&r, p, &flags)) && !(rc = read_columns(&r, p, flags)) &&
		 !(rc = read_strings(&r, p))) {
		set_caps(p);
		vrc = pv_profile_validate(p, &verr);
	}
	hash_start(h);
	if (rc || vrc) {
		/* a damaged section is named rather than what its damage broke */
		if (!rc && (bad = hash_wait(h)) < r.n)
			rc = snap_damaged(err, in->name, &r.s[bad]);
		else if (!rc)
			rc = pv_error_set(err, PV_EPARSE,
					  "%s: snapshot breaks an invariant of the model (damaged, "
					  "or not written by profview): %s",
					  in->name, verr.msg);
		pv_profile_free(p);
		return rc;
	}
	if (input_changed(in, err)) {
		pv_profile_free(p);
		return PV_EIO;
	}
	if (!(h->in = input_take(in))) {
		pv_profile_free(p);
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	}
	*out = p;
	return 0;
}

static int probe(const struct pv_input *in)
{
	if (in->len >= sizeof(magic))
		return memcmp(in->data, magic, sizeof(magic)) == 0 ? 100 : 0;
	/* the start of the magic: a snapshot cut short, said so by the reader */
	return in->len && memcmp(in->data, magic, in->len) == 0 ? PROBE_DAMAGED : 0;
}

int snapshot_source_matches(const struct pv_input *in, const struct pv_snapshot_source *src,
			    struct pv_error *err)
{
	struct reader r = {
	    .in = in, .b = (const unsigned char *)in->data, .len = in->len, .err = err};
	int match = -1;
	if (read_table(&r) == 0) {
		const struct in_section *s = find(&r, S_SOURCE, 0);
		const unsigned char *b = s ? r.b + s->offset : NULL;
		size_t pl = strlen(src->path), fl = strlen(src->format);
		match = s && s->size == 24 + pl + fl && rd64(b) == src->size &&
			(int64_t)rd64(b + 8) == src->mtime_ns && rd32(b + 16) == pl &&
			rd32(b + 20) == fl && memcmp(b + 24, src->path, pl) == 0 &&
			memcmp(b + 24 + pl, src->format, fl) == 0;
	}
	pv_free(r.s);
	return match;
}

const struct importer importer_snapshot = {
    .name = "snapshot",
    .description = "profview's own snapshot of a profile (.pvs: 'profview snapshot')",
    .probe = probe,
    .open = open_snapshot,
};
