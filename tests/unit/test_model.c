/* The model: builder interning, sample grouping, the validator, allocation failures. */
#include <stdlib.h>

#include "base/alloc.h"
#include "model/builder.h"
#include "pv/import.h"
#include "t.h"
#include "tp.h"

T_TEST(builder_interns_everything)
{
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
	pv_str_ix a = builder_cstr(&b, "alpha"), a2 = builder_str(&b, "alphabet", 5);
	T_EQ_INT(a, a2);
	T_EQ_INT(builder_cstr(&b, ""), 0);
	pv_module_ix m = builder_module(&b, builder_cstr(&b, "libc.so.6"), 0, PV_MODULE_LIBRARY);
	T_EQ_INT(builder_module(&b, builder_cstr(&b, "libc.so.6"), 0, PV_MODULE_LIBRARY), m);
	pv_func_ix f = builder_func(&b, a, m, PV_NONE, 0);
	T_EQ_INT(builder_func(&b, a, m, PV_NONE, 0), f);
	T_TRUE(builder_func(&b, a, PV_NONE, PV_NONE, 0) != f);
	/* the column is part of a function (JavaScript); a column without a line is dropped */
	pv_source_ix src = builder_source(&b, builder_cstr(&b, "x.min.js"));
	pv_func_ix c1 = builder_func_at(&b, a, m, src, 1, 10);
	T_EQ_INT(builder_func_at(&b, a, m, src, 1, 10), c1);
	T_TRUE(builder_func_at(&b, a, m, src, 1, 50) != c1);
	T_TRUE(builder_func(&b, a, m, src, 1) != c1);
	T_EQ_INT(builder_func_at(&b, a, m, src, 0, 7), builder_func(&b, a, m, src, 0));
	T_EQ_INT(pv_func_column(b.p, c1), 10);
	pv_frame_ix fr = builder_func_frame(&b, f);
	T_EQ_INT(builder_func_frame(&b, f), fr);
	pv_stack_ix s0 = builder_stack(&b, PV_NONE, fr);
	pv_stack_ix s1 = builder_stack(&b, s0, fr);
	T_EQ_INT(builder_stack(&b, s0, fr), s1);
	T_EQ_INT(builder_stack(&b, PV_NONE, fr), s0);
	T_TRUE(s1 > s0);
	pv_thread_ix t0 = builder_thread(&b, a, 1, 1, 0);
	pv_thread_ix t1 = builder_thread(&b, a, 1, 2, 0);
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	/* interleaved threads are grouped by thread, keeping order within each thread */
	builder_sample(&b, t1, s0, 10, NULL);
	builder_sample(&b, t0, s1, 20, NULL);
	builder_sample(&b, t1, s1, 30, NULL);
	int64_t w = 5;
	builder_sample(&b, t0, s0, 40, &w);
	builder_lossy(&b, 2, "dropped %s", "things");
	builder_lossy(&b, 3, "dropped %s", "things");
	struct pv_profile *p = NULL;
	T_EQ_INT(builder_finish(&b, &p), 0);
	builder_release(&b);
	struct pv_error err;
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	T_EQ_INT(p->threads.sample_begin[t0], 0);
	T_EQ_INT(p->threads.sample_end[t0], 2);
	T_EQ_INT(pv_sample_time(p, 0), 20);
	T_EQ_INT(pv_sample_time(p, 1), 40);
	T_EQ_INT(pv_sample_weight(p, 0, 1), 5);
	T_EQ_INT(pv_sample_time(p, 2), 10);
	T_EQ_INT(pv_sample_time(p, 3), 30);
	T_EQ_INT(pv_sample_weight(p, 0, 2), 1);
	T_EQ_INT(p->diags.len, 1);
	T_EQ_U64(p->diags.count[0], 5);
	T_EQ_STR(pv_str(p, p->diags.msg[0]), "dropped things");
	T_EQ_INT(pv_metric_find(p, "SAMPLES"), 0);
	T_EQ_INT(pv_metric_find(p, "nope"), PV_NONE);
	pv_thread_ix found[4];
	T_EQ_INT(pv_thread_find(p, "2", found, 4), 1);
	T_EQ_INT(found[0], t1);
	T_EQ_INT(pv_thread_find(p, "alpha", found, 4), 2);
	/* "#N" is the one thread of index N, whatever the names and tids; past the end, nothing */
	T_EQ_INT(pv_thread_find(p, "#1", found, 4), 1);
	T_EQ_INT(found[0], 1);
	T_EQ_INT(pv_thread_find(p, "#0", found, 4), 1);
	T_EQ_INT(found[0], 0);
	T_EQ_INT(pv_thread_find(p, "#9", found, 4), 0);
	pv_profile_free(p);
}

