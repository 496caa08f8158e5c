/*
 * gen_hpctoolkit.c - synthetic HPCToolkit databases of format 4 for the open benchmark
 * (bench/hpctoolkit.sh), and the floor they are measured against.
 *
 *   gen-hpctoolkit DIR CONTEXTS PROFILES VALUES   writes DIR/meta.db and DIR/profile.db
 *   gen-hpctoolkit scan DIR                       the floor: a byte scan of meta.db and of the
 *                                                 summary profile's part of profile.db
 *
 * The calling context tree has CONTEXTS contexts: procedures calling procedures from call-site
 * lines, each with a loop of statements (1,000 distinct functions, 10 files, 2 modules). Each of
 * the PROFILES execution contexts (NODE/RANK/THREAD tuples) has about VALUES sampled statements;
 * its values are the inclusive ("execution" scope) values of 2 metrics (CPUTIME (sec), cycles) at
 * those statements and all their ancestors, so profiles are sparse; the summary profile (first)
 * holds their sums at every context. Deterministic (a fixed xorshift seed). Layout as in
 * HPCToolkit's doc/FORMATS.md, sizes of version 4.0 (szProfile 48, as hpcprof writes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- an output file as a growable buffer ---- */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void need(struct buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	size_t c = b->cap ? b->cap : 1 << 16;
	while (c < b->len + n)
		c *= 2;
	b->p = realloc(b->p, c);
	if (!b->p) {
		fprintf(stderr, "gen-hpctoolkit: out of memory\n");
		exit(1);
	}
	memset(b->p + b->cap, 0, c - b->cap);
	b->cap = c;
}

static size_t reserve(struct buf *b, size_t n) /* zeroed, 8-aligned */
{
	b->len = (b->len + 7) & ~(size_t)7;
	need(b, n);
	size_t at = b->len;
	b->len += n;
	return at;
}

static void w8(struct buf *b, size_t at, uint8_t v)
{
	b->p[at] = v;
}
static void w16(struct buf *b, size_t at, uint16_t v)
{
	memcpy(b->p + at, &v, 2);
}
static void w32(struct buf *b, size_t at, uint32_t v)
{
	memcpy(b->p + at, &v, 4);
}
static void w64(struct buf *b, size_t at, uint64_t v)
{
	memcpy(b->p + at, &v, 8);
}
static void wf64(struct buf *b, size_t at, double v)
{
	memcpy(b->p + at, &v, 8);
}

static size_t str(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	need(b, n);
	size_t at = b->len;
	memcpy(b->p + at, s, n);
	b->len += n;
	return at;
}

static void header(struct buf *b, const char *fmt, unsigned nsec)
{
	reserve(b, 16 + 16 * nsec);
	memcpy(b->p, "HPCTOOLKIT", 10);
	memcpy(b->p + 10, fmt, 4);
	b->p[14] = 4;
	b->p[15] = 0;
}

static void section(struct buf *b, unsigned i, size_t start)
{
	w64(b, 16 + 16 * i, b->len - start);
	w64(b, 24 + 16 * i, start);
}

