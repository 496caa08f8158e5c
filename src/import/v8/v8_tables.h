/*
 * v8_tables.h - the tables V8's tick logs make (code entries, ticks and their stacks), shared by
 * the preprocessed JSON reader (v8log.c) and the raw `--prof` log reader (v8raw.c), and the one
 * step that makes the profile of them as speedscope does (v8_build); defined in v8_tables.c.
 */
#ifndef PV_IMPORT_V8_TABLES_H
#define PV_IMPORT_V8_TABLES_H

#include "base/sbuf.h"
#include "base/vec.h"
#include "import/json.h"
#include "model/builder.h"

enum ctype { T_NONE, T_CODE, T_CPP, T_JS, T_LIB, T_OTHER };

struct vcode {
	pv_str_ix name, type_name;
	uint8_t type;
	uint8_t kind;	   /* prefix index, 0: none */
	pv_frame_ix frame; /* PV_NONE until first used */
};

struct vtick {
	int64_t tm;
	pv_stack_ix stack; /* interned as read when the code table came before it */
	uint32_t first, n; /* its entries (n), into ids when lazy */
	bool lazy;	   /* read before the code table: interned by build */
	bool packed;	   /* its ids are the n / 2 code entries only (no offsets) */
	const char *at;
	uint32_t order;
};

struct v8 {
	struct json j;
	struct pv_input *in;
	struct pv_error *err;
	struct pv_builder *b;
	struct sbuf name, type, kind;
	struct vec codes; /* struct vcode */
	struct vec ticks; /* struct vtick */
	struct vec ids;	  /* int64_t: the entries of ticks read before the code table */
	struct vec one;	  /* int64_t: the entries of the tick being read */
	/* the last stack interned: its entries root first and its stack after each */
	struct vec last_ids, last_st; /* int64_t, pv_stack_ix */
	uint32_t last_n;
	bool has_code, has_ticks, unsorted, interned;
	uint64_t vm_states, functions;
};

/*
 * Sets code entry c: its name (len bytes), its type as the preprocessed log names it ("CODE",
 * "CPP", "JS", "SHARED_LIB", another; NULL: none) and kind ("Builtin", "Stub", ...).
 */
void v8_code_set(struct v8 *s, struct vcode *c, const char *name, size_t len, const char *ty,
		 const char *kind);
/*
 * The profile of the tables: one thread, a sample per tick (in order of time) whose stack is the
 * code entries of the even entries of its 's' (-1 skipped), weighing the time since the tick
 * before; lossy lines for what is not kept. 0 (a builder error is in b->status).
 */
int v8_build(struct v8 *s);
/*
 * The stack of a tick's n entries, as speedscope reads them: from ids[n - 2] down by two, the
 * root first, -1 skipped (PV_NONE with b->status set when out of memory); when packed, ids holds
 * only the n / 2 code entries, leaf first.
 */
pv_stack_ix v8_tick_stack(struct v8 *s, const int64_t *ids, uint32_t n, bool packed);
/* Frees what the tables hold (not s itself, nor its JSON reader). */
void v8_release(struct v8 *s);

#endif
