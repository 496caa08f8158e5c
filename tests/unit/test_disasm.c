/*
 * test_disasm.c - the disassembler's bounds (src/view/disasm.c, include/pv/disasm.h) on
 * binaries built here (tests/harness/tbin.h): objdump's output read across many pipe reads,
 * cut by instructions, bytes and time per function and per answer with a note naming the
 * bound, and stopped from another thread at once.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pv/disasm.h"
#include "pv/query.h"
#include "t.h"
#include "tbin.h"
#include "tp.h"

#if defined(__x86_64__)

/* The built binary's n functions, the profile of their ranges, all of them marked. */
struct nops {
	char dir[64];
	uint64_t addr[16];
	struct pv_profile *p;
	uint8_t *mark;
	struct pv_query q;
	char *path; /* PATH before tb_path_first (slow: the stand-in objdump) */
};

static bool nops_setup(struct nops *x, uint32_t n, uint32_t size, bool labels, bool slow)
{
	memset(x, 0, sizeof(*x));
	pv_query_init(&x->q);
	if (!tb_nop_binary(x->dir, n, size, labels, x->addr) || (slow && !tb_slow_objdump(x->dir)))
		return false;
	size_t len = 0;
	char *text = tb_nop_profile(x->dir, n, size, x->addr, &len);
	x->p = text ? t_load_mem("nops.callgrind", text, len) : NULL;
	free(text);
	x->mark = x->p ? calloc(x->p->funcs.len, 1) : NULL;
	for (uint32_t k = 0; x->mark && k < n; k++) {
		char name[16];
		snprintf(name, sizeof(name), "f%u", k);
		pv_func_ix f = t_find_func(x->p, name);
		T_TRUE(f != PV_NONE);
		if (f != PV_NONE)
			x->mark[f] = 1;
	}
	if (slow)
		x->path = tb_path_first(x->dir);
	return x->mark != NULL;
}

/* d has n notes, those of want that are not NULL */
static void notes_are(const struct pv_disasm *d, const char *const *want, uint32_t n)
{
	T_EQ_INT(d ? d->nr_notes : 0, n);
	for (uint32_t i = 0; d && d->nr_notes == n && i < n; i++)
		if (want[i])
			T_EQ_STR(d->notes[i], want[i]);
}

/* pv_disasm_funcs of the marked functions; *ms its time */
static struct pv_disasm *nops_run(struct nops *x, const struct pv_disasm_opts *o, int64_t *ms)
{
	struct pv_disasm *d = NULL;
	struct pv_error err;
	int64_t t0 = tb_now_ms();
	T_EQ_INT(pv_disasm_funcs(x->p, &x->q, x->mark, o, &d, &err), 0);
	*ms = tb_now_ms() - t0;
	return d;
}

static void nops_teardown(struct nops *x)
{
	if (x->path)
		tb_path_restore(x->path);
	pv_query_release(&x->q);
	free(x->mark);
	pv_profile_free(x->p);
	if (x->dir[0])
		tb_remove(x->dir);
}

/*
 * 16 functions of 1,048,000 nops (a 16 MiB binary, the 6 KB profile of the report): objdump's
 * output runs over many 64 KiB reads; the first two functions stop at 20,000 instructions each
 * (the bound per function), the third at the 10,000 the answer has left (50,000 per answer),
 * the other 13 are not disassembled; each says so in a note.
 */
T_TEST(disasm_bound_instructions)
{
	enum { N = 16, SIZE = 1048000 };
	struct nops x;
	int64_t ms;
	struct pv_disasm *d =
	    nops_setup(&x, N, SIZE, false, false) ? nops_run(&x, NULL, &ms) : NULL;
	T_TRUE(d && ms < PV_DISASM_MS + 1000);
	if (d) {
		T_EQ_INT(d->n, PV_DISASM_INSNS);
		T_TRUE(d->cut);
		static const char *const want[N] = {
		    ("disassembly of f0 cut after 20000 instructions: at most 20000 instructions "
		     "(the bound per function)"),
		    ("disassembly of f1 cut after 20000 instructions: at most 20000 instructions "
		     "(the bound per function)"),
		    ("disassembly of f2 cut after 10000 instructions: at most 50000 instructions "
		     "(the bound per answer)"),
		    "f3 not disassembled: at most 50000 instructions (the bound per answer)",
		    [15] = ("f15 not disassembled: at most 50000 instructions (the bound per "
			    "answer)")};
		notes_are(d, want, N);
		/* every instruction in order from each function's first, its costs in place */
		for (uint32_t i = 0; d->n == PV_DISASM_INSNS && i < d->n; i++) {
			uint32_t k = i < 20000 ? 0 : i < 40000 ? 1 : 2;
			uint64_t at = x.addr[k] + (i - 20000 * k);
			if (d->insn[i].addr != at || strcmp(d->insn[i].text, "nop") != 0) {
				T_EQ_U64(d->insn[i].addr, at);
				T_EQ_STR(d->insn[i].text, "nop");
				break;
			}
		}
		if (d->n)
			T_EQ_INT(d->insn[0].self, 1);
	}
	pv_disasm_free(d);
	d = NULL;
	/* one function alone: whole when under the bounds (objdump's 1,001 lines over many reads
	 * of the pipe, the read loop's length kept); named so that no symbol of the binary has its
	 * name, its range is its lowest to its highest address (not f5's symbol, 1 MiB) */
	enum { SMALL = 1000 };
	uint64_t last = x.addr[5] + SMALL;
	char text[1024];
	int len = snprintf(
	    text, sizeof(text),
	    "events: Ir\npositions: instr\nob=%s/nops\nfn=part_of_f5\n0x%llx 3\n0x%llx 4\n", x.dir,
	    (unsigned long long)x.addr[5], (unsigned long long)last);
	struct pv_profile *one = x.p ? t_load_mem("f5.callgrind", text, (size_t)len) : NULL;
	struct pv_error err;
	T_EQ_INT(one ? pv_disasm_funcs(one, &x.q, NULL, NULL, &d, &err) : -1, 0);
	T_TRUE(d && d->n == SMALL + 1 && d->nr_notes == 0 && !d->cut);
	if (d && d->n == SMALL + 1) {
		T_EQ_U64(d->insn[SMALL].addr, last);
		T_EQ_INT(d->insn[SMALL].self, 4);
	}
	pv_disasm_free(d);
	pv_profile_free(one);
	nops_teardown(&x);
}