static void finish(struct buf *b, const char *footer, const char *path)
{
	need(b, 8);
	memcpy(b->p + b->len, footer, 8);
	b->len += 8;
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f)) {
		fprintf(stderr, "gen-hpctoolkit: cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---- the tree ---- */

enum { K_FUNC, K_LOOP, K_LINE };
#define NFUNC 1000
#define NFILE 10

struct node {
	uint32_t parent, first_child, nr_children, fn, line;
	uint8_t kind;
	size_t at; /* where it is written */
};

static struct node *nodes;
static uint32_t nn;

static uint32_t add(uint32_t parent, uint8_t kind, uint32_t fn, uint32_t line)
{
	nodes[nn] = (struct node){parent, 0, 0, fn, line, kind, 0};
	return nn++;
}

/* Builds a tree of about n nodes, children of a node numbered consecutively (so each parent's
 * children array is contiguous in the file). Node 0 is the entry point. */
static void build(uint32_t n)
{
	nodes = calloc(n + 16, sizeof(*nodes));
	add(UINT32_MAX, K_FUNC, 0, 0); /* the entry point */
	uint32_t head = 0;
	/* breadth first: each node gets its children in one go */
	while (head < nn && nn < n) {
		struct node *x = &nodes[head];
		x->first_child = nn;
		if (head == 0) {
			add(head, K_FUNC, 0, 0); /* main */
		} else if (x->kind == K_FUNC) {
			/* a loop, then call-site lines */
			add(head, K_LOOP, x->fn, 10 + (uint32_t)(next() % 90));
			uint32_t calls = 1 + (uint32_t)(next() % 3);
			for (uint32_t i = 0; i < calls && nn < n; i++)
				add(head, K_LINE, x->fn, 100 + i);
		} else if (x->kind == K_LOOP) {
			add(head, K_LINE, x->fn, x->line + 1);
			add(head, K_LINE, x->fn, x->line + 2);
		} else if (x->line >= 100) {
			/* a call site: one callee */
			add(head, K_FUNC, 1 + (uint32_t)(next() % (NFUNC - 1)), 0);
		}
		nodes[head].nr_children = nn - nodes[head].first_child;
		head++;
	}
}

/* ---- meta.db ---- */

static void write_meta(const char *path)
{
	struct buf b = {0};
	header(&b, "meta", 8);
	/* general */
	size_t s0 = reserve(&b, 16);
	w64(&b, s0, str(&b, "synthetic"));
	w64(&b, s0 + 8, str(&b, "a database of bench/gen_hpctoolkit.c"));
	section(&b, 0, s0);
	/* identifier names */
	static const char *const kinds[] = {"SUMMARY",	 "NODE",       "RANK",	    "THREAD",
					    "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"};
	size_t s1 = reserve(&b, 16);
	size_t names = reserve(&b, 8 * 8);
	w64(&b, s1, names);
	w8(&b, s1 + 8, 8);
	for (int k = 0; k < 8; k++)
		w64(&b, names + 8 * k, str(&b, kinds[k]));
	section(&b, 1, s1);
	/* metrics: 2 metrics, scopes point (type 1) and execution (type 2) */
	size_t s2 = reserve(&b, 0x20);
	size_t scopes = reserve(&b, 2 * 16);
	w64(&b, scopes, str(&b, "point"));
	w8(&b, scopes + 8, 1);
	w8(&b, scopes + 9, 255);
	w64(&b, scopes + 16, str(&b, "execution"));
	w8(&b, scopes + 24, 2);
	w8(&b, scopes + 25, 255);
	size_t mets = reserve(&b, 2 * 32);
	static const char *const mnames[] = {"CPUTIME (sec)", "cycles"};
	size_t formula = str(&b, "$$");
	for (int m = 0; m < 2; m++) {
		size_t e = mets + 32 * (size_t)m;
		w64(&b, e, str(&b, mnames[m]));
		size_t psi = reserve(&b, 2 * 16), ss = reserve(&b, 24);
		for (int k = 0; k < 2; k++) { /* prop ids: point 2m, execution 2m + 1 */
			w64(&b, psi + 16 * k, scopes + 16 * (size_t)k);
			w16(&b, psi + 16 * k + 8, (uint16_t)(2 * m + k));
		}
		w64(&b, ss, scopes + 16); /* sum of execution values: stat id 2m + 1 */
		w64(&b, ss + 8, formula);
		w8(&b, ss + 16, 0);
		w16(&b, ss + 18, (uint16_t)(2 * m + 1));
		w64(&b, e + 8, psi);
		w64(&b, e + 16, ss);
		w16(&b, e + 24, 2);
		w16(&b, e + 26, 1);
	}
	w64(&b, s2, mets);
	w32(&b, s2 + 8, 2);
	w8(&b, s2 + 12, 32);
	w8(&b, s2 + 13, 16);
	w8(&b, s2 + 14, 24);
	w64(&b, s2 + 16, scopes);
	w16(&b, s2 + 24, 2);
	w8(&b, s2 + 26, 16);
	section(&b, 2, s2);
	/* strings, modules, files, functions (before the tree, which points at them) */
	size_t s4 = b.len;
	size_t mod_path[2] = {str(&b, "/bench/app"), str(&b, "/bench/libwork.so")};
	size_t file_path[NFILE];
	for (int f = 0; f < NFILE; f++) {
		char p[64];
		snprintf(p, sizeof(p), "/bench/src/file%d.c", f);
		file_path[f] = str(&b, p);
	}
	size_t fn_name[NFUNC];
	for (int f = 0; f < NFUNC; f++) {
		char p[64];
		snprintf(p, sizeof(p), f ? "work%d" : "main", f);
		fn_name[f] = str(&b, p);
	}
	section(&b, 4, s4);
	size_t s5 = reserve(&b, 16), mods = reserve(&b, 2 * 16);
	for (int m = 0; m < 2; m++)
		w64(&b, mods + 16 * (size_t)m + 8, mod_path[m]);
	w64(&b, s5, mods);
	w32(&b, s5 + 8, 2);
	w16(&b, s5 + 12, 16);
	section(&b, 5, s5);
	size_t s6 = reserve(&b, 16), files = reserve(&b, NFILE * 16);
	for (int f = 0; f < NFILE; f++)
		w64(&b, files + 16 * (size_t)f + 8, file_path[f]);
	w64(&b, s6, files);
	w32(&b, s6 + 8, NFILE);
	w16(&b, s6 + 12, 16);
	section(&b, 6, s6);
	size_t s7 = reserve(&b, 16), fns = reserve(&b, NFUNC * 40);
	for (int f = 0; f < NFUNC; f++) {
		size_t e = fns + 40 * (size_t)f;
		w64(&b, e, fn_name[f]);
		w64(&b, e + 8, mods + 16 * (size_t)(f % 2));
		w64(&b, e + 16, 0x1000 + 0x40 * (uint64_t)f);
		w64(&b, e + 24, files + 16 * (size_t)(f % NFILE));
		w32(&b, e + 32, 1 + (uint32_t)f);
	}
	w64(&b, s7, fns);
	w32(&b, s7 + 8, NFUNC);
	w16(&b, s7 + 12, 40);
	section(&b, 7, s7);
	/* the context tree: each parent's children contiguous; ctxId = node index + 1 */
	size_t s3 = reserve(&b, 16), entry = reserve(&b, 32);
	for (uint32_t i = 0; i < nn; i++) {
		struct node *x = &nodes[i];
		if (!x->nr_children)
			continue;
		size_t sz = 0;
		for (uint32_t c = x->first_child; c < x->first_child + x->nr_children; c++)
			sz += 32 + 8 * (nodes[c].kind == K_FUNC ? 1 : 2);
		size_t at = reserve(&b, sz);
		for (uint32_t c = x->first_child; c < x->first_child + x->nr_children; c++) {
			nodes[c].at = at;
			at += 32 + 8 * (nodes[c].kind == K_FUNC ? 1 : 2);
		}
	}
	for (uint32_t i = 1; i < nn; i++) {
		struct node *x = &nodes[i];
		size_t e = x->at;
		if (x->nr_children) {
			size_t sz = 0;
			for (uint32_t c = x->first_child; c < x->first_child + x->nr_children; c++)
				sz += 32 + 8 * (nodes[c].kind == K_FUNC ? 1 : 2);
			w64(&b, e, sz);
			w64(&b, e + 8, nodes[x->first_child].at);
		}
		w32(&b, e + 16, i + 1);
		if (x->kind == K_FUNC) {
			w8(&b, e + 20, 1); /* hasFunction */
			w8(&b, e + 21, 1); /* call */
			w8(&b, e + 22, 0);
			w8(&b, e + 23, 1);
			w64(&b, e + 32, fns + 40 * (size_t)x->fn);
		} else {
			w8(&b, e + 20, 2); /* hasSrcLoc */
			w8(&b, e + 21, 0);
			w8(&b, e + 22, x->kind == K_LOOP ? 1 : 2);
			w8(&b, e + 23, 2);
			w16(&b, e + 24, 1);
			w64(&b, e + 32, files + 16 * (size_t)(x->fn % NFILE));
			w32(&b, e + 40, x->line);
		}
	}
	struct node *root = &nodes[0];
	size_t rsz = 0;
	for (uint32_t c = root->first_child; c < root->first_child + root->nr_children; c++)
		rsz += 32 + 8;
	w64(&b, entry, rsz);
	w64(&b, entry + 8, nodes[root->first_child].at);
	w32(&b, entry + 16, 1);
	w16(&b, entry + 20, 1);
	w64(&b, entry + 24, str(&b, "main thread"));
	w64(&b, s3, entry);
	w16(&b, s3 + 8, 1);
	w8(&b, s3 + 10, 32);
	section(&b, 3, s3);
	finish(&b, "_meta.db", path);
	free(b.p);
}

/* ---- profile.db ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* One profile's value block of the contexts in ids (sorted) with values v[node][2]. */
static void value_block(struct buf *b, size_t pi, const uint32_t *ids, uint32_t n, const double *v,
			uint16_t id0, uint16_t id1)
{
	size_t vals = b->len; /* 10-byte values are unaligned */
	need(b, (size_t)n * 20);
	b->len += (size_t)n * 20;
	size_t idx = reserve(b, (size_t)n * 12);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t x = ids[k];
		w16(b, vals + 20 * (size_t)k, id0);
		wf64(b, vals + 20 * (size_t)k + 2, v[2 * (size_t)x]);
		w16(b, vals + 20 * (size_t)k + 10, id1);
		wf64(b, vals + 20 * (size_t)k + 12, v[2 * (size_t)x + 1]);
		w32(b, idx + 12 * (size_t)k, x + 1);
		w64(b, idx + 12 * (size_t)k + 4, 2 * (uint64_t)k);
	}
	w64(b, pi, 2 * (uint64_t)n);
	w64(b, pi + 8, vals);
	w32(b, pi + 16, n);
	w64(b, pi + 24, idx);
}

static void write_profiles(const char *path, uint32_t nprof, uint32_t nvals)
{
	struct buf b = {0};
	header(&b, "prof", 2);
	size_t s0 = reserve(&b, 16), pis = reserve(&b, (size_t)(nprof + 1) * 48);
	w64(&b, s0, pis);
	w32(&b, s0 + 8, nprof + 1);
	w8(&b, s0 + 12, 48);
	double *v = calloc((size_t)nn * 2, sizeof(double));
	double *sum = calloc((size_t)nn * 2, sizeof(double));
	uint32_t *ids = malloc(sizeof(uint32_t) * nn);
	uint8_t *on = calloc(nn, 1);
	/* the leaves: the statements (lines without children) */
	uint32_t *leaves = malloc(sizeof(uint32_t) * nn), nl = 0;
	for (uint32_t i = 1; i < nn; i++)
		if (nodes[i].kind == K_LINE && !nodes[i].nr_children)
			leaves[nl++] = i;
	for (uint32_t p = 1; p <= nprof; p++) {
		uint32_t n = 0;
		for (uint32_t k = 0; k < nvals && nl; k++) {
			uint32_t leaf = leaves[next() % nl];
			double t = (double)(1 + next() % 1000) * 1e-4; /* sec, 0.1 ms steps */
			double c = (double)(next() % 1000000);
			for (uint32_t x = leaf; x != UINT32_MAX; x = nodes[x].parent) {
				if (!on[x]) {
					on[x] = 1;
					ids[n++] = x;
				}
				v[2 * (size_t)x] += t;
				v[2 * (size_t)x + 1] += c;
			}
		}
		qsort(ids, n, sizeof(*ids), cmp_u32);
		value_block(&b, pis + 48 * (size_t)p, ids, n, v, 1, 3);
		for (uint32_t k = 0; k < n; k++) {
			uint32_t x = ids[k];
			sum[2 * (size_t)x] += v[2 * (size_t)x];
			sum[2 * (size_t)x + 1] += v[2 * (size_t)x + 1];
			v[2 * (size_t)x] = v[2 * (size_t)x + 1] = 0;
			on[x] = 0;
		}
	}
	/* the summary: every context with a value */
	uint32_t n = 0;
	for (uint32_t x = 0; x < nn; x++)
		if (sum[2 * (size_t)x] != 0 || sum[2 * (size_t)x + 1] != 0)
			ids[n++] = x;
	value_block(&b, pis, ids, n, sum, 1, 3);
	w32(&b, pis + 40, 1); /* isSummary */
	section(&b, 0, s0);
	/* identifier tuples: NODE n/16, RANK p/4, THREAD p%4 */
	size_t s1 = b.len;
	for (uint32_t p = 1; p <= nprof; p++) {
		size_t t = reserve(&b, 8 + 3 * 16);
		w16(&b, t, 3);
		uint32_t r = (p - 1) / 4;
		uint32_t idv[3] = {r / 16, r, (p - 1) % 4}, kind[3] = {1, 2, 3};
		for (int k = 0; k < 3; k++) {
			w8(&b, t + 8 + 16 * (size_t)k, (uint8_t)kind[k]);
			w32(&b, t + 8 + 16 * (size_t)k + 4, idv[k]);
			w64(&b, t + 8 + 16 * (size_t)k + 8, idv[k]);
		}
		w64(&b, pis + 48 * (size_t)p + 32, t);
	}
	section(&b, 1, s1);
	finish(&b, "_prof.db", path);
	printf("profile.db: %zu bytes, summary values at bytes %llu..%llu\n", b.len,
	       (unsigned long long)(*(uint64_t *)(b.p + pis + 8)),
	       (unsigned long long)(*(uint64_t *)(b.p + pis + 24) + 12 * (uint64_t)n));
	free(v);
	free(sum);
	free(ids);
	free(on);
	free(leaves);
	free(b.p);
}

/* ---- the floor ---- */

static uint64_t scan_range(const char *path, uint64_t from, uint64_t to, uint64_t *bytes)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "gen-hpctoolkit: cannot open %s\n", path);
		exit(1);
	}
	uint64_t len = (uint64_t)st.st_size;
	if (to > len)
		to = len;
	const uint8_t *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "gen-hpctoolkit: cannot map %s\n", path);
		exit(1);
	}
	uint64_t s = 0;
	for (uint64_t i = from; i < to; i++)
		s += p[i];
	*bytes += to - from;
	munmap((void *)p, len);
	close(fd);
	return s;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "scan") == 0) {
		/* meta.db whole; profile.db's header, profile infos and the summary's block */
		char m[4096], pr[4096];
		snprintf(m, sizeof(m), "%s/meta.db", argv[2]);
		snprintf(pr, sizeof(pr), "%s/profile.db", argv[2]);
		uint64_t bytes = 0, s = scan_range(m, 0, UINT64_MAX, &bytes);
		FILE *f = fopen(pr, "rb");
		uint8_t h[0x30], pi[48];
		if (!f || fread(h, 1, sizeof(h), f) != sizeof(h)) {
			fprintf(stderr, "gen-hpctoolkit: cannot read %s\n", pr);
			return 1;
		}
		uint64_t psec, pprof;
		memcpy(&psec, h + 0x18, 8);
		fseek(f, (long)psec, SEEK_SET);
		if (fread(&pprof, 8, 1, f) != 1 || fseek(f, (long)pprof, SEEK_SET) ||
		    fread(pi, 1, sizeof(pi), f) != sizeof(pi)) {
			fprintf(stderr, "gen-hpctoolkit: cannot read %s\n", pr);
			return 1;
		}
		fclose(f);
		uint64_t pv, pc;
		uint32_t nc;
		memcpy(&pv, pi + 8, 8);
		memcpy(&nc, pi + 16, 4);
		memcpy(&pc, pi + 24, 8);
		s += scan_range(pr, pv, pc + 12 * (uint64_t)nc, &bytes);
		printf("%llu %llu\n", (unsigned long long)bytes, (unsigned long long)s);
		return 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: gen-hpctoolkit DIR CONTEXTS PROFILES VALUES\n"
				"       gen-hpctoolkit scan DIR\n");
		return 2;
	}
	uint32_t nctx = (uint32_t)strtoul(argv[2], NULL, 10);
	uint32_t nprof = (uint32_t)strtoul(argv[3], NULL, 10);
	uint32_t nvals = (uint32_t)strtoul(argv[4], NULL, 10);
	mkdir(argv[1], 0777);
	char path[4096];
	build(nctx);
	snprintf(path, sizeof(path), "%s/meta.db", argv[1]);
	write_meta(path);
	snprintf(path, sizeof(path), "%s/profile.db", argv[1]);
	write_profiles(path, nprof, nvals);
	printf("%u contexts, %u execution contexts\n", nn, nprof);
	return 0;
}
