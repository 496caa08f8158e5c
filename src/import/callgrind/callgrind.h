/*
 * callgrind.h - the callgrind importer's private state, shared by callgrind.c (the header lines,
 * the position and cost lines, the names and the part's tables as the body is read) and
 * callgrind_synth.c (each part's calling contexts and call graph into the model).
 */
#ifndef PV_IMPORT_CALLGRIND_H
#define PV_IMPORT_CALLGRIND_H

#include <stdint.h>

#include "base/hash.h"
#include "import/importer.h"

#define MAX_EVENTS 64
#define MAX_POS	   3
#define NONE32	   UINT32_MAX
/* A part's cost over this many is the smallest share of a call a context gets of its own. */
#define CTX_BUDGET 65536
/*
 * Contexts a part may have per function and call (and line) before they take the calls in turn
 * (the north-west corner rule) instead of in proportion; past them a node keeps this many.
 */
#define FOLD_BUDGET 8
#define FOLD_KEEP   1024

__extension__ typedef __int128 i128;

enum ns { NS_OB, NS_FL, NS_FN, NR_NS };

struct cg_fn {
	pv_str_ix file, name;
	pv_module_ix module;
	uint8_t defined; /* seen as fn= (its module is from ob=) */
	uint8_t callee;	 /* some calls= names it (callgrind_annotate's rule for inclusive) */
	pv_func_ix func;
	pv_frame_ix frame;
	uint32_t touched;   /* the last part that gave it a self cost or an edge, + 1 */
	uint32_t out_head;  /* its edges in the current part, in the order they were made: the
			     * first (NONE32: none), through edge_next ... */
	uint32_t out_tail;  /* ... the last ... */
	uint32_t out_deg;   /* ... and how many (more than EDGE_LIST: in edge_map too) */
	uint32_t line_head; /* its per-line rows in the current part (line_next), NONE32: none */
	uint32_t line_deg;  /* ... and how many (more than EDGE_LIST: in line_map too) */
};

/* Objects whose module fn_line keeps at hand. */
#define OB_MODULES 16

/* A function's edges are found by walking its list while it has at most this many. */
#define EDGE_LIST 8

struct cg_edge {
	uint32_t from, to;
	uint8_t is_inline; /* host function to its inlined-code function (fi=/fe=) */
};

struct cg {
	struct pv_input *in;
	struct pv_builder *b;
	struct pv_error *err;
	const char *line; /* the current line, for error positions */
	uint64_t lineno;

	uint32_t nev;
	pv_str_ix ev_name[MAX_EVENTS];
	uint32_t npos; /* position columns */
	int pos_line;  /* which column is the line, -1 when none */
	int pos_instr; /* which column is the instruction address (instr, addr), -1 when none */
	int have_events;

	/* name compression: id -> string + 1 (0: undefined) in dense[] for small ids, else names[];
	 * a function name's slot also keeps the last function found under it (fn_of_slot) */
	struct name_slot {
		uint32_t str1;	/* the string + 1, 0: undefined */
		uint32_t file1; /* the last function found with this name: its file + 1 ... */
		uint32_t fn;	/* ... and its index */
	} * dense[NR_NS];
	uint32_t name_slot; /* the dense slot spec_name last read or set, NONE32: none */
	uint32_t cfn_slot;  /* name_slot of cfn= */
	uint32_t dense_cap[NR_NS], dense_defs[NR_NS];
	struct u64map names[NR_NS];

	/* functions: (file, name) -> index */
	struct u64map fn_map;
	struct fn_cache {
		uint32_t file1,
		    fn;		/* the last function of this name found: its file + 1, its index */
		uint32_t multi; /* the name has more than one function */
	} * fn_cache;		/* by name */
	uint32_t fn_cache_cap;
	uint32_t *src_cache; /* file string -> its source + 1 (0: not looked up yet) */
	uint32_t src_cache_cap;
	struct cg_fn *fns;
	uint32_t nfns, cap_fns;
	int64_t *exact_self, *callee_in, *out_calls; /* [fn * nev + e], over the whole file */
	/* the current part */
	int64_t *pself; /* [fn * nev + e] */
	uint32_t *touched_list;
	uint32_t nr_touched, cap_touched;
	struct u64map edge_map; /* (from, to, inline) -> edge, for callers of many edges */
	struct cg_edge *edges;
	uint32_t *edge_next; /* the caller's edge made after this one (NONE32: none) */
	int64_t *ecost;	     /* [edge * nev + e] */
	uint64_t *ecalls;    /* [edge]: the calls= counts */
	uint32_t nedges, cap_edges;
	/* per-line self costs of the part: a row per (function, line), or with instruction
	 * addresses a row per (function, address) for the lines other than 0 */
	struct u64map line_map;			 /* (fn, line) -> row */
	struct u64map addr_map;			 /* (fn << 40 | address) -> row */
	uint32_t *line_fn, *line_no, *line_next; /* line_next: the function's row made before */
	uint64_t *line_addr; /* [row]: its address, PV_ADDR_NONE; NULL without instr positions */
	int64_t *line_cost;
	uint32_t nlines, cap_lines;
	uint64_t last_line_key;	 /* the last row found, for cost lines at the same place ... */
	uint64_t last_line_addr; /* ... and its address */
	uint32_t last_line_row;	 /* NONE32: none */
	int addrs_off;		 /* the current part's rows are per line (too many addresses) */
	uint64_t addrs_merged;	 /* parts whose address rows were merged into line rows */
	uint64_t addrs_unkept;	 /* cost lines whose address the row key cannot hold */
	uint64_t lines_unsplit;	 /* functions whose lines' costs could not be split over contexts */
	uint64_t lines_dropped;	 /* parts whose per-line rows went past LINE_ROWS_MAX */
	int lines_off;		 /* the current part keeps no more per-line rows */

