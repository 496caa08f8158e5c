/*
 * hpctoolkit.c - the rules both HPCToolkit readers share (hpctoolkit.h, doc/hpctoolkit.md).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/text.h"
#include "import/hpctoolkit.h"
#include "import/importer.h"
#include "view/internal.h"

/* ---- binary files ---- */

int hpc_fail(const struct hpc_bin *f, uint64_t at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = name_vfail_byte(f->name, f->err, PV_EPARSE, at, fmt, ap);
	va_end(ap);
	return rc;
}

bool hpc_in(const struct hpc_bin *f, uint64_t at, uint64_t n, const char *what)
{
	if (at <= f->len && n <= f->len - at)
		return true;
	hpc_fail(f, at, "%s (%llu bytes) runs past the end of the file (%llu bytes)", what,
		 (unsigned long long)n, (unsigned long long)f->len);
	return false;
}

const char *hpc_cstr(const struct hpc_bin *f, uint64_t at, const char *what)
{
	if (at >= f->len) {
		hpc_fail(f, at, "%s points past the end of the file (%llu bytes)", what,
			 (unsigned long long)f->len);
		return NULL;
	}
	const char *s = (const char *)f->p + at;
	if (!memchr(s, 0, f->len - at)) {
		hpc_fail(f, at, "%s is not NUL-terminated before the end of the file", what);
		return NULL;
	}
	return s;
}