static struct pv_profile *small_profile(void)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	const char *text = "a;b;c 3\na;b 2\nx [libc.so.6];y_[k];[libm.so] 1\n";
	if (pv_import_memory("m.txt", text, strlen(text), NULL, &p, &err))
		t_fail(__FILE__, __LINE__, "import: %s", err.msg);
	return p;
}

/*
 * Columns that cost nothing while every row has the default: samples.time_ns (no time) and
 * frames.addr (no address) are NULL until a row has a value, then hold the default for the rows
 * before; a reserve's time column that no sample used goes at the end.
 */
T_TEST(builder_absent_columns)
{
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
	pv_func_ix f = builder_func(&b, builder_cstr(&b, "f"), PV_NONE, PV_NONE, 0);
	pv_frame_ix f0 = builder_func_frame(&b, f);
	pv_thread_ix t = builder_thread(&b, builder_cstr(&b, "t"), 1, 1, 0);
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	pv_stack_ix s0 = builder_stack(&b, PV_NONE, f0);
	builder_sample(&b, t, s0, PV_TIME_NONE, NULL);
	T_TRUE(b.p->frames.addr == NULL);
	T_TRUE(b.p->samples.time_ns == NULL);
	struct frame_key k = {.func = f, .addr = 0x1234, .category = PV_NONE};
	pv_frame_ix f1 = builder_frame(&b, &k);
	T_EQ_INT(builder_frame(&b, &k), f1); /* interned with its address */
	builder_sample(&b, t, builder_stack(&b, PV_NONE, f1), 7, NULL);
	struct pv_profile *p = NULL;
	T_EQ_INT(builder_finish(&b, &p), 0);
	builder_release(&b);
	struct pv_error err;
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	T_TRUE(p->frames.addr != NULL);
	T_EQ_U64(pv_frame_addr(p, f0), PV_ADDR_NONE);
	T_EQ_U64(pv_frame_addr(p, f1), 0x1234);
	T_TRUE(p->samples.time_ns != NULL);
	T_EQ_INT(pv_sample_time(p, 0), PV_TIME_NONE);
	T_EQ_INT(pv_sample_time(p, 1), 7);
	pv_profile_free(p);

	/* written in place without a time: no column at the end */
	T_EQ_INT(builder_init(&b), 0);
	t = builder_thread(&b, builder_cstr(&b, "t"), 1, 1, 0);
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	T_EQ_INT(builder_samples_reserve(&b, 2, true), 0);
	for (uint32_t i = 0; i < 2; i++) {
		b.p->samples.stack[i] = PV_NONE;
		b.p->samples.time_ns[i] = PV_TIME_NONE;
	}
	builder_samples_commit(&b, t, 0, 2);
	T_EQ_INT(builder_finish(&b, &p), 0);
	builder_release(&b);
	T_EQ_INT(p->samples.len, 2);
	T_TRUE(p->samples.time_ns == NULL);
	T_EQ_INT(pv_sample_time(p, 1), PV_TIME_NONE);
	pv_profile_free(p);
}

/* Function and frame columns made at the first value other than the default (pv/profile.h). */
T_TEST(builder_optional_func_frame_columns)
{
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
	pv_func_ix f = builder_func(&b, builder_cstr(&b, "f"), PV_NONE, PV_NONE, 0);
	pv_frame_ix f0 = builder_func_frame(&b, f);
	T_TRUE(!b.p->funcs.module && !b.p->funcs.source && !b.p->funcs.line && !b.p->funcs.column);
	T_TRUE(!b.p->frames.line && !b.p->frames.category && !b.p->frames.kind &&
	       !b.p->frames.source && !b.p->frames.inline_depth && !b.p->frames.subcategory);
	pv_source_ix src = builder_source(&b, builder_cstr(&b, "g.c"));
	pv_func_ix g = builder_func_at(&b, builder_cstr(&b, "g"), PV_NONE, src, 12, 3);
	struct frame_key k = {.func = g,
			      .line = 14,
			      .addr = PV_ADDR_NONE,
			      .category = PV_NONE,
			      .kind = PV_FRAME_LOOP};
	pv_frame_ix f1 = builder_frame(&b, &k);
	T_EQ_INT(builder_frame(&b, &k), f1); /* interned through the columns made */
	T_EQ_INT(builder_func_at(&b, builder_cstr(&b, "g"), PV_NONE, src, 12, 3), g);
	T_EQ_INT(builder_func_frame(&b, f), f0);
	T_TRUE(b.p->funcs.source && b.p->funcs.line && b.p->funcs.column && !b.p->funcs.module);
	T_TRUE(b.p->frames.line && b.p->frames.kind && !b.p->frames.category);
	/* the rows before a column was made have the default */
	T_EQ_U64(pv_func_source(b.p, f), PV_NONE);
	T_EQ_U64(pv_func_line(b.p, f), 0);
	T_EQ_U64(pv_func_source(b.p, g), src);
	T_EQ_U64(pv_func_line(b.p, g), 12);
	T_EQ_U64(pv_func_column(b.p, g), 3);
	T_EQ_U64(pv_frame_line(b.p, f0), 0);
	T_EQ_U64(pv_frame_kind(b.p, f0), PV_FRAME_CODE);
	T_EQ_U64(pv_frame_line(b.p, f1), 14);
	T_EQ_U64(pv_frame_kind(b.p, f1), PV_FRAME_LOOP);
	T_EQ_U64(pv_frame_category(b.p, f1), PV_NONE);
	builder_release(&b);
}