	/* the state of the body */
	pv_str_ix cur_ob, cur_file, cur_fn_name, cfile, cob, cfn;
	/* the modules of the objects (ob=) met lately, by the object's string (fn_line) */
	struct ob_module {
		pv_str_ix ob; /* 0: none */
		pv_module_ix module;
	} ob_modules[OB_MODULES];
	int have_cfile, have_cfn;
	uint32_t cur;	 /* current function (file:name), NONE32 before the first fn= */
	uint32_t host;	 /* the function fn= named (before fi=/fe= switched the file) */
	uint32_t callee; /* from cfn=, NONE32 when none */
	uint64_t call_count;
	int pending_call; /* 1: the next cost line is a call's; 2: a jump's position line */
	int64_t prev_pos[MAX_POS];
	int part_has_data;

	/* parts / threads */
	uint32_t part_no;
	int64_t pid, tid;
	pv_str_ix part_name, cmd;
	uint32_t nr_parts_done;
	pv_thread_ix thread;
	/* the first part's inclusive costs from its graph ([i * nev + k], i in touched order, of
	 * function part_fn[i]), kept so that a file of one part need not build its graph again */
	int64_t *part_incl;
	uint32_t *part_fn, part_nf;

	/* checks and report */
	int64_t total[MAX_EVENTS]; /* sum of self costs */
	int64_t summary[MAX_EVENTS], totals[MAX_EVENTS];
	int have_summary, have_totals;
	uint64_t summary_line, totals_line;
	uint64_t last_cost_line; /* the line of the last cost line, 0: none */
	int by_callgrind; /* creator: callgrind (valgrind's: it ends each dump with totals:) */
	int creator_seen;
	uint64_t unknown_lines, first_unknown, jumps, odd_costs, negative, desc_lines;
	uint64_t derived_events, calls_no_fn, costs_no_fn, undefined_names;
	uint64_t contexts;   /* estimated calling contexts made (callgrind_synth.c) */
	uint64_t ctx_scaled; /* functions and cycles whose calls in cost other than they spend */
	uint64_t ctx_rooted; /* functions called, but whose calls brought no cost: at the root */
	uint64_t ctx_folded; /* contexts folded into "(other)" past a part's budget */
	uint64_t ctx_coarse; /* parts past their budget of contexts */
	uint64_t call_line;  /* the line of the pending calls= */
	int failed;	     /* the error code cg_fail set */
	int no_contexts;     /* pv_builder's no_contexts: no samples, no per-line rows */
	int edges_unkept;    /* the part's call edges not in the model (cg_keep_graph) */
	int funcs_shared;    /* two functions are one model function ("???": cg_fn_frame) */
	/* the string "???" once a spec line named it (cg_fn_frame), else NONE32 */
	pv_str_ix str_unknown;
};

/* ---- callgrind_synth.c ---- */

/*
 * Function f's frame at line and address (line 0: its function frame; addr PV_ADDR_NONE: none),
 * the model function made on first use.
 */
pv_frame_ix cg_fn_frame(struct cg *c, uint32_t f, uint32_t line, uint64_t addr);
/* The address of per-line row r, PV_ADDR_NONE when it has none. */
static inline uint64_t cg_row_addr(const struct cg *c, uint32_t r)
{
	return c->line_addr ? c->line_addr[r] : PV_ADDR_NONE;
}
/* The current part's samples: calling contexts from its call graph, self costs on their lines. */
int cg_synthesize(struct cg *c);
/*
 * The current part when the caller reads no calling context (pv_builder's no_contexts): its
 * thread, and the first part's inclusive costs, as cg_synthesize leaves them.
 */
int cg_no_contexts(struct cg *c);
/* The current part's call graph into the model (pv_callgraph). */
int cg_keep_graph(struct cg *c);

#endif