double hpc_f64(uint64_t bits)
{
	double d;
	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* ---- the calling context tree ---- */

static int cct_grow_to(struct hpc_cct *t, uint32_t nc)
{
	if (!nc || COL_GROW(t->parent, nc) || COL_GROW(t->kind, nc) || COL_GROW(t->func, nc) ||
	    COL_GROW(t->source, nc) || COL_GROW(t->line, nc) || COL_GROW(t->addr, nc))
		return PV_ENOMEM;
	t->cap = nc;
	return 0;
}

static int cct_grow(struct hpc_cct *t)
{
	return cct_grow_to(t, grow_cap(t->cap, (uint64_t)t->len + 1));
}

int hpc_cct_reserve(struct hpc_cct *t, uint32_t n)
{
	return n > t->cap ? cct_grow_to(t, n) : 0;
}

int hpc_cct_init(struct hpc_cct *t)
{
	memset(t, 0, sizeof(*t));
	if (cct_grow(t))
		return PV_ENOMEM;
	t->len = 1;
	t->parent[0] = PV_NONE;
	t->kind[0] = HPC_ROOT;
	t->func[0] = t->source[0] = PV_NONE;
	t->line[0] = 0;
	t->addr[0] = PV_ADDR_NONE;
	return 0;
}

void hpc_cct_release(struct hpc_cct *t)
{
	pv_free(t->parent);
	pv_free(t->kind);
	pv_free(t->func);
	pv_free(t->source);
	pv_free(t->line);
	pv_free(t->addr);
	pv_free(t->stack);
	pv_free(t->self);
	pv_free(t->mark);
	pv_free(t->touched);
	memset(t, 0, sizeof(*t));
}

uint32_t hpc_cct_add(struct hpc_cct *t, uint32_t parent, enum hpc_kind kind, pv_func_ix func,
		     pv_source_ix source, uint32_t line, uint64_t addr)
{
	if (t->len == t->cap && cct_grow(t))
		return PV_NONE;
	uint32_t n = t->len++;
	t->parent[n] = parent;
	t->kind[n] = (uint8_t)kind;
	t->func[n] = func;
	t->source[n] = source;
	t->line[n] = line;
	t->addr[n] = addr;
	return n;
}

/*
 * Each node's frames, parents first. A procedure frame (or inlined procedure) is a code frame of
 * its function; a line directly in it is the same frame at that line (a sibling stack of the
 * procedure's own, as a sampled stack names a function at its line); loops are loop frames and
 * lines inside loops statement frames, both of the enclosing procedure, below it. So at
 * function granularity a path reads procedure > procedure as in every other format, and lines
 * and loops are there when asked for (doc/hpctoolkit.md).
 *   t->stack[n]: the stack n's children go below (its own);
 *   fn[n], depth[n]: the enclosing procedure and its inline depth.
 * A line in a procedure p goes below the stack p itself goes below, its parent's.
 */
int hpc_cct_stacks(struct pv_builder *b, struct hpc_cct *t, pv_func_ix unknown)
{
	uint32_t n = t->len;
	pv_func_ix *fn = pv_malloc((size_t)n * sizeof(*fn));
	uint16_t *depth = pv_malloc((size_t)n * sizeof(*depth));
	pv_free(t->stack);
	t->stack = pv_malloc((size_t)n * sizeof(*t->stack));
	if (!fn || !depth || !t->stack) {
		pv_free(fn);
		pv_free(depth);
		return PV_ENOMEM;
	}
	pv_stack_ix *st = t->stack;
	const struct pv_funcs *funcs = &b->p->funcs;
	/*
	 * A stack per node at most; those with siblings go to the builder's map, sized once for
	 * them: the nodes whose parent has two children or more (fn counts the children here).
	 */
	builder_stacks_reserve(b, n);
	builder_frames_reserve(b, n);
	memset(fn, 0, (size_t)n * sizeof(*fn));
	for (uint32_t i = 0; i < n; i++)
		if (t->parent[i] < n && fn[t->parent[i]] < 2)
			fn[t->parent[i]]++;
	uint32_t siblings = 0;
	for (uint32_t i = 0; i < n; i++)
		siblings += t->parent[i] >= n || fn[t->parent[i]] > 1;
	builder_stack_siblings_reserve(b, siblings);
	for (uint32_t i = 0; i < n && !b->status; i++) {
		uint32_t p = t->parent[i];
		pv_stack_ix below = p == PV_NONE ? PV_NONE : st[p];
		struct frame_key k = {.addr = PV_ADDR_NONE, .category = PV_NONE};
		switch (t->kind[i]) {
		case HPC_ROOT:
			st[i] = PV_NONE;
			fn[i] = unknown;
			depth[i] = 0;
			continue;
		case HPC_FUNC:
		case HPC_INLINE: {
			fn[i] = t->func[i];
			uint32_t d = t->kind[i] == HPC_INLINE && p != PV_NONE ? depth[p] + 1u : 0;
			depth[i] = d > UINT16_MAX ? UINT16_MAX : (uint16_t)d;
			k.func = fn[i];
			k.inline_depth = depth[i];
			st[i] = builder_stack(b, below, builder_frame(b, &k));
			continue;
		}
		default: break;
		}
		/* a loop or a line of the enclosing procedure */
		fn[i] = p == PV_NONE ? unknown : fn[p];
		depth[i] = p == PV_NONE ? 0 : depth[p];
		k.func = fn[i];
		k.inline_depth = depth[i];
		k.line = t->line[i];
		if (t->addr[i] != PV_ADDR_NONE)
			k.addr = t->addr[i];
		pv_source_ix own = t->source[i];
		if (own != PV_NONE && k.func < funcs->len && pv_func_source(b->p, k.func) != own)
			k.source1 = own + 1;
		bool in_proc = p != PV_NONE && (t->kind[p] == HPC_FUNC || t->kind[p] == HPC_INLINE);
		if (t->kind[i] == HPC_LOOP) {
			k.kind = PV_FRAME_LOOP;
		} else if (in_proc) {
			/* the procedure's frame at this line */
			below = t->parent[p] == PV_NONE ? PV_NONE : st[t->parent[p]];
		} else {
			k.kind = PV_FRAME_STATEMENT;
		}
		st[i] = builder_stack(b, below, builder_frame(b, &k));
	}
	pv_free(fn);
	pv_free(depth);
	return b->status;
}

int hpc_acc_begin(struct hpc_cct *t, uint32_t nm)
{
	size_t n = t->len ? t->len : 1;
	pv_free(t->self);
	pv_free(t->mark);
	pv_free(t->touched);
	t->self = pv_calloc(n * (nm ? nm : 1), sizeof(int64_t));
	t->mark = pv_calloc(n, 1);
	t->touched = pv_malloc(n * sizeof(uint32_t));
	t->nr_touched = 0;
	t->nm = nm;
	return t->self && t->mark && t->touched ? 0 : PV_ENOMEM;
}

static void touch(struct hpc_cct *t, uint32_t node)
{
	if (!t->mark[node]) {
		t->mark[node] = 1;
		t->touched[t->nr_touched++] = node;
	}
}

/*
 * The root (node 0) is a node like the others, except that it is only given a value when the
 * database states the whole program's: mark 2 says it was, so without one its children are not
 * subtracted from a value it never had.
 */
void hpc_acc_add(struct hpc_cct *t, uint32_t node, uint32_t m, int64_t incl)
{
	if (node >= t->len || m >= t->nm)
		return;
	touch(t, node);
	if (node == 0)
		t->mark[0] = 2;
	t->self[(size_t)node * t->nm + m] += incl;
	uint32_t p = t->parent[node];
	if (p != PV_NONE) {
		touch(t, p);
		t->self[(size_t)p * t->nm + m] -= incl;
	}
}

void hpc_acc_own(struct hpc_cct *t, uint32_t node, uint32_t m, int64_t self)
{
	if (node >= t->len || m >= t->nm)
		return;
	touch(t, node);
	if (node == 0)
		t->mark[0] = 2;
	t->self[(size_t)node * t->nm + m] += self;
}

void hpc_acc_flush(struct pv_builder *b, struct hpc_cct *t, pv_thread_ix th)
{
	/* a sample per node touched at most: the columns grow once, not sample by sample */
	builder_samples_reserve(b, (uint64_t)b->p->samples.len + t->nr_touched, false);
	for (uint32_t i = 0; i < t->nr_touched; i++) {
		uint32_t node = t->touched[i];
		int64_t *w = t->self + (size_t)node * t->nm;
		bool any = false, neg = false;
		for (uint32_t m = 0; m < t->nm; m++) {
			any |= w[m] != 0;
			neg |= w[m] < 0;
		}
		if (node == 0 && t->mark[0] != 2)
			any = false;
		if (any) {
			t->negative += neg;
			builder_sample(b, th, node ? t->stack[node] : PV_NONE, PV_TIME_NONE, w);
		}
		memset(w, 0, (size_t)t->nm * sizeof(*w));
		t->mark[node] = 0;
	}
	t->nr_touched = 0;
}

/* ---- metrics and names ---- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

enum pv_unit hpc_metric_unit(const char *name, double *scale)
{
	*scale = 1;
	if (ends_with(name, "(sec)") || ends_with(name, "(s)") || ends_with(name, "(seconds)")) {
		*scale = 1e9;
		return PV_UNIT_NS;
	}
	if (ends_with(name, "(ms)")) {
		*scale = 1e6;
		return PV_UNIT_NS;
	}
	if (ends_with(name, "(us)")) {
		*scale = 1e3;
		return PV_UNIT_NS;
	}
	if (ends_with(name, "(ns)"))
		return PV_UNIT_NS;
	if (ends_with(name, "(B)") || ends_with(name, "(bytes)"))
		return PV_UNIT_BYTES;
	if (strcasestr(name, "cycles"))
		return PV_UNIT_CYCLES;
	if (strncasecmp(name, "instructions", 12) == 0 || strcasestr(name, "INST_RETIRED") ||
	    strcasestr(name, "TOT_INS"))
		return PV_UNIT_INSTRUCTIONS;
	return PV_UNIT_COUNT;
}

int64_t hpc_scaled(double v, double scale, uint64_t *fraction)
{
	double x = v * scale;
	if (!(x == x) || x > 9.2e18 || x < -9.2e18) { /* NaN, or past int64 */
		(*fraction)++;
		return 0;
	}
	double r = nearbyint(x);
	if (fabs(x - r) > 1e-6 * (fabs(x) > 1 ? fabs(x) : 1))
		(*fraction)++;
	return (int64_t)r;
}

