/*
 * perf_unwind.h - the user stacks of `perf record --call-graph dwarf` unwound with elfutils'
 * unwinder (libdwfl: dwfl_attach_state, dwfl_getthread_frames), as perf report and perf script
 * unwind them (doc/perf-data.md).
 *
 * Such a sample holds the user registers at the sample (or at the kernel's entry) and a copy of
 * the top of the user stack; the unwinder reads each frame's CFI (.eh_frame, .debug_frame) from
 * the binaries mapped in the process, and the saved registers and return addresses from that
 * copy. One Dwfl per process, its modules reported from the process's maps, made again when the
 * maps change; at most PU_OPEN_MAX (8) open at once, the least recently used ended first.
 */
#ifndef PV_IMPORT_PERF_UNWIND_H
#define PV_IMPORT_PERF_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a sample's user stack gave no more than its own address (the lossy lines count them). */
enum pu_status {
	PU_OK = 0,
	PU_ARCH,      /* registers of another architecture than x86_64 */
	PU_REGS,      /* the registers needed (sp, ip, bp) not in the sample */
	PU_NO_MODULE, /* the address is in no binary found on this machine */
	PU_STOPPED,   /* the unwinder stopped at the first frame (no CFI, stack copy too short) */
	PU_NR_STATUS,
};

const char *pu_status_text(enum pu_status s);

struct perf_unwind;

struct perf_unwind *pu_new(void);
void pu_free(struct perf_unwind *u);

/* The process proc's modules, made again when gen differs from the last (pu_begin says
 * whether to report them: then pu_module for each mapped binary, and pu_end). */
bool pu_begin(struct perf_unwind *u, uint32_t proc, uint32_t gen, int32_t pid);
/* A binary file mapped at start with file offset pgoff (reported once per file). */
void pu_module(struct perf_unwind *u, const char *name, const char *file, uint64_t start,
	       uint64_t pgoff);
void pu_end(struct perf_unwind *u);

/*
 * The user frames of thread tid of process proc (after pu_begin for it): regs are the sample's
 * registers in perf's order (the set bits of mask, PERF_REG_X86_*), stack/size the copy of the
 * stack from the stack pointer. Fills out[0..*n) leaf first (the sampled address, then each
 * caller's return address less one, as perf does) up to cap frames; returns PU_OK, or why it
 * gave no more than out[0] (*n is then 1, or 0 when the registers are not there or the IP is
 * in no binary: then perf shows no user frame).
 */
enum pu_status pu_unwind(struct perf_unwind *u, uint32_t proc, int32_t tid, const uint64_t *regs,
			 uint64_t mask, const unsigned char *stack, uint64_t size, uint64_t *out,
			 uint32_t cap, uint32_t *n);

/* perf's register mask of x86_64 (PERF_REG_X86_*) for the registers the unwinder needs. */
bool pu_mask_ok(uint64_t mask);

#endif
