/*
 * symbols.h - names for addresses from the binaries on this machine (doc/perf-data.md), the one
 * symbolizer of every importer whose file holds addresses (perf.data, perf script's [unknown]
 * frames).
 *
 * A binary is asked for by its recorded path and build id. Its file is found as perf finds it:
 * perf's build-id cache (~/.debug/.build-id/XX/REST/elf), the folders given (--symbols DIR: the
 * file's name, its path under DIR, DIR/.build-id/XX/REST[.debug]), the path itself; a file
 * whose build id is not the recorded one is never used. Its symbols come from the best file that
 * has a .symtab: a separate debug file (/usr/lib/debug/.build-id/XX/REST.debug,
 * /usr/lib/debug/PATH[.debug], the .gnu_debuglink name beside the file, in its .debug folder or
 * under /usr/lib/debug) or the file itself, else the file's .dynsym. Symbols are perf's
 * (symbol-elf.c): functions, objects and text labels of allocated sections, a symbol without a
 * size ending where the next one starts, of several at one address the one perf keeps (with a
 * size, typed, not weak, global, fewer leading underscores, the longer name); C++ and Rust
 * names are demangled without parameters, as perf script prints them (libiberty's
 * cplus_demangle).
 *
 * The kernel ("[kernel.kallsyms]", kernel modules) is named as perf names it
 * (dso__load_kernel_sym): from --vmlinux FILE only when one is given; else from the first vmlinux
 * of the recorded build id with symbols in perf's places (its build-id cache, ./vmlinux,
 * /boot/vmlinux, then with the recorded kernel release: /boot/vmlinux-R,
 * /usr/lib/debug/boot/vmlinux-R, /lib/modules/R/build/vmlinux,
 * /usr/lib/debug/lib/modules/R/vmlinux, /usr/lib/debug/boot/vmlinux-R.debug); else from
 * /proc/kallsyms when this machine runs the recorded kernel (/sys/kernel/notes' build id; or none
 * was recorded) and it is readable (T, W, D and B symbols, as perf reads it), else from perf's copy
 * of the recorded kernel's kallsyms
 * (~/.debug/[kernel.kallsyms]/ID/kallsyms). A vmlinux of another build id is never used. The
 * table's addresses are moved by the difference between the recorded address of _text (the
 * kernel map's pgoff) and the table's (KASLR). JIT code is named from /tmp/perf-PID.map
 * ("START SIZE name" lines).
 *
 * Addresses: a binary's own virtual addresses (what nm and objdump print); symz_vaddr turns an
 * offset in the file (perf's map-relative addresses) into one through the program headers.
 * Everything a binary loads is kept until symz_free; lookups cost a binary search.
 */
#ifndef PV_IMPORT_SYMBOLS_H
#define PV_IMPORT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symz_opts {
	const char *const *dirs; /* --symbols DIR..., searched first */
	uint32_t nr_dirs;
	bool off; /* --no-symbols: every lookup says SYMZ_OFF */
	/* files from the folders given only, never from the recorded path (formats that record
	 * no build id, whose path on this machine may hold another build: HPCToolkit) */
	bool dirs_only;
	/* --vmlinux FILE: the kernel's symbols from FILE only (perf's -k), never another place */
	const char *vmlinux;
};

/* Why a binary or an address has no name (the lossy lines count them). */
enum symz_status {
	SYMZ_OK = 0,
	SYMZ_OFF,	  /* symbolization turned off */
	SYMZ_NOT_FOUND,	  /* no file for the binary on this machine */
	SYMZ_BUILD_ID,	  /* files found, none with the recorded build id */
	SYMZ_NOT_ELF,	  /* the file is not an ELF file this machine reads */
	SYMZ_STRIPPED,	  /* the file has no symbol table */
	SYMZ_NO_SYMBOL,	  /* the address is in no symbol */
	SYMZ_NO_KALLSYMS, /* /proc/kallsyms unreadable or without addresses */
	SYMZ_NO_KERNEL,	  /* no vmlinux or kallsyms of the recorded kernel's build id */
	SYMZ_NR_STATUS,
};

/* One line per status: "binary not found", "build id differs", ... */
const char *symz_status_text(enum symz_status s);

struct symz;

/* A symbolizer with options o (copied; the folders are borrowed). NULL when out of memory. */
struct symz *symz_new(const struct symz_opts *o);
void symz_free(struct symz *z);

/*
 * The handle of a binary by its recorded path and build id (bid_len 0: unknown; then the file
 * is used unchecked). Paths "[kernel.kallsyms]..." and "[MODULE]" are the kernel, "/tmp/perf-
 * PID.map" a JIT map. Nothing is read until the first lookup. UINT32_MAX when out of memory.
 */
uint32_t symz_binary(struct symz *z, const char *path, const unsigned char *bid, size_t bid_len);

/* Loads binary h (once) and says whether it has symbols: SYMZ_OK or why not. */
enum symz_status symz_load(struct symz *z, uint32_t h);