/* objdump's output past 4 MiB for one function (a 300-character symbol before each of 15,000
 * nops): cut at the bytes bound per function, with whole lines, and a note. */
T_TEST(disasm_bound_bytes)
{
	enum { SIZE = 15000 };
	struct nops x;
	int64_t ms;
	struct pv_disasm *d = nops_setup(&x, 1, SIZE, true, false) ? nops_run(&x, NULL, &ms) : NULL;
	T_TRUE(d && d->cut && d->nr_notes == 1 && d->n > 10000 && d->n < SIZE);
	if (d && d->nr_notes == 1 && d->n) {
		char want[200];
		snprintf(want, sizeof(want),
			 "disassembly of f0 cut after %u instructions: more than 4096 KiB of "
			 "objdump's output (the bound per function)",
			 d->n);
		T_EQ_STR(d->notes[0], want);
		T_EQ_U64(d->insn[d->n - 1].addr, x.addr[0] + d->n - 1);
		T_EQ_STR(d->insn[d->n - 1].text, "nop");
	}
	pv_disasm_free(d);
	nops_teardown(&x);
}

/*
 * An objdump that never ends: the first function is cut at the 3,000 ms per function, the
 * second at the answer's 5,000 ms, the rest not disassembled; the answer comes in about 5 s
 * with the one instruction each of the first two printed.
 */
T_TEST(disasm_bound_time)
{
	enum { N = 4 };
	struct nops x;
	int64_t ms;
	struct pv_disasm *d = nops_setup(&x, N, 64, false, true) ? nops_run(&x, NULL, &ms) : NULL;
	T_TRUE(d && ms >= PV_DISASM_MS && ms < PV_DISASM_MS + 1000);
	T_TRUE(d && d->cut);
	static const char *const want[N] = {
	    ("disassembly of f0 cut after 1 instruction: more than 3000 ms (the bound per "
	     "function)"),
	    "disassembly of f1 cut after 1 instruction: more than 5000 ms (the bound per answer)",
	    "f2 not disassembled: more than 5000 ms (the bound per answer)",
	    "f3 not disassembled: more than 5000 ms (the bound per answer)"};
	notes_are(d, want, N);
	T_EQ_INT(d ? d->n : 0, 2);
	if (d && d->n == 2) {
		T_EQ_U64(d->insn[0].addr, x.addr[0]);
		T_EQ_U64(d->insn[1].addr, x.addr[1]);
	}
	pv_disasm_free(d);
	nops_teardown(&x);
}

struct stopper {
	atomic_int *stop;
	int ms;
};

static void *stop_later(void *arg)
{
	struct stopper *s = arg;
	usleep((useconds_t)s->ms * 1000);
	atomic_store(s->stop, 1);
	return NULL;
}

/* A stop set while objdump runs (after 500 ms) ends the answer within a poll's slice (100 ms);
 * a stop set before disassembles nothing. */
T_TEST(disasm_stop)
{
	enum { N = 3 };
	struct nops x;
	atomic_int stop = 0;
	struct pv_disasm_opts o = {.stop = &stop};
	struct stopper s = {&stop, 500};
	pthread_t th;
	int64_t ms = 0;
	struct pv_disasm *d = NULL;
	if (nops_setup(&x, N, 64, false, true) && pthread_create(&th, NULL, stop_later, &s) == 0) {
		d = nops_run(&x, &o, &ms);
		pthread_join(th, NULL);
	}
	T_TRUE(ms >= 500 && ms < 1500);
	T_TRUE(d && d->cut && d->n == 1);
	static const char *const want[N] = {"disassembly of f0 cut after 1 instruction: stopped",
					    "f1 not disassembled: stopped",
					    "f2 not disassembled: stopped"};
	notes_are(d, want, N);
	pv_disasm_free(d);
	d = x.p ? nops_run(&x, &o, &ms) : NULL;
	T_TRUE(d && d->cut && d->n == 0 && d->nr_notes == N);
	if (d && d->nr_notes == N)
		T_EQ_STR(d->notes[0], "f0 not disassembled: stopped");
	pv_disasm_free(d);
	nops_teardown(&x);
}

#endif