/* Bare indices kept as a run while names, functions, frames and roots come in order. */
T_TEST(builder_bare_runs)
{
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
	pv_str_ix name[6];
	pv_func_ix fn[6];
	pv_frame_ix fr[6];
	pv_stack_ix st[6];
	const char *names[6] = {"a", "b", "c", "d", "e", "f"};
	for (int i = 0; i < 6; i++)
		name[i] = builder_cstr(&b, names[i]);
	for (int i = 0; i < 4; i++) { /* a, b, c, d: one run each */
		fn[i] = builder_func(&b, name[i], PV_NONE, PV_NONE, 0);
		fr[i] = builder_func_frame(&b, fn[i]);
		st[i] = builder_stack(&b, PV_NONE, fr[i]);
	}
	T_TRUE(!b.bare_func.row1 && !b.bare_frame.row1 && !b.root_stack.row1);
	/* f before e, e's frame before f's, f's root before e's: out of the runs, columns made */
	fn[5] = builder_func(&b, name[5], PV_NONE, PV_NONE, 0);
	fn[4] = builder_func(&b, name[4], PV_NONE, PV_NONE, 0);
	fr[4] = builder_func_frame(&b, fn[4]);
	fr[5] = builder_func_frame(&b, fn[5]);
	st[5] = builder_stack(&b, PV_NONE, fr[5]);
	st[4] = builder_stack(&b, PV_NONE, fr[4]);
	T_TRUE(b.bare_func.row1 && b.bare_frame.row1 && b.root_stack.row1);
	for (int i = 0; i < 6; i++) {
		T_EQ_INT(builder_func(&b, name[i], PV_NONE, PV_NONE, 0), fn[i]);
		T_EQ_INT(builder_func_frame(&b, fn[i]), fr[i]);
		T_EQ_INT(builder_stack(&b, PV_NONE, fr[i]), st[i]);
		T_EQ_STR(pv_str(b.p, b.p->funcs.name[fn[i]]), names[i]);
	}
	T_EQ_INT(b.p->funcs.len, 6);
	T_EQ_INT(b.p->frames.len, 6);
	T_EQ_INT(b.p->stacks.len, 6);
	T_EQ_INT(fn[5], 4); /* f was made fifth */
	T_EQ_INT(fr[4], 4);
	T_EQ_INT(st[5], 4);
	builder_release(&b);
}

T_TEST(validate_names_the_broken_invariant)
{
	struct pv_profile *p = small_profile();
	if (!p)
		return;
	struct pv_error err;
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	pv_stack_ix saved = p->stacks.prefix[0];
	p->stacks.prefix[0] = 1;
	T_EQ_INT(pv_profile_validate(p, &err), PV_EPARSE);
	T_EQ_STR(err.msg, "stacks[0].prefix: 1 is not smaller than the stack's own index");
	p->stacks.prefix[0] = saved;
	p->frames.func[1] = 999;
	T_EQ_INT(pv_profile_validate(p, &err), PV_EPARSE);
	T_EQ_STR(err.msg, "frames[1].func: 999 out of range");
	p->frames.func[1] = 1;
	p->samples.stack[0] = 77;
	T_EQ_INT(pv_profile_validate(p, &err), PV_EPARSE);
	T_EQ_STR(err.msg, "samples[0].stack: 77 out of range");
	p->samples.stack[0] = 2;
	/* collapsed stacks have no lines: the columns are absent (every function's is 0) */
	T_TRUE(!p->funcs.line && !p->funcs.column && !p->frames.kind && !p->frames.category);
	T_EQ_U64(pv_func_line(p, 0), 0);
	T_EQ_U64(pv_frame_category(p, 0), PV_NONE);
	p->funcs.line = pv_calloc(p->funcs.cap, sizeof(*p->funcs.line));
	p->funcs.column = pv_calloc(p->funcs.cap, sizeof(*p->funcs.column));
	T_TRUE(p->funcs.line && p->funcs.column);
	p->funcs.column[0] = 4;
	T_EQ_INT(pv_profile_validate(p, &err), PV_EPARSE);
	T_EQ_STR(err.msg, "funcs[0].column: 4 without a line");
	p->funcs.line[0] = 12;
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	p->threads.sample_end[0]--;
	T_EQ_INT(pv_profile_validate(p, &err), PV_EPARSE);
	T_EQ_STR(err.msg, "threads: sample ranges cover 2 of 3 samples");
	pv_profile_free(p);
}

