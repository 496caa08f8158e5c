/*
 * perf_unwind.c - --call-graph dwarf user stacks unwound with libdwfl (perf_unwind.h).
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "import/perf/perf_unwind.h"

/* perf's x86_64 register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
enum {
	PR_AX = 0,
	PR_BX = 1,
	PR_CX = 2,
	PR_DX = 3,
	PR_SI = 4,
	PR_DI = 5,
	PR_BP = 6,
	PR_SP = 7,
	PR_IP = 8,
	PR_R8 = 16,
	PR_NR = 24,
};

/* DWARF's x86_64 registers 0-16 (rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8-r15, rip) as
 * perf's numbers */
static const int dwarf_of[17] = {PR_AX,	    PR_DX,     PR_CX,	  PR_BX,     PR_SI,	PR_DI,
				 PR_BP,	    PR_SP,     PR_R8,	  PR_R8 + 1, PR_R8 + 2, PR_R8 + 3,
				 PR_R8 + 4, PR_R8 + 5, PR_R8 + 6, PR_R8 + 7, PR_IP};

/* sessions kept open at once (each holds its binaries' files open): the least recently used
 * one is ended for a new one */
#define PU_OPEN_MAX 8

struct pu_proc {
	Dwfl *dwfl;
	uint64_t used; /* the clock of its last use */
	uint32_t gen;
	bool made, attached;
	int32_t pid;
};

struct perf_unwind {
	struct pu_proc *procs;
	uint32_t nprocs;
	uint32_t cur; /* the process being reported */
	uint64_t clock;
	uint32_t open;
	char **reported;
	uint32_t nrep, caprep;
	/* the sample being unwound */
	Dwarf_Word regs[17];
	const unsigned char *stack;
	uint64_t sp, size;
	int32_t tid;
	uint64_t *out;
	uint32_t cap, n;
};

const char *pu_status_text(enum pu_status s)
{
	static const char *const t[PU_NR_STATUS] = {
	    [PU_OK] = "unwound",
	    [PU_ARCH] = "registers of another architecture than x86_64",
	    [PU_REGS] = "the registers the unwinder needs (ip, sp, bp) not recorded",
	    [PU_NO_MODULE] = "the sampled address in no binary found on this machine",
	    [PU_STOPPED] = ("the unwinder stopped at the sampled frame (no CFI for it, or the "
			    "stack copy too short)"),
	};
	return s < PU_NR_STATUS ? t[s] : "?";
}

bool pu_mask_ok(uint64_t mask)
{
	for (int i = 0; i < 17; i++)
		if (!(mask >> dwarf_of[i] & 1))
			return false;
	return true;
}

struct perf_unwind *pu_new(void)
{
	return pv_calloc(1, sizeof(struct perf_unwind));
}

static void forget_reported(struct perf_unwind *u)
{
	for (uint32_t i = 0; i < u->nrep; i++)
		pv_free(u->reported[i]);
	u->nrep = 0;
}

void pu_free(struct perf_unwind *u)
{
	if (!u)
		return;
	for (uint32_t i = 0; i < u->nprocs; i++)
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
	forget_reported(u);
	pv_free(u->reported);
	pv_free(u->procs);
	pv_free(u);
}

static const Dwfl_Callbacks dwfl_cbs = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

bool pu_begin(struct perf_unwind *u, uint32_t proc, uint32_t gen, int32_t pid)
{
	if (proc >= u->nprocs) {
		uint32_t nc = proc + 16;
		struct pu_proc *np = pv_realloc(u->procs, nc * sizeof(*np));
		if (!np)
			return false;
		memset(np + u->nprocs, 0, (nc - u->nprocs) * sizeof(*np));
		u->procs = np;
		u->nprocs = nc;
	}
	struct pu_proc *p = &u->procs[proc];
	if (p->made && p->gen == gen)
		return false;
	if (p->dwfl) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
		u->open--;
	}
	while (u->open >= PU_OPEN_MAX) {
		uint32_t old = UINT32_MAX;
		for (uint32_t i = 0; i < u->nprocs; i++)
			if (u->procs[i].dwfl &&
			    (old == UINT32_MAX || u->procs[i].used < u->procs[old].used))
				old = i;
		if (old == UINT32_MAX)
			break;
		dwfl_end(u->procs[old].dwfl);
		u->procs[old].dwfl = NULL;
		u->procs[old].made = false; /* made again at its next sample */
		u->open--;
	}
	p->dwfl = dwfl_begin(&dwfl_cbs);
	if (p->dwfl)
		u->open++;
	p->used = ++u->clock;
	p->gen = gen;
	p->made = true;
	p->attached = false;
	p->pid = pid;
	u->cur = proc;
	forget_reported(u);
	if (p->dwfl)
		dwfl_report_begin(p->dwfl);
	return p->dwfl != NULL;
}