int hpc_formula(struct pv_builder *b, const char *name, const char *text, const char *written,
		const char *desc, const char *(*ref)(void *ctx, char sigil, uint32_t id), void *ctx)
{
	if (!written)
		written = text;
	if (pv_metric_find(b->p, name) != PV_NONE) {
		builder_lossy(b, 1,
			      "derived metric '%s': the database has a metric of that name "
			      "(the formula is left out)",
			      name);
		return 0;
	}
	for (uint32_t i = 0; i < b->p->formulas.len; i++)
		if (strcmp(pv_str(b->p, b->p->formulas.name[i]), name) == 0) {
			builder_lossy(b, 1, "derived metric '%s' defined twice (the first kept)",
				      name);
			return 0;
		}
	/* the text with its references by name: each $N grows to ${NAME} */
	size_t cap = strlen(text) + 1, len = 0;
	char *out = pv_malloc(cap);
	const char *why = NULL;
	char bad[32] = "";
	for (const char *s = text; out && *s && !why;) {
		const char *mn = NULL;
		char sigil = *s;
		if ((sigil == '$' || sigil == '@' || sigil == '#') && text_is_digit(s[1])) {
			char *end;
			unsigned long id = strtoul(s + 1, &end, 10);
			mn = id <= UINT32_MAX ? ref(ctx, sigil, (uint32_t)id) : NULL;
			snprintf(bad, sizeof(bad), "%.*s", (int)(end - s < 20 ? end - s : 20), s);
			if (!mn)
				why = "names no metric of the database profview shows";
			else if (strchr(mn, '}'))
				why = "names a metric whose name has a '}'";
			s = end;
		}
		size_t add = mn ? strlen(mn) + 3 : 1;
		if (len + add + 1 > cap) {
			cap = (len + add + 1) * 2;
			char *g = pv_realloc(out, cap);
			if (!g) {
				pv_free(out);
				out = NULL;
				break;
			}
			out = g;
		}
		if (mn)
			len += (size_t)snprintf(out + len, cap - len, "%c{%s}",
						sigil == '@' ? '@' : '$', mn);
		else if (!why)
			out[len++] = *s++;
	}
	if (!out)
		return b->status = PV_ENOMEM;
	out[len] = 0;
	struct pv_formula *f = NULL;
	uint32_t col = 0;
	char msg[200];
	int rc = why ? PV_EINVAL : pv__formula_parse(out, &f, &col, msg, sizeof(msg));
	pv__formula_free(f);
	if (rc == PV_ENOMEM) {
		pv_free(out);
		return b->status = PV_ENOMEM;
	}
	if (why)
		builder_lossy(b, 1, "derived metric '%s' = '%s': %s %s (left out)", name, written,
			      bad, why);
	else if (rc)
		builder_lossy(b, 1,
			      "derived metric '%s' = '%s': not a formula profview reads (%s) "
			      "(left out)",
			      name, written, msg);
	else
		rc = builder_formula(b, builder_cstr(b, name), builder_cstr(b, out),
				     desc && *desc ? builder_cstr(b, desc) : 0);
	pv_free(out);
	return rc == PV_ENOMEM ? rc : 0;
}