/* pv_profile_validate fails on p with msg. */
static void invalid(const struct pv_profile *p, const char *msg)
{
	struct pv_error err;
	T_EQ_INT(pv_profile_validate(p, &err), PV_EPARSE);
	T_EQ_STR(err.msg, msg);
}

/*
 * Past one block of 4096 rows the stacks and the frames are checked without a branch first
 * (validate.c): a violation in the second block is still named exactly, and the first one wins.
 */
T_TEST(validate_names_the_broken_invariant_past_a_block)
{
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
	pv_source_ix src = builder_source(&b, builder_cstr(&b, "loop.c"));
	pv_func_ix f = builder_func(&b, builder_cstr(&b, "f"), PV_NONE, src, 1);
	pv_stack_ix s = PV_NONE;
	for (uint32_t i = 0; i < 10000; i++) { /* 10,000 frames (loops, lines), a chain of stacks */
		struct frame_key k = {.func = f,
				      .line = i + 1,
				      .addr = PV_ADDR_NONE,
				      .category = PV_NONE,
				      .kind = PV_FRAME_LOOP};
		s = builder_stack(&b, s, builder_frame(&b, &k));
	}
	builder_thread(&b, builder_cstr(&b, "t"), 1, 1, 0);
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	builder_sample(&b, 0, s, 0, NULL);
	struct pv_profile *p = NULL;
	T_EQ_INT(builder_finish(&b, &p), 0);
	builder_release(&b);
	if (!p)
		return;
	T_EQ_INT(p->frames.len, 10000);
	T_EQ_INT(p->stacks.len, 10000);
	T_TRUE(p->frames.kind != NULL && p->frames.category == NULL);
	struct pv_error err;
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	p->stacks.prefix[7000] = 7000; /* inside the second block: found by the block's test */
	invalid(p, "stacks[7000].prefix: 7000 is not smaller than the stack's own index");
	p->stacks.prefix[9000] = 9500;
	invalid(p, "stacks[7000].prefix: 7000 is not smaller than the stack's own index");
	p->stacks.prefix[7000] = 6999;
	invalid(p, "stacks[9000].prefix: 9500 is not smaller than the stack's own index");
	p->stacks.prefix[9000] = 8999;
	p->stacks.frame[8191] = PV_NONE; /* a root's PV_NONE is no frame */
	invalid(p, "stacks[8191].frame: 4294967295 out of range");
	p->stacks.frame[8191] = 10000;
	invalid(p, "stacks[8191].frame: 10000 out of range");
	p->stacks.frame[8191] = 8191;
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	/* frames: the first failing frame, whichever column */
	p->frames.func[5000] = PV_NONE;
	invalid(p, "frames[5000].func: 4294967295 out of range");
	p->frames.kind[9999] = 3;
	invalid(p, "frames[5000].func: 4294967295 out of range");
	p->frames.func[5000] = f;
	invalid(p, "frames[9999].kind: 3 is not a frame kind");
	p->frames.kind[9999] = PV_FRAME_LOOP;
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	pv_profile_free(p);
}

