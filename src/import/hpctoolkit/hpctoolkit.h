/*
 * hpctoolkit.h - what the readers of HPCToolkit databases share (doc/hpctoolkit.md).
 *
 * Both generations (hpctoolkit_v4.c: meta.db and profile.db; hpctoolkit_xml.c: experiment.xml
 * and its big-endian side files) describe one calling context tree whose nodes are procedure
 * frames, inlined procedures, loops and lines, and give every node an inclusive value per
 * execution context (a thread, a GPU stream). Each reader fills a struct hpc_cct; the rules that
 * turn it into the model live here, once:
 *   - hpc_cct_stacks(): nodes to frames and stacks (a procedure frame and the line it is at are
 *     one code frame; loops are loop frames, lines inside loops statement frames);
 *   - hpc_acc_*(): a node's own cost is its inclusive value less its children's, in the metric's
 *     integer unit, so the inclusive costs profview adds up equal the database's node by node;
 *   - hpc_metric_unit(), hpc_tuple_name(): units from metric names, names of execution contexts.
 */
#ifndef PV_IMPORT_HPCTOOLKIT_H
#define PV_IMPORT_HPCTOOLKIT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/file.h"
#include "base/hash.h"
#include "model/builder.h"

/* ---- bounds-checked reading of a binary file ---- */

struct hpc_bin {
	const char *name; /* for messages */
	const uint8_t *p;
	uint64_t len;
	struct pv_error *err;
};

/* "NAME: byte AT: what" as a PV_EPARSE error with the offset set; returns PV_EPARSE. */
int hpc_fail(const struct hpc_bin *f, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Whether [at, at + n) lies in the file; else fails with "what runs past the end". */
bool hpc_in(const struct hpc_bin *f, uint64_t at, uint64_t n, const char *what);
/* The NUL-terminated string at byte at (checked); NULL after failing. */
const char *hpc_cstr(const struct hpc_bin *f, uint64_t at, const char *what);

static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}
static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static inline uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}
double hpc_f64(uint64_t bits);

/* ---- the calling context tree ---- */

enum hpc_kind {
	HPC_ROOT = 0, /* the whole program (values not under any entry): no frame */
	HPC_FUNC,     /* a procedure frame: called, an entry point, a placeholder root */
	HPC_INLINE,   /* a procedure inlined at its parent */
	HPC_LOOP,
	HPC_LINE, /* a statement, or the line a call or inlined code is at */
};

struct hpc_cct {
	uint32_t len, cap;
	uint32_t *parent;     /* a smaller node; PV_NONE for the root (node 0) */
	uint8_t *kind;	      /* enum hpc_kind */
	pv_func_ix *func;     /* HPC_FUNC, HPC_INLINE */
	pv_source_ix *source; /* HPC_LOOP, HPC_LINE: the file, PV_NONE when unknown */
	uint32_t *line;
	uint64_t *addr;	    /* module offset, PV_ADDR_NONE */
	pv_stack_ix *stack; /* hpc_cct_stacks: the stack holding the node's own cost */
	/*
	 * hpc_acc: the nodes touched, in the order they were, each with a row of own costs being
	 * summed (rows in touch order: a database's contexts come in id order, not the tree's, so
	 * the sums are written one after the other rather than all over a table of every node).
	 */
	uint32_t *row;	   /* [node]: its row + 1, 0 when not touched */
	int64_t *self;	   /* [row * nm + m] */
	uint32_t *touched; /* [row]: its node */
	uint32_t nr_touched;
	uint32_t nm;
	bool root_value;   /* the root (node 0) was given a value */
	bool clamp;	   /* a negative own cost is taken as 0 (values known to a few digits) */
	uint64_t negative; /* nodes whose inclusive value was below their children's */
};

/* A new tree holding the root (node 0). 0 or PV_ENOMEM. */
int hpc_cct_init(struct hpc_cct *t);
void hpc_cct_release(struct hpc_cct *t);
/*
 * Room for n nodes in all (as many as the file's size allows): the columns do not move while the
 * tree is read, and the pages past the nodes added are never touched. 0 or PV_ENOMEM.
 */