void pu_module(struct perf_unwind *u, const char *name, const char *file, uint64_t start,
	       uint64_t pgoff)
{
	struct pu_proc *p = &u->procs[u->cur];
	if (!p->dwfl || !file || file[0] != '/')
		return;
	for (uint32_t i = 0; i < u->nrep; i++)
		if (strcmp(u->reported[i], file) == 0)
			return;
	if (u->nrep == u->caprep) {
		uint32_t nc = u->caprep ? 2 * u->caprep : 32;
		char **nr = pv_realloc(u->reported, nc * sizeof(*nr));
		if (!nr)
			return;
		u->reported = nr;
		u->caprep = nc;
	}
	size_t n = strlen(file);
	char *c = pv_malloc(n + 1);
	if (!c)
		return;
	memcpy(c, file, n + 1);
	u->reported[u->nrep++] = c;
	/* a file that is not ELF, or overlaps one reported, is left out: its frames stop there */
	dwfl_report_elf(p->dwfl, name, file, -1, start - pgoff, false);
}

void pu_end(struct perf_unwind *u)
{
	struct pu_proc *p = &u->procs[u->cur];
	if (p->dwfl)
		dwfl_report_end(p->dwfl, NULL, NULL);
	forget_reported(u);
}

/* ---------------------------------------------------------------- the thread callbacks */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **targ)
{
	(void)dwfl;
	struct perf_unwind *u = arg;
	if (*targ)
		return 0;
	*targ = u;
	return u->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **targ)
{
	(void)dwfl;
	struct perf_unwind *u = arg;
	*targ = u;
	return tid == u->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	struct perf_unwind *u = arg;
	if (addr < u->sp || addr - u->sp > u->size || u->size - (addr - u->sp) < 8)
		return false;
	memcpy(result, u->stack + (addr - u->sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *targ)
{
	struct perf_unwind *u = targ;
	return dwfl_thread_state_registers(thread, 0, 17, u->regs);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct perf_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!activation && pc)
		pc--;
	if (u->n && !pc)
		return DWARF_CB_ABORT; /* the end of the chain: a zero return address */
	u->out[u->n++] = pc;
	return u->n < u->cap ? DWARF_CB_OK : DWARF_CB_ABORT;
}

enum pu_status pu_unwind(struct perf_unwind *u, uint32_t proc, int32_t tid, const uint64_t *regs,
			 uint64_t mask, const unsigned char *stack, uint64_t size, uint64_t *out,
			 uint32_t cap, uint32_t *n)
{
	*n = 0;
	if (!pu_mask_ok(mask) || !cap)
		return PU_REGS;
	uint64_t by[PR_NR];
	memset(by, 0, sizeof(by));
	for (int b = 0, k = 0; b < PR_NR; b++)
		if (mask >> b & 1)
			by[b] = regs[k++];
	for (int i = 0; i < 17; i++)
		u->regs[i] = by[dwarf_of[i]];
	out[0] = by[PR_IP];
	*n = 1;
	struct pu_proc *p = proc < u->nprocs ? &u->procs[proc] : NULL;
	if (p)
		p->used = ++u->clock;
	if (!p || !p->dwfl || !dwfl_addrmodule(p->dwfl, by[PR_IP])) {
		*n = 0; /* as perf: no user frame at all */
		return PU_NO_MODULE;
	}
	if (!p->attached) {
		if (!dwfl_attach_state(p->dwfl, NULL, p->pid > 0 ? p->pid : tid, &thread_cbs, u))
			return PU_STOPPED;
		p->attached = true;
	}
	u->stack = stack;
	u->size = size;
	u->sp = by[PR_SP];
	u->tid = tid > 0 ? tid : 1;
	u->out = out;
	u->cap = cap;
	u->n = 0;
	dwfl_getthread_frames(p->dwfl, u->tid, frame_cb, u);
	if (!u->n) {
		*n = 1;
		return PU_STOPPED;
	}
	*n = u->n;
	return u->n > 1 ? PU_OK : PU_STOPPED;
}