pv_module_ix hpc_module(struct pv_builder *b, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	enum pv_module_kind kind = PV_MODULE_BINARY;
	if (strstr(base, ".so"))
		kind = PV_MODULE_LIBRARY;
	else if (strstr(base, "vmlinux") || strstr(base, "[kernel"))
		kind = PV_MODULE_KERNEL;
	else if (!*base)
		kind = PV_MODULE_UNKNOWN;
	return builder_module(b, builder_cstr(b, *base ? base : path), builder_cstr(b, path), kind);
}

pv_func_ix hpc_addr_func(struct pv_builder *b, pv_module_ix m, uint64_t offset)
{
	const char *mod = m == PV_NONE ? "" : pv_str(b->p, b->p->modules.name[m]);
	pv_str_ix name = builder_strf(b, "%s@0x%llx", *mod ? mod : "<unknown module>",
				      (unsigned long long)offset);
	return builder_func(b, name, m, PV_NONE, 0);
}

int hpc_sibling(const struct pv_input *in, const char *name, struct pv_input *out, char **joined,
		struct pv_error *err)
{
	*joined = NULL;
	if (!input_is_file(in))
		return 1;
	const char *path = in->name;
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	size_t n = strlen(name);
	char *j = pv_malloc(dir + n + 1);
	if (!j)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	memcpy(j, path, dir);
	memcpy(j + dir, name, n + 1);
	*joined = j;
	struct stat st;
	if (stat(j, &st) != 0 && errno == ENOENT)
		return 1;
	return input_open(out, j, err);
}
