/*
 * disasm.h - the instructions of sampled code with their costs (perf annotate, pprof weblist):
 * libpv runs binutils' objdump on the binary a profile's module names, when that file is on
 * this machine, and gives each instruction its address, text, source line and self cost.
 *
 * What is disassembled: each function of the set (at most PV_DISASM_FUNCS), in its module's file
 * (modules.path: an absolute path to a regular ELF file): the whole function as the file's
 * symbol of that name says (perf annotate's range) when the symbol holds the function's
 * addresses, else from the lowest to the highest of them; the addresses are its frames'
 * (frames.addr) and those its samples hit (samples.addr: perf.data, perf script). The model's
 * addresses are the binary's own (callgrind, perf.data) or offsets in the file (pprof, perf
 * script's map-relative addresses): the symbol's name tells which (import/symbols.h's
 * symz_func_range); without one, an address outside every executable segment's addresses but
 * inside its file bytes is read as an offset and moved to that segment's address (the ELF program
 * headers). The function with the most self cost skips names without a symbol ("[unknown]",
 * "[MODULE]") and modules without a file (the kernel). Each instruction's self cost is the summed
 * samples the query's view keeps (its threads, range, filters, center) whose leaf is that
 * function at that address (the sample's own address, else its leaf frame's), in the view's
 * first metric that sums. objdump runs through posix_spawn; nothing of the file is shown but
 * objdump's text of the range.
 *
 * Every answer is bounded by instructions, bytes of objdump's output and time, per function and
 * per answer (PV_DISASM_*): a function cut by one of them keeps the instructions read so far,
 * in order from its first, and the answer carries a note naming the function and the bound
 * ("disassembly of F cut at 20000 instructions (at most 20000 per function)"); a function the
 * answer's budget no longer covers gets a note and no instruction. objdump is killed at once
 * when a bound is reached or when opts->stop is set (a server stopping on SIGINT).
 *
 * A function that cannot be disassembled gives one note and no instruction, never an error of
 * the whole answer: "binary PATH not found: no disassembly", "PATH is not an ELF file", "objdump
 * not found (Debian package binutils): no disassembly", "addresses of FUNCTION are not in PATH's
 * executable segments (a position-independent binary recorded at its run-time address?)", ...
 */
#ifndef PV_DISASM_H
#define PV_DISASM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "pv/error.h"
#include "pv/profile.h"
#include "pv/query.h"

#define PV_DISASM_FUNCS 16
/* the bounds of one answer: instructions, bytes of objdump's output read, milliseconds */
#define PV_DISASM_FUNC_INSNS 20000
#define PV_DISASM_INSNS	     50000
#define PV_DISASM_FUNC_BYTES (4u << 20)
#define PV_DISASM_BYTES	     (8u << 20)
#define PV_DISASM_FUNC_MS    3000
#define PV_DISASM_MS	     5000

struct pv_disasm_opts {
	/* non-zero (set by another thread): objdump killed, the answer returned at once with a
	 * note; NULL: never */
	const atomic_int *stop;
	uint32_t ms; /* the answer's time, 0: PV_DISASM_MS (each function: at most
		      * PV_DISASM_FUNC_MS of it) */
};

struct pv_disasm_insn {
	uint64_t addr;	 /* the model's address (as the source pane's address column shows) */
	pv_func_ix func; /* the function disassembled */
	uint32_t line;	 /* its line in objdump -l's debug information, 0: none */
	bool here;	 /* on the line asked for (pv_disasm_line; same line, same file name) */
	int64_t self;	 /* self cost at this address (0: none sampled) */
	char *text;	 /* objdump's text: "mov    %edi,%edx" */
	char *file;	 /* objdump -l's file of that line, NULL: none */
};

struct pv_disasm {
	uint32_t n;
	struct pv_disasm_insn *insn; /* by function, then address */
	uint32_t nr_notes;
	char **notes;	     /* one line each: what could not be disassembled and why */
	pv_metric_ix metric; /* the metric of self, PV_NONE when the view has none that sums */
	bool cut;	     /* a bound or opts->stop cut the answer (a note says which) */
};

/*
 * The instructions of the functions mark[f] != 0 (funcs.len bytes) that have frames with
 * addresses, the first PV_DISASM_FUNCS of them by id; mark NULL: the function with the most self
 * cost at addresses in the query's view. opts NULL: the default bounds, no stop. *out
 * (pv_disasm_free) is always set on 0. Returns 0, PV_ENOMEM, or the query's error (err).
 */
int pv_disasm_funcs(const struct pv_profile *p, const struct pv_query *q, const uint8_t *mark,
		    const struct pv_disasm_opts *opts, struct pv_disasm **out,
		    struct pv_error *err);
/*
 * The instructions of the functions that have a frame at line `line` of source id with an
 * address (what the source pane's line shows): pv_disasm_funcs of them, each instruction's
 * `here` set when objdump places it on that line of a file of the same name.
 */
int pv_disasm_line(const struct pv_profile *p, const struct pv_query *q, pv_source_ix id,
		   uint32_t line, const struct pv_disasm_opts *opts, struct pv_disasm **out,
		   struct pv_error *err);
void pv_disasm_free(struct pv_disasm *d);

#endif