int hpc_cct_reserve(struct hpc_cct *t, uint32_t n);
/* Room for one more node (the columns doubled); 0 or PV_ENOMEM. */
int hpc_cct_grow(struct hpc_cct *t);
/*
 * Appends a node under parent (an existing node); returns it, PV_NONE when out of memory. Inline:
 * once per context of the tree.
 */
static inline uint32_t hpc_cct_add(struct hpc_cct *t, uint32_t parent, enum hpc_kind kind,
				   pv_func_ix func, pv_source_ix source, uint32_t line,
				   uint64_t addr)
{
	if (t->len == t->cap && hpc_cct_grow(t))
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
 * Frames and stacks of every node (doc/hpctoolkit.md). unknown is the function of lines and
 * loops with no procedure above them. 0 or the builder's error.
 */
int hpc_cct_stacks(struct pv_builder *b, struct hpc_cct *t, pv_func_ix unknown);

/*
 * Own costs of one execution context: hpc_acc_begin() once per tree with the number of metrics;
 * hpc_acc_add() each node's inclusive value (in the metric's integer unit, each (node, metric)
 * once); hpc_acc_flush() appends one sample per node with an own cost to thread th (the root's
 * own cost, if any, as a sample without a stack) and clears the sums. 0 or PV_ENOMEM.
 */
int hpc_acc_begin(struct hpc_cct *t, uint32_t nm);
/*
 * The row of node's own costs, taken (and cleared) when node is first touched. Inline, as the
 * two below: they run once per value read, hundreds of thousands of times in a large database.
 */
static inline int64_t *hpc_acc_row(struct hpc_cct *t, uint32_t node)
{
	uint32_t r = t->row[node];
	if (!r) {
		r = ++t->nr_touched;
		t->row[node] = r;
		t->touched[r - 1] = node;
		for (uint32_t m = 0; m < t->nm; m++)
			t->self[(size_t)(r - 1) * t->nm + m] = 0;
	}
	return t->self + (size_t)(r - 1) * t->nm;
}
/*
 * Adds an own cost (a point value, for a metric without inclusive values) to node. The root
 * (node 0) is a node like the others, except that it is only given a value when the database
 * states the whole program's: root_value says it was, so without one its children are not
 * subtracted from a value it never had.
 */
static inline void hpc_acc_own(struct hpc_cct *t, uint32_t node, uint32_t m, int64_t self)
{
	if (node >= t->len || m >= t->nm)
		return;
	int64_t *x = &hpc_acc_row(t, node)[m];
	*x = pv_add_sat(*x, self); /* damaged values saturate (the model's ranges then apply) */
	if (node == 0)
		t->root_value = true;
}
/* Adds an inclusive value: node's own cost, less its parent's. */
static inline void hpc_acc_add(struct hpc_cct *t, uint32_t node, uint32_t m, int64_t incl)
{
	if (node >= t->len || m >= t->nm)
		return;
	hpc_acc_own(t, node, m, incl);
	uint32_t p = t->parent[node];
	if (p != PV_NONE) {
		int64_t *x = &hpc_acc_row(t, p)[m];
		*x = pv_sub_sat(*x, incl);
	}
}
void hpc_acc_flush(struct pv_builder *b, struct hpc_cct *t, pv_thread_ix th);

/* ---- metrics and names ---- */

/*
 * The model's unit for a metric named name (its "(sec)", "(B)" suffix; "cycles"...) and the
 * factor from the database's values to it (1e9 for seconds to ns, else 1).
 */
enum pv_unit hpc_metric_unit(const char *name, double *scale);
/*
 * Rounds a database value times scale to the model's int64. *fraction counts values that were
 * not whole numbers in that unit (a lossy step the reader reports). Rounding is to the nearest,
 * ties to even, as nearbyint() in the default rounding mode: below 2^52 in magnitude, adding
 * 2^52 (of x's sign) and subtracting it again leaves the integer the addition rounded to, since
 * the doubles between 2^52 and 2^53 are the integers (inline: no call per value).
 */
static inline int64_t hpc_scaled(double v, double scale, uint64_t *fraction)
{
	double x = v * scale;
	if (!(x == x) || x > 9.2e18 || x < -9.2e18) { /* NaN, or past int64 */
		(*fraction)++;
		return 0;
	}
	double ax = x < 0 ? -x : x;
	double r = x;
	if (ax < 4503599627370496.0) /* 2^52: past it every double is an integer */
		r = x < 0 ? (x - 4503599627370496.0) + 4503599627370496.0
			  : (x + 4503599627370496.0) - 4503599627370496.0;
	double d = x - r;
	if ((d < 0 ? -d : d) > 1e-6 * (ax > 1 ? ax : 1))
		(*fraction)++;
	return (int64_t)r;
}

/*
 * A derived metric the database defines (experiment.xml's <MetricFormula>, a metrics YAML file):
 * text[0] the formula of a row's total (NULL: none, the totals are empty), text[1] that of its
 * self (NULL: text[0]'s over the selves: HPCToolkit's exclusive formula when it says more), in
 * hpcviewer's syntax with the database's own references, `$N` (metric N's value at the row),
 * `@N` (at the whole program) and `#N` (the metric of order N, at the row); written[k] each as
 * the file wrote it (NULL: text[k]), for the messages.
 */
struct hpc_formula_def {
	const char *name, *desc;
	const char *text[2], *written[2];
};

/*
 * Adds d (builder_formula) with its references by name, `${NAME}` and `@{NAME}`, as profview's
 * derived metrics read them; ref(ctx, sigil, N) names the model metric each stands for, NULL
 * when none. A reference to no metric, a name the model has already or a formula profview
 * cannot parse is said in the diags and the metric left out. 0, or PV_ENOMEM.
 */
int hpc_formula(struct pv_builder *b, const struct hpc_formula_def *d,
		const char *(*ref)(void *ctx, char sigil, uint32_t id), void *ctx);

/* The module row for a load module path (named by its last component). */
pv_module_ix hpc_module(struct pv_builder *b, const char *path);
/*
 * Names for addresses without a procedure (import/symbols.h). A database records a load
 * module's path and no build id, and the file at that path on another machine (or after an
 * update) is another build: the binaries are looked for only in the folders given with
 * --symbols (the user's word that they are the recorded builds), never at the recorded path.
 * Without --symbols (or with --no-symbols) nothing is named and nothing is said. Zeroed before
 * use; hpc_names_done says the counts in the lossy list and frees.
 */
struct hpc_names {
	struct symz *z;
	uint32_t *bins; /* per module row: the symbolizer's binary, UINT32_MAX before asked */
	uint64_t *named, *unnamed; /* distinct addresses per module row */
	uint8_t *why;		   /* the last reason per module row */
	uint32_t cap;
	struct u64map seen; /* (module, address) -> the name (a string row) + 1, 0: none */
	bool off;
};
/* The name of address a (the load module's own virtual address, as HPCToolkit normalizes
 * them) of module m, as a string row; PV_NONE when it has none. */
pv_str_ix hpc_names_at(struct pv_builder *b, struct hpc_names *n, pv_module_ix m, uint64_t a);
void hpc_names_done(struct pv_builder *b, struct hpc_names *n);

/* The function of an instruction without a known procedure: its name from the binary when n
 * names it, else "module@0xOFFSET" (hpcviewer). */
pv_func_ix hpc_addr_func(struct pv_builder *b, struct hpc_names *n, pv_module_ix m,
			 uint64_t offset);

/*
 * Opens the file name (a relative path) in the folder of the file in was read from, into out;
 * *joined (to free) is its path, which out names. Returns 0, 1 when there is no such file (or in
 * is not a file on disk: standard input, a buffer), or an error.
 */
int hpc_sibling(const struct pv_input *in, const char *name, struct pv_input *out, char **joined,
		struct pv_error *err);

/*
 * One file of a database alone, for the fuzzers: kind "meta.db", "profile.db", "trace.db",
 * "cct.db" (format 4), "metric-db", "hpctrace", "experiment.xml" (the older generation).
 * Returns 0 or the error the importer would give.
 */
int hpc_v4_file(const char *kind, const void *buf, size_t len, struct pv_error *err);
int hpc_xml_file(const char *kind, const void *buf, size_t len, struct pv_error *err);

#endif