/* The file binary h was read from (after symz_load; NULL when none). */
const char *symz_file(struct symz *z, uint32_t h);

/* The first debug file of binary h not used because its build id is not the binary's (after
 * symz_load; NULL when none), for the lossy line that says why an address has no name. */
const char *symz_rejected(struct symz *z, uint32_t h);

/* Why an address of binary h has no name, for a lossy line: symz_status_text(st), then the
 * debug file not used (symz_rejected) if any; into out, returned. */
const char *symz_why(struct symz *z, uint32_t h, enum symz_status st, char *out, size_t cap);

/* Whether binary h is the kernel or a kernel module. */
bool symz_is_kernel(const struct symz *z, uint32_t h);

/* The virtual address of offset off of binary h's file; UINT64_MAX when in no loaded segment
 * (or the binary was not read: then off itself). */
uint64_t symz_vaddr(struct symz *z, uint32_t h, uint64_t off);

/* The recorded address of the kernel's _text (the kernel map's pgoff): the kernel's symbol
 * table is moved by its difference from the table's own _text (KASLR, another boot). */
void symz_kernel_text(struct symz *z, uint64_t recorded_text);

/* The recorded kernel release (perf's OSRELEASE feature), for perf's vmlinux places; copied. */
void symz_kernel_release(struct symz *z, const char *release);

struct symz_hit {
	const char *name; /* demangled; borrowed until symz_free */
	const char
	    *module; /* the kernel module's "[name]" for a kernel address in one, else NULL */
	uint64_t start, end; /* the symbol's addresses, [start, end) */
};

/* The symbol at virtual address a of binary h: SYMZ_OK and *hit, or why there is none. */
enum symz_status symz_lookup(struct symz *z, uint32_t h, uint64_t a, struct symz_hit *hit);

/* The function named name in binary h: SYMZ_OK and its bounds (the first symbol of that name,
 * demangled or not). */
enum symz_status symz_find(struct symz *z, uint32_t h, const char *name, struct symz_hit *hit);

/*
 * The functions inlined at virtual address a of binary h, from its DWARF (the debug file's or its
 * own; DW_TAG_inlined_subroutine scopes, their DW_AT_name through the abstract origin):
 * innermost first, up to cap, into names (borrowed until symz_free); the function that holds
 * them (the symbol) is not one of them. 0 when none, or no DWARF.
 */
uint32_t symz_inlines(struct symz *z, uint32_t h, uint64_t a, const char **names, uint32_t cap);

/* A source line: its file (the path DWARF names, borrowed until symz_free) and line; file
 * NULL and line 0 when there is none. */
struct symz_line {
	const char *file;
	uint32_t line;
};

/*
 * symz_inlines with, in lines (NULL: not asked), where each inlined function was called: the
 * line of the function that holds it (the next one out, or the symbol for the outermost), from
 * DW_AT_call_file and DW_AT_call_line, as addr2line -i and perf script --inline print them.
 */
uint32_t symz_inlines_at(struct symz *z, uint32_t h, uint64_t a, const char **names,
			 struct symz_line *lines, uint32_t cap);

/*
 * The source line of virtual address a of binary h from its DWARF line table (the innermost
 * one: a line of the function inlined there, if any), as addr2line and perf script's srcline
 * give it; {NULL, 0} when none (no DWARF, an address in no unit).
 */
struct symz_line symz_srcline(struct symz *z, uint32_t h, uint64_t a);

/*
 * The name at offset off in binary h's file (perf's map-relative addresses, pprof's address -
 * memory_start + file_offset), moved to the binary's own address through its program headers;
 * NULL when it has none (*why says why; may be NULL).
 */
const char *symz_name_at_offset(struct symz *z, uint32_t h, uint64_t off, enum symz_status *why);

/*
 * A build id as bytes from its hexadecimal text (pprof's mappings, breakpad ids): its length,
 * 0 when text is not one (then no check is made).
 */
size_t symz_build_id_hex(const char *text, size_t n, unsigned char *out, size_t cap);

/*
 * A build id's first 16 bytes from a Breakpad id (the Firefox Profiler's breakpadId: a GUID of
 * them, its first three fields byte-swapped, then an age): 16, or 0 when text is not one.
 */
size_t symz_build_id_breakpad(const char *text, size_t n, unsigned char *out, size_t cap);

/*
 * The function name of the ELF file path (a module's path in a profile) that holds a profile's
 * addresses lo..hi of it, read as the binary's own addresses or as offsets in the file (perf's
 * map-relative addresses; the name tells which): 0 with its symbol's [*start, *end) and *delta
 * (the binary's address of a profile address a is a + delta), -1 when no symbol of that name
 * holds them (no such file, stripped, another build).
 */
int symz_func_range(const char *path, const char *name, uint64_t lo, uint64_t hi, uint64_t *start,
		    uint64_t *end, uint64_t *delta);

#endif