T_TEST(collapsed_modules_and_kinds)
{
	struct pv_profile *p = small_profile();
	if (!p)
		return;
	T_EQ_INT(p->modules.len, 3);
	T_EQ_STR(pv_str(p, p->modules.name[2]), "libm.so");
	T_EQ_STR(pv_str(p, p->modules.name[0]), "libc.so.6");
	T_EQ_INT(p->modules.kind[0], PV_MODULE_LIBRARY);
	T_EQ_STR(pv_str(p, p->modules.name[1]), "[kernel.kallsyms]");
	T_EQ_INT(p->modules.kind[1], PV_MODULE_KERNEL);
	/* "y_[k]" is function y in the kernel */
	int found = 0;
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		const char *fn = pv_str(p, p->funcs.name[f]);
		if (strcmp(fn, "y") == 0 && pv_func_module(p, f) == 1)
			found |= 1;
		if (strcmp(fn, "x") == 0 && pv_func_module(p, f) == 0)
			found |= 2;
		if (strcmp(fn, "[libm.so]") == 0 && pv_func_module(p, f) == 2)
			found |= 4;
	}
	T_EQ_INT(found, 7);
	pv_profile_free(p);
}

/* Every allocation of a small import fails in turn: PV_ENOMEM and no leak (ASan checks). */
T_TEST(import_survives_allocation_failures)
{
	const char *text = "main;a;b 3\nmain;a 2\nmain;c;[libm.so] 1\n";
	int oom = 0;
	struct pv_profile *p = t_import_oom("oom.txt", text, strlen(text), NULL, 400, &oom);
	T_TRUE(p != NULL);
	pv_profile_free(p);
	T_TRUE(oom > 20);
}

/*
 * builder_frame_append adds a frame without a lookup and drops the frame map; the next
 * builder_frame that hashes rebuilds it from the table: it finds the appended frames (not
 * duplicates) and the bare ones stay found by index.
 */
T_TEST(builder_frame_append_then_lookup)
{
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
	pv_func_ix f = builder_func(&b, builder_cstr(&b, "f"), PV_NONE, PV_NONE, 0);
	pv_func_ix g = builder_func(&b, builder_cstr(&b, "g"), PV_NONE, PV_NONE, 0);
	struct frame_key k7 = {.func = f, .line = 7, .addr = PV_ADDR_NONE, .category = PV_NONE};
	struct frame_key k8 = k7, kl = k7, ka = k7;
	k8.line = 8;
	kl.kind = PV_FRAME_LOOP;
	ka.addr = 0x40;
	pv_frame_ix f7 = builder_frame(&b, &k7); /* in the map before the appends */
	pv_frame_ix fg = builder_func_frame(&b, g);
	T_EQ_INT(builder_frame_append(&b, &k8), 2);
	T_EQ_INT(builder_frame_append(&b, &kl), 3);
	T_EQ_INT(builder_frame_append(&b, &ka), 4);
	T_EQ_INT(b.p->frames.len, 5);
	/* looked up again: the same rows, from the rebuilt map and the bare index */
	T_EQ_INT(builder_frame(&b, &k8), 2);
	T_EQ_INT(builder_frame(&b, &kl), 3);
	T_EQ_INT(builder_frame(&b, &ka), 4);
	T_EQ_INT(builder_frame(&b, &k7), f7);
	T_EQ_INT(builder_func_frame(&b, g), fg);
	T_EQ_INT(b.p->frames.len, 5);
	struct frame_key k9 = k7;
	k9.line = 9;
	T_EQ_INT(builder_frame(&b, &k9), 5); /* a new key is still new */
	T_EQ_INT(builder_frame(&b, &k9), 5);
	T_EQ_U64(pv_frame_addr(b.p, 4), 0x40);
	T_EQ_U64(pv_frame_addr(b.p, 3), PV_ADDR_NONE);
	builder_release(&b);
}

/*
 * pv_col_resize: a column grown from the heap (1 MiB) into a mapping (3 MiB, then moved to
 * 7 MiB), shrunk within it and grown again keeps its bytes, and every byte past the old size
 * is zero, also those it had before it shrank.
 */
T_TEST(col_resize_keeps_and_zeroes)
{
	const size_t mib = (size_t)1 << 20;
	const size_t sizes[] = {mib, 3 * mib, 7 * mib, 5 * mib / 2, 3 * mib, mib / 2, 4 * mib};
	unsigned char *p = NULL;
	size_t n = 0;
	uint64_t bad = 0;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t m = sizes[k];
		unsigned char *q = pv_col_resize(p, n, m, true);
		T_TRUE(q != NULL);
		if (!q)
			break;
		size_t kept = n < m ? n : m;
		for (size_t i = 0; i < kept; i += 4093)
			bad += q[i] != (unsigned char)(i * 7 + 1);
		for (size_t i = kept; i < m; i++)
			bad += q[i] != 0;
		for (size_t i = 0; i < m; i++) /* every byte written, as a column's rows are */
			q[i] = (unsigned char)(i * 7 + 1);
		p = q;
		n = m;
	}
	T_EQ_INT(bad, 0);
	pv_col_free(p, n);
}
