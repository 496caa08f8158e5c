/*
 * jfr.c - Java Flight Recorder recordings (.jfr, JDK 11 and later: format 2.x; 1.x read the
 * same way), read without a JDK.
 *
 * A recording is a row of chunks. A chunk begins with a 68-byte header ("FLR\0", version,
 * chunk size, the offsets of its last constant-pool event and of its metadata event, start time
 * in ns and in ticks, ticks per second, features: bit 0 = integers compressed as LEB128), then
 * holds events, each "size, type id, fields". The metadata event (type 0) describes every type
 * as a class with fields (a field may be a constant-pool reference or an array); the
 * constant-pool events (type 1, linked backwards from the header's offset) hold the values of the
 * pooled types by key: threads, stack traces, methods, classes, symbols.
 *
 * Kept: jdk.ExecutionSample (metric samples), jdk.NativeMethodSample (metric native samples),
 * jdk.ObjectAllocationSample (metric allocated bytes, its weight), each on its thread
 * (jdk.types.Thread: Java name, else OS name; the OS thread id as tid) at its time; stacks of
 * "package.Class.method" functions with their line numbers, the frame type (Interpreted, JIT
 * compiled, Inlined, Native) as the frame's category. Every other event type is counted as lossy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sort.h"
#include "base/vec.h"
#include "import/importer.h"

#define JFR_HEADER 68
#define MAX_FIELDS 64
#define MAX_DEPTH  32

struct rd {
	const uint8_t *p, *e;
	bool bad, compressed;
	struct vec *scratch; /* bytes for strings re-encoded as UTF-8, grown to fit (NULL: none) */
};

static uint64_t rd_u8(struct rd *r)
{
	if (r->p >= r->e) {
		r->bad = true;
		return 0;
	}
	return *r->p++;
}

static uint64_t rd_be(struct rd *r, int n)
{
	if (r->e - r->p < n) {
		r->bad = true;
		r->p = r->e;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | r->p[i];
	r->p += n;
	return v;
}

/* An integer of n bytes: LEB128 (at most 9 bytes, the ninth of 8 bits) when compressed. */
static uint64_t rd_int(struct rd *r, int n)
{
	if (!r->compressed)
		return rd_be(r, n);
	uint64_t v = 0;
	for (int i = 0; i < 8; i++) {
		uint64_t b = rd_u8(r);
		v |= (b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return v;
	}
	return v | rd_u8(r) << 56;
}

static uint64_t rd_long(struct rd *r)
{
	return rd_int(r, 8);
}

/* A string: *s, *n its UTF-8 bytes (into scratch buf for char arrays and Latin-1), or a pool
 * reference (*pool set, *key). Returns 0, -1 on a bad encoding. */
struct jstr {
	const char *s;
	size_t n;
	bool pool;
	uint64_t key;
};

static int rd_string(struct rd *r, struct jstr *out)
{
	*out = (struct jstr){"", 0, false, 0};
	uint64_t enc = rd_u8(r);
	if (enc <= 1)
		return 0;
	if (enc == 2) {
		out->pool = true;
		out->key = rd_long(r);
		return 0;
	}
	uint64_t len = rd_int(r, 4);
	if (enc == 3) {
		if (len > (uint64_t)(r->e - r->p)) {
			r->bad = true;
			return -1;
		}
		out->s = (const char *)r->p;
		out->n = len;
		r->p += len;
		return 0;
	}
	if (enc != 4 && enc != 5)
		return -1;
	/* each character takes a byte at least, and three at most once re-encoded: the whole
	 * string fits, however long */
	if (!r->scratch || len > (uint64_t)(r->e - r->p) || len > UINT32_MAX / 3 ||
	    vec_resize(r->scratch, 1, (uint32_t)(len * 3))) {
		r->bad = true;
		return -1;
	}
	char *o = r->scratch->p;
	size_t n = 0;
	for (uint64_t i = 0; i < len && !r->bad; i++) {
		uint64_t c = enc == 4 ? rd_int(r, 2) : rd_u8(r);
		if (c < 0x80) {
			o[n++] = (char)c;
		} else if (c < 0x800) {
			o[n++] = (char)(0xc0 | c >> 6);
			o[n++] = (char)(0x80 | (c & 0x3f));
		} else {
			o[n++] = (char)(0xe0 | (c >> 12 & 0x0f));
			o[n++] = (char)(0x80 | (c >> 6 & 0x3f));
			o[n++] = (char)(0x80 | (c & 0x3f));
		}
	}
	out->s = n ? o : "";
	out->n = n;
	return 0;
}

enum prim {
	P_CLASS = 0,
	P_BOOLEAN,
	P_BYTE,
	P_CHAR,
	P_SHORT,
	P_INT,
	P_LONG,
	P_FLOAT,
	P_DOUBLE,
	P_STRING,
};

struct jfield {
	char *name;
	uint64_t type;
	uint32_t cls; /* index in classes, UINT32_MAX until resolved */
	bool cp, array;
};

struct jclass {
	uint64_t id;
	char *name;
	enum prim prim;
	struct jfield *f;
	uint32_t nf, fcap;
};

/* a constant-pool value: (class index, key) -> its first byte */
struct pool_slot {
	uint64_t key;
	uint32_t cls;
	uint32_t used;
	const uint8_t *at;
};

struct chunk {
	const uint8_t *base, *end;
	uint64_t cp_off, meta_off;
	int64_t start_ns, start_ticks, tps;
	bool compressed;
	struct vec *scratch; /* the import's string buffer (struct jfr's), for every reader */
	char **strs;
	uint32_t nstr;
	struct jclass *cls;
	uint32_t ncls, ccap;
	struct pool_slot *pool;
	uint32_t pool_mask, pool_len;
	struct u64map by_id; /* class id -> index */
};

/* a sample read, before the metrics are defined */
struct pend {
	pv_thread_ix th;
	pv_stack_ix st;
	int kind; /* 0 execution, 1 native, 2 allocation */
	int64_t t, w;
	uint32_t seq; /* the event's place in the file: ties of t keep it */
};

/* by time, then place in the file: a recording's events are not in time order (each thread
 * buffer is flushed as it fills), the model's samples are */
static int pend_cmp(const void *x, const void *y)
{
	const struct pend *a = x, *b = y;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

struct jfr {
	struct pv_input *in;
	struct pv_builder *b;
	struct pv_error *err;
	struct chunk c;
	struct vec scratch;		    /* strings re-encoded as UTF-8 */
	struct vec name;		    /* a method's name being put together */
	uint32_t t_exec, t_native, t_alloc; /* event classes, UINT32_MAX when absent */
	int ef[3][4]; /* per event kind: its startTime, thread, stackTrace, weight fields */
	uint32_t c_thread, c_stack, c_frame, c_method, c_class, c_symbol, c_ftype, c_string;
	uint32_t nmetrics;
	int64_t zero_ns;
	/* per chunk caches: method key -> function, stack trace key -> stack, thread key */
	struct u64map method_fn, stack_st, thread_th;
	uint64_t n_exec, n_native, n_alloc; /* in this order: (&n_exec)[kind] */
	uint64_t n_other, truncated, no_stack;
	struct vec pend; /* struct pend */
	uint64_t other_types_seen;
};

static const char *const prim_names[] = {
    [P_BOOLEAN] = "boolean", [P_BYTE] = "byte",	    [P_CHAR] = "char",
    [P_SHORT] = "short",     [P_INT] = "int",	    [P_LONG] = "long",
    [P_FLOAT] = "float",     [P_DOUBLE] = "double", [P_STRING] = "java.lang.String",
};

static void chunk_free(struct chunk *c)
{
	for (uint32_t i = 0; i < c->nstr; i++)
		pv_free(c->strs[i]);
	pv_free(c->strs);
	for (uint32_t i = 0; i < c->ncls; i++)
		pv_free(c->cls[i].f);
	pv_free(c->cls);
	pv_free(c->pool);
	u64map_release(&c->by_id);
	memset(c, 0, sizeof(*c));
}

static int fail(struct jfr *j, const uint8_t *at, const char *what)
{
	return input_fail_byte(j->in, j->err, PV_EPARSE, (uint64_t)((const char *)at - j->in->data),
			       "%s", what);
}

static uint32_t class_by_id(const struct chunk *c, uint64_t id)
{
	if (c->by_id.key)
		return u64map_get(&c->by_id, id);
	for (uint32_t i = 0; i < c->ncls; i++)
		if (c->cls[i].id == id)
			return i;
	return UINT32_MAX;
}

static uint32_t class_by_name(const struct chunk *c, const char *name)
{
	for (uint32_t i = 0; i < c->ncls; i++)
		if (c->cls[i].name && strcmp(c->cls[i].name, name) == 0)
			return i;
	return UINT32_MAX;
}

static const char *mstr(const struct chunk *c, uint64_t i)
{
	return i < c->nstr && c->strs[i] ? c->strs[i] : "";
}

/* One element of the metadata tree (and its children); parent_cls: the class it is in. */
static int meta_element(struct jfr *j, struct rd *r, int depth, uint32_t parent_cls)
{
	struct chunk *c = &j->c;
	if (depth > MAX_DEPTH)
		return -1;
	const char *name = mstr(c, rd_int(r, 4));
	uint64_t na = rd_int(r, 4);
	const char *a_name = NULL, *a_id = NULL, *a_class = NULL, *a_cp = NULL, *a_dim = NULL;
	for (uint64_t i = 0; i < na && !r->bad; i++) {
		const char *k = mstr(c, rd_int(r, 4));
		const char *v = mstr(c, rd_int(r, 4));
		if (strcmp(k, "name") == 0)
			a_name = v;
		else if (strcmp(k, "id") == 0)
			a_id = v;
		else if (strcmp(k, "class") == 0)
			a_class = v;
		else if (strcmp(k, "constantPool") == 0)
			a_cp = v;
		else if (strcmp(k, "dimension") == 0)
			a_dim = v;
	}
	uint32_t me = parent_cls;
	if (strcmp(name, "class") == 0 && a_id && a_name) {
		if (c->ncls == c->ccap) {
			uint32_t cap = c->ccap ? c->ccap * 2 : 64;
			if (col_realloc((void **)&c->cls, sizeof(*c->cls), cap))
				return -2;
			c->ccap = cap;
		}
		struct jclass *k = &c->cls[c->ncls];
		memset(k, 0, sizeof(*k));
		k->id = strtoull(a_id, NULL, 10);
		k->name = (char *)a_name;
		for (int p = P_BOOLEAN; p <= P_STRING; p++)
			if (strcmp(a_name, prim_names[p]) == 0)
				k->prim = (enum prim)p;
		me = c->ncls++;
	} else if (strcmp(name, "field") == 0 && parent_cls != UINT32_MAX && a_name && a_class) {
		struct jclass *k = &c->cls[parent_cls];
		if (k->nf == k->fcap) {
			uint32_t cap = k->fcap ? k->fcap * 2 : 8;
			if (col_realloc((void **)&k->f, sizeof(*k->f), cap))
				return -2;
			k->fcap = cap;
		}
		k->f[k->nf++] = (struct jfield){(char *)a_name, strtoull(a_class, NULL, 10),
						UINT32_MAX, a_cp && strcmp(a_cp, "true") == 0,
						a_dim && strcmp(a_dim, "1") == 0};
		me = UINT32_MAX;
	}
	uint64_t nc = rd_int(r, 4);
	for (uint64_t i = 0; i < nc && !r->bad; i++) {
		int rc = meta_element(j, r, depth + 1, me);
		if (rc)
			return rc;
	}
	return r->bad ? -1 : 0;
}

static int read_metadata(struct jfr *j)
{
	struct chunk *c = &j->c;
	const uint8_t *at = c->base + c->meta_off;
	if (c->meta_off < JFR_HEADER || at >= c->end)
		return fail(j, c->base + 32, "the metadata offset is outside the chunk");
	struct rd r = {at, c->end, false, c->compressed, c->scratch};
	uint64_t size = rd_int(&r, 4);
	if (size > (uint64_t)(c->end - at) || size < 2)
		return fail(j, at, "the metadata event's size runs past the chunk");
	r.e = at + size;
	if (rd_long(&r) != 0)
		return fail(j, at, "expected the metadata event (type 0) at the metadata offset");
	rd_long(&r); /* start */
	rd_long(&r); /* duration */
	rd_long(&r); /* id */
	uint64_t ns = rd_int(&r, 4);
	if (ns > size)
		return fail(j, at, "the metadata's string count is past its size");
	c->strs = pv_calloc(ns ? ns : 1, sizeof(char *));
	if (!c->strs)
		return pv_error_set(j->err, PV_ENOMEM, "out of memory");
	c->nstr = (uint32_t)ns;
	for (uint64_t i = 0; i < ns && !r.bad; i++) {
		struct jstr s;
		if (rd_string(&r, &s) || s.pool)
			return fail(j, r.p, "a metadata string of an unknown encoding");
		c->strs[i] = pv_malloc(s.n + 1);
		if (!c->strs[i])
			return pv_error_set(j->err, PV_ENOMEM, "out of memory");
		memcpy(c->strs[i], s.s, s.n);
		c->strs[i][s.n] = 0;
	}
	int rc = r.bad ? -1 : meta_element(j, &r, 0, UINT32_MAX);
	if (rc == -2)
		return pv_error_set(j->err, PV_ENOMEM, "out of memory");
	if (rc)
		return fail(j, r.p,
			    "the metadata event is damaged (its element tree runs past it)");
	for (uint32_t i = 0; i < c->ncls; i++)
		if (u64map_get(&c->by_id, c->cls[i].id) == UINT32_MAX &&
		    u64map_put(&c->by_id, c->cls[i].id, i))
			return pv_error_set(j->err, PV_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < c->ncls; i++)
		for (uint32_t f = 0; f < c->cls[i].nf; f++) {
			c->cls[i].f[f].cls = class_by_id(c, c->cls[i].f[f].type);
			if (c->cls[i].f[f].cls == UINT32_MAX)
				return fail(j, at,
					    "a field of a type the metadata does not define");
		}
	return 0;
}

static int skip_value(struct rd *r, const struct chunk *c, uint32_t cls, int depth);

static int skip_field(struct rd *r, const struct chunk *c, const struct jfield *f, int depth)
{
	uint64_t n = 1;
	if (f->array) {
		n = rd_int(r, 4);
		if (n > (uint64_t)(r->e - r->p))
			r->bad = true;
	}
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		if (f->cp)
			rd_long(r);
		else if (skip_value(r, c, f->cls, depth + 1))
			return -1;
	}
	return r->bad ? -1 : 0;
}

static int skip_value(struct rd *r, const struct chunk *c, uint32_t cls, int depth)
{
	if (depth > MAX_DEPTH)
		return -1;
	const struct jclass *k = &c->cls[cls];
	struct jstr s;
	switch (k->prim) {
	case P_BOOLEAN:
	case P_BYTE: rd_u8(r); break;
	case P_CHAR:
	case P_SHORT: rd_int(r, 2); break;
	case P_INT: rd_int(r, 4); break;
	case P_LONG: rd_long(r); break;
	case P_FLOAT: rd_be(r, 4); break;
	case P_DOUBLE: rd_be(r, 8); break;
	case P_STRING:
		if (rd_string(r, &s))
			return -1;
		break;
	case P_CLASS:
		for (uint32_t f = 0; f < k->nf && !r->bad; f++)
			if (skip_field(r, c, &k->f[f], depth))
				return -1;
		break;
	}
	return r->bad ? -1 : 0;
}

/*
 * The fields of a value of class cls at r: for each (up to MAX_FIELDS) its integer (a pool key,
 * a number, a boolean) in v and its first byte in at. Returns 0 or -1 (damaged).
 */
static int read_fields(struct rd *r, const struct chunk *c, uint32_t cls, uint64_t *v,
		       const uint8_t **at)
{
	const struct jclass *k = &c->cls[cls];
	for (uint32_t f = 0; f < k->nf && !r->bad; f++) {
		const struct jfield *fd = &k->f[f];
		if (f < MAX_FIELDS) {
			at[f] = r->p;
			v[f] = 0;
		}
		if (!fd->array && (fd->cp || (c->cls[fd->cls].prim >= P_BOOLEAN &&
					      c->cls[fd->cls].prim <= P_LONG))) {
			enum prim p = fd->cp ? P_LONG : c->cls[fd->cls].prim;
			uint64_t x = p == P_BOOLEAN || p == P_BYTE ? rd_u8(r)
				     : p == P_LONG		   ? rd_long(r)
				     : p == P_INT		   ? rd_int(r, 4)
								   : rd_int(r, 2);
			if (f < MAX_FIELDS)
				v[f] = x;
		} else if (skip_field(r, c, fd, 0)) {
			return -1;
		}
	}
	return r->bad ? -1 : 0;
}

static int field_ix(const struct chunk *c, uint32_t cls, const char *name)
{
	if (cls == UINT32_MAX)
		return -1;
	const struct jclass *k = &c->cls[cls];
	for (uint32_t f = 0; f < k->nf && f < MAX_FIELDS; f++)
		if (strcmp(k->f[f].name, name) == 0)
			return (int)f;
	return -1;
}

static uint64_t pool_hash(uint32_t cls, uint64_t key)
{
	return hash_u64(key * 31 + cls);
}

static const uint8_t *pool_get(const struct chunk *c, uint32_t cls, uint64_t key)
{
	if (!c->pool || cls == UINT32_MAX)
		return NULL;
	for (uint64_t h = pool_hash(cls, key);; h++) {
		const struct pool_slot *s = &c->pool[h & c->pool_mask];
		if (!s->used)
			return NULL;
		if (s->cls == cls && s->key == key)
			return s->at;
	}
}

static int pool_put(struct chunk *c, uint32_t cls, uint64_t key, const uint8_t *at)
{
	if ((c->pool_len + 1) * 2 > c->pool_mask + 1 || !c->pool) {
		uint32_t n = c->pool ? (c->pool_mask + 1) * 2 : 1024;
		struct pool_slot *np = pv_calloc(n, sizeof(*np));
		if (!np)
			return -1;
		for (uint32_t i = 0; c->pool && i <= c->pool_mask; i++)
			if (c->pool[i].used)
				for (uint64_t h = pool_hash(c->pool[i].cls, c->pool[i].key);; h++)
					if (!np[h & (n - 1)].used) {
						np[h & (n - 1)] = c->pool[i];
						break;
					}
		pv_free(c->pool);
		c->pool = np;
		c->pool_mask = n - 1;
	}
	for (uint64_t h = pool_hash(cls, key);; h++) {
		struct pool_slot *s = &c->pool[h & c->pool_mask];
		if (!s->used) {
			*s = (struct pool_slot){key, cls, 1, at};
			c->pool_len++;
			return 0;
		}
		if (s->cls == cls && s->key == key)
			return 0; /* the first value of a key is kept */
	}
}

static int read_pools(struct jfr *j)
{
	struct chunk *c = &j->c;
	uint64_t off = c->cp_off;
	for (int n = 0; off && n < 1 << 20; n++) {
		const uint8_t *at = c->base + off;
		if (off < JFR_HEADER || off >= (uint64_t)(c->end - c->base))
			return fail(j, c->base + 24, "a constant-pool offset is outside the chunk");
		struct rd r = {at, c->end, false, c->compressed, c->scratch};
		uint64_t size = rd_int(&r, 4);
		if (size > (uint64_t)(c->end - at) || size < 2)
			return fail(j, at, "the constant-pool event's size runs past the chunk");
		r.e = at + size;
		if (rd_long(&r) != 1)
			return fail(j, at, "expected a constant-pool event (type 1) at its offset");
		rd_long(&r); /* start */
		rd_long(&r); /* duration */
		int64_t delta = (int64_t)rd_long(&r);
		rd_u8(&r); /* flush / type mask */
		uint64_t npools = rd_int(&r, 4);
		for (uint64_t p = 0; p < npools && !r.bad; p++) {
			uint32_t cls = class_by_id(c, rd_long(&r));
			uint64_t count = rd_int(&r, 4);
			if (cls == UINT32_MAX)
				return fail(
				    j, r.p,
				    "a constant pool of a type the metadata does not define");
			for (uint64_t k = 0; k < count && !r.bad; k++) {
				uint64_t key = rd_long(&r);
				if (pool_put(c, cls, key, r.p))
					return pv_error_set(j->err, PV_ENOMEM, "out of memory");
				if (skip_value(&r, c, cls, 0))
					break;
			}
		}
		if (r.bad)
			return fail(j, at,
				    "the constant-pool event is damaged (a value runs past it)");
		if (delta == 0)
			break;
		if (delta > 0 || (uint64_t)-delta > off)
			return fail(j, at,
				    "the constant-pool event's link points outside the chunk");
		off -= (uint64_t)-delta;
	}
	return 0;
}

/* The string of a Symbol (or String) pool value key of class cls; "" when absent. */
static struct jstr symbol(struct jfr *j, uint32_t cls, uint64_t key)
{
	struct jstr s = {"", 0, false, 0};
	const uint8_t *at = pool_get(&j->c, cls, key);
	if (!at)
		return s;
	struct rd r = {at, j->c.end, false, j->c.compressed, j->c.scratch};
	if (j->c.cls[cls].prim == P_STRING) {
		rd_string(&r, &s);
		return s;
	}
	if (j->c.cls[cls].nf < 1 || j->c.cls[j->c.cls[cls].f[0].cls].prim != P_STRING)
		return s;
	if (rd_string(&r, &s) || s.pool)
		s = (struct jstr){"", 0, false, 0};
	return s;
}

static pv_func_ix method_func(struct jfr *j, uint64_t key)
{
	uint32_t got = u64map_get(&j->method_fn, key);
	if (got != UINT32_MAX)
		return got;
	struct chunk *c = &j->c;
	uint64_t v[MAX_FIELDS];
	const uint8_t *at[MAX_FIELDS];
	char num[64];
	size_t n = 0;
	struct vec *nm = &j->name;
	const uint8_t *p = pool_get(c, j->c_method, key);
	int f_type = field_ix(c, j->c_method, "type"), f_name = field_ix(c, j->c_method, "name");
	struct rd r = {p, c->end, false, c->compressed, c->scratch};
	if (p && !read_fields(&r, c, j->c_method, v, at) && f_type >= 0 && f_name >= 0) {
		const uint8_t *cp = pool_get(c, j->c_class, v[f_type]);
		int c_name = field_ix(c, j->c_class, "name");
		uint64_t cv[MAX_FIELDS];
		const uint8_t *cat[MAX_FIELDS];
		struct rd cr = {cp, c->end, false, c->compressed, c->scratch};
		if (cp && c_name >= 0 && !read_fields(&cr, c, j->c_class, cv, cat)) {
			struct jstr s = symbol(j, j->c_symbol, cv[c_name]);
			if (vec_resize(nm, 1, (uint32_t)s.n + 1))
				return j->b->status = PV_ENOMEM, PV_NONE;
			for (size_t i = 0; i < s.n; i++)
				((char *)nm->p)[n++] = s.s[i] == '/' ? '.' : s.s[i];
			((char *)nm->p)[n++] = '.';
		}
		struct jstr m = symbol(j, j->c_symbol, v[f_name]);
		if (m.n && vec_resize(nm, 1, (uint32_t)(n + m.n)))
			return j->b->status = PV_ENOMEM, PV_NONE;
		if (m.n)
			memcpy((char *)nm->p + n, m.s, m.n);
		n += m.n;
	}
	const char *name = nm->p;
	if (n == 0) {
		n = (size_t)snprintf(num, sizeof(num), "method %llu", (unsigned long long)key);
		name = num;
	}
	pv_func_ix f = builder_func(j->b, builder_str(j->b, name, n), PV_NONE, PV_NONE, 0);
	u64map_put(&j->method_fn, key, f);
	return f;
}

static pv_stack_ix trace_stack(struct jfr *j, uint64_t key)
{
	uint32_t got = u64map_get(&j->stack_st, key);
	if (got != UINT32_MAX)
		return got == UINT32_MAX - 1 ? PV_NONE : got;
	struct chunk *c = &j->c;
	const uint8_t *p = pool_get(c, j->c_stack, key);
	pv_stack_ix st = PV_NONE;
	int f_trunc = field_ix(c, j->c_stack, "truncated"),
	    f_frames = field_ix(c, j->c_stack, "frames");
	if (p && f_frames >= 0 && c->cls[j->c_stack].f[f_frames].array &&
	    !c->cls[j->c_stack].f[f_frames].cp) {
		uint64_t v[MAX_FIELDS];
		const uint8_t *at[MAX_FIELDS];
		struct rd r = {p, c->end, false, c->compressed, c->scratch};
		if (!read_fields(&r, c, j->c_stack, v, at)) {
			if (f_trunc >= 0 && v[f_trunc])
				j->truncated++;
			struct rd fr = {at[f_frames], c->end, false, c->compressed, c->scratch};
			uint64_t n = rd_int(&fr, 4);
			uint32_t fc = c->cls[j->c_stack].f[f_frames].cls;
			int f_method = field_ix(c, fc, "method"),
			    f_line = field_ix(c, fc, "lineNumber"),
			    f_type = field_ix(c, fc, "type");
			/* leaf first: collected, then built from the root */
			struct frame_key *keys = n <= (uint64_t)(fr.e - fr.p)
						     ? pv_malloc((n ? n : 1) * sizeof(*keys))
						     : NULL;
			uint64_t got_n = 0;
			for (uint64_t i = 0; keys && i < n && !fr.bad; i++) {
				uint64_t fv[MAX_FIELDS];
				const uint8_t *fat[MAX_FIELDS];
				if (read_fields(&fr, c, fc, fv, fat))
					break;
				struct frame_key k = {0};
				k.func = f_method >= 0 ? method_func(j, fv[f_method]) : PV_NONE;
				k.line = f_line >= 0 && (int32_t)fv[f_line] > 0
					     ? (uint32_t)fv[f_line]
					     : 0;
				k.addr = PV_ADDR_NONE;
				k.category = PV_NONE;
				if (f_type >= 0 && j->c_ftype != UINT32_MAX) {
					struct jstr s = symbol(j, j->c_ftype, fv[f_type]);
					if (s.n)
						k.category = builder_category(
						    j->b, builder_str(j->b, s.s, s.n), 0);
				}
				keys[got_n++] = k;
			}
			for (uint64_t i = got_n; i-- > 0;)
				if (keys[i].func != PV_NONE)
					st = builder_stack(j->b, st, builder_frame(j->b, &keys[i]));
			pv_free(keys);
		}
	}
	u64map_put(&j->stack_st, key, st == PV_NONE ? UINT32_MAX - 1 : st);
	return st;
}

static pv_thread_ix thread_of(struct jfr *j, uint64_t key)
{
	uint32_t got = u64map_get(&j->thread_th, key);
	if (got != UINT32_MAX)
		return got;
	struct chunk *c = &j->c;
	const uint8_t *p = pool_get(c, j->c_thread, key);
	struct jstr name = {"", 0, false, 0};
	int64_t tid = PV_ID_NONE;
	char buf[64];
	if (p) {
		uint64_t v[MAX_FIELDS];
		const uint8_t *at[MAX_FIELDS];
		struct rd r = {p, c->end, false, c->compressed, c->scratch};
		if (!read_fields(&r, c, j->c_thread, v, at)) {
			int f_os = field_ix(c, j->c_thread, "osName"),
			    f_java = field_ix(c, j->c_thread, "javaName"),
			    f_tid = field_ix(c, j->c_thread, "osThreadId");
			for (int k = 0; k < 2 && name.n == 0; k++) {
				int f = k == 0 ? f_java : f_os;
				if (f < 0)
					continue;
				struct rd sr = {at[f], c->end, false, c->compressed, c->scratch};
				if (!rd_string(&sr, &name) && name.pool)
					name = symbol(j, j->c_string, name.key);
			}
			if (f_tid >= 0)
				tid = (int64_t)v[f_tid];
		}
	}
	size_t n = name.n;
	const char *nm = name.s;
	if (n == 0) {
		n = (size_t)snprintf(buf, sizeof(buf), "thread %llu", (unsigned long long)key);
		nm = buf;
	}
	pv_str_ix ns = builder_str(j->b, nm, n);
	/* the same thread in an earlier chunk (its pool key may differ) */
	const struct pv_threads *t = &j->b->p->threads;
	pv_thread_ix th = PV_NONE;
	for (uint32_t i = 0; i < t->len; i++)
		if (t->name[i] == ns && t->tid[i] == tid)
			th = i;
	if (th == PV_NONE)
		th = builder_thread(j->b, ns, PV_ID_NONE, tid, 0);
	u64map_put(&j->thread_th, key, th);
	return th;
}

/* Reads chunk header at p (of the input's end e) into j->c. */
static int chunk_header(struct jfr *j, const uint8_t *p, const uint8_t *e)
{
	struct chunk *c = &j->c;
	if (e - p < JFR_HEADER || memcmp(p, "FLR", 4) != 0)
		return fail(j, p, "expected a chunk header ('FLR\\0', 68 bytes)");
	struct rd r = {p + 4, e, false, false, NULL};
	uint64_t major = rd_be(&r, 2);
	rd_be(&r, 2);
	if (major < 1 || major > 2)
		return fail(j, p + 4, "a chunk of format version other than 1 or 2");
	uint64_t size = rd_be(&r, 8);
	if (size < JFR_HEADER || size > (uint64_t)(e - p))
		return fail(j, p + 8, "the chunk's size runs past the end of the file");
	c->base = p;
	c->end = p + size;
	c->scratch = &j->scratch;
	c->cp_off = rd_be(&r, 8);
	c->meta_off = rd_be(&r, 8);
	c->start_ns = (int64_t)rd_be(&r, 8);
	rd_be(&r, 8); /* duration */
	c->start_ticks = (int64_t)rd_be(&r, 8);
	c->tps = (int64_t)rd_be(&r, 8);
	uint64_t features = rd_be(&r, 4);
	c->compressed = major >= 2 && (features & 1);
	if (c->tps <= 0)
		return fail(j, p + 56, "the chunk's ticks per second is not positive");
	return 0;
}

/* The chunk's classes that matter, by name. */
static void chunk_classes(struct jfr *j)
{
	struct chunk *c = &j->c;
	j->t_exec = class_by_name(c, "jdk.ExecutionSample");
	j->t_native = class_by_name(c, "jdk.NativeMethodSample");
	j->t_alloc = class_by_name(c, "jdk.ObjectAllocationSample");
	j->c_thread = class_by_name(c, "java.lang.Thread");
	j->c_stack = class_by_name(c, "jdk.types.StackTrace");
	j->c_frame = class_by_name(c, "jdk.types.StackFrame");
	j->c_method = class_by_name(c, "jdk.types.Method");
	j->c_class = class_by_name(c, "java.lang.Class");
	j->c_symbol = class_by_name(c, "jdk.types.Symbol");
	j->c_ftype = class_by_name(c, "jdk.types.FrameType");
	j->c_string = class_by_name(c, "java.lang.String");
	const uint32_t ev[3] = {j->t_exec, j->t_native, j->t_alloc};
	for (int k = 0; k < 3; k++) {
		j->ef[k][0] = field_ix(c, ev[k], "startTime");
		j->ef[k][1] = field_ix(c, ev[k], k == 2 ? "eventThread" : "sampledThread");
		j->ef[k][2] = field_ix(c, ev[k], "stackTrace");
		j->ef[k][3] = field_ix(c, ev[k], "weight");
	}
}

/*
 * Walks the events of every chunk once: the samples into j->pend (their metrics are known at
 * the end: only the kinds the recording has get one), the other events counted.
 */
static int walk(struct jfr *j)
{
	const uint8_t *p = (const uint8_t *)j->in->data, *e = p + j->in->len;
	bool first = true;
	while (p < e) {
		int rc = chunk_header(j, p, e);
		if (rc)
			return rc;
		if ((rc = read_metadata(j)))
			return rc;
		chunk_classes(j);
		if ((rc = read_pools(j)))
			return rc;
		if (first) {
			j->zero_ns = j->c.start_ns;
			j->b->p->meta.start_unix_ns = j->c.start_ns;
		}
		first = false;
		struct chunk *c = &j->c;
		u64map_release(&j->method_fn);
		u64map_release(&j->stack_st);
		u64map_release(&j->thread_th);
		const uint8_t *q = c->base + JFR_HEADER;
		while (q < c->end) {
			struct rd r = {q, c->end, false, c->compressed, c->scratch};
			uint64_t size = rd_int(&r, 4);
			if (r.bad || size < 2 || size > (uint64_t)(c->end - q))
				return fail(j, q,
					    "an event's size runs past its chunk (or is under 2)");
			r.e = q + size;
			uint64_t type = rd_long(&r);
			uint32_t cls = type > 1 ? class_by_id(c, type) : UINT32_MAX;
			int kind = cls == UINT32_MAX	? -1
				   : cls == j->t_exec	? 0
				   : cls == j->t_native ? 1
				   : cls == j->t_alloc	? 2
							: -1;
			if (kind < 0 && type > 1)
				j->n_other++;
			if (kind >= 0) {
				uint64_t v[MAX_FIELDS];
				const uint8_t *at[MAX_FIELDS];
				if (read_fields(&r, c, cls, v, at))
					return fail(j, q, "an event's fields run past its size");
				int f_time = j->ef[kind][0], f_thread = j->ef[kind][1],
				    f_stack = j->ef[kind][2], f_weight = j->ef[kind][3];
				int64_t t = PV_TIME_NONE;
				if (f_time >= 0) {
					int64_t d = (int64_t)v[f_time] - c->start_ticks;
					int64_t ns =
					    (int64_t)((long double)d * 1e9L / (long double)c->tps);
					t = c->start_ns + ns - j->zero_ns;
				}
				pv_thread_ix th = f_thread >= 0 ? thread_of(j, v[f_thread])
								: thread_of(j, UINT64_MAX);
				pv_stack_ix st =
				    f_stack >= 0 ? trace_stack(j, v[f_stack]) : PV_NONE;
				if (st == PV_NONE)
					j->no_stack++;
				int64_t w =
				    kind == 2 ? (f_weight >= 0 ? (int64_t)v[f_weight] : 0) : 1;
				struct pend *pd = vec_push(&j->pend, sizeof(struct pend));
				if (!pd)
					return pv_error_set(j->err, PV_ENOMEM, "out of memory");
				*pd = (struct pend){th, st, kind, t, w < 0 ? 0 : w, 0};
				(&j->n_exec)[kind]++;
			}
			q += size;
		}
		p = c->end;
		chunk_free(&j->c);
	}
	return 0;
}

static int probe(const struct pv_input *in)
{
	return in->len >= JFR_HEADER && memcmp(in->data, "FLR", 4) == 0 ? 100 : 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct jfr j = {.in = in, .b = b, .err = err};
	int rc = walk(&j);
	chunk_free(&j.c);
	u64map_release(&j.method_fn);
	u64map_release(&j.stack_st);
	u64map_release(&j.thread_th);
	vec_free(&j.scratch);
	vec_free(&j.name);
	if (rc) {
		vec_free(&j.pend);
		return rc;
	}
	pv_metric_ix m[3] = {PV_NONE, PV_NONE, PV_NONE};
	if (j.n_exec || (!j.n_native && !j.n_alloc))
		m[0] = builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
	if (j.n_native)
		m[1] = builder_metric(b, builder_cstr(b, "native samples"), PV_UNIT_COUNT);
	if (j.n_alloc)
		m[2] = builder_metric(b, builder_cstr(b, "allocated bytes"), PV_UNIT_BYTES);
	b->p->meta.default_metric = m[0] != PV_NONE ? m[0] : m[1] != PV_NONE ? m[1] : m[2];
	struct pend *pd = VEC(j.pend, struct pend);
	for (uint32_t i = 0; i < j.pend.len; i++)
		pd[i].seq = i;
	pv_sort(pd, j.pend.len, sizeof(*pd), pend_cmp);
	for (uint32_t i = 0; i < j.pend.len; i++) {
		int64_t w[3] = {0, 0, 0};
		w[m[pd[i].kind]] = pd[i].w;
		builder_sample(b, pd[i].th, pd[i].st, pd[i].t, w);
	}
	vec_free(&j.pend);
	builder_lossy(
	    b, j.n_other,
	    "events other than execution, native-method and allocation samples (not kept)");
	builder_lossy(b, j.truncated,
		      "stack traces the recorder truncated (their outermost frames missing)");
	builder_lossy(b, j.no_stack, "samples without a stack trace");
	return 0;
}

const struct importer importer_jfr = {
    .name = "jfr",
    .description =
	"Java Flight Recorder recording (.jfr: execution, native and allocation samples)",
    .probe = probe,
    .import = import,
};
