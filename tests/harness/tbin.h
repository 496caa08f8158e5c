/*
 * tbin.h - x86-64 binaries built at test time for the disassembler's tests (src/view/disasm.c):
 * functions of one-byte nops assembled with gcc, a callgrind profile naming their ranges, and a
 * slow stand-in for objdump. Each helper fails the calling test when gcc or nm is missing.
 */
#ifndef PV_TEST_TBIN_H
#define PV_TEST_TBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Makes a folder /tmp/pv-bin-XXXXXX (dir, 64 bytes) holding `nops`, an executable linked at a
 * fixed address: functions f0 .. f<n-1>, each `size` nops (0x90) then ret, their addresses in
 * addr[0 .. n) as nm prints them. With labels, every nop of f0 has its own global symbol of 300
 * characters (objdump prints a header line for each). false after failing the test.
 */
bool tb_nop_binary(char *dir, uint32_t n, uint32_t size, bool labels, uint64_t *addr);
/*
 * A callgrind profile of it (malloc'ed, *len bytes): function fK of object DIR/nops and file
 * DIR/nops.c with Ir 1 at its first address (line 1) and 2 at its last nop (line 2).
 */
char *tb_nop_profile(const char *dir, uint32_t n, uint32_t size, const uint64_t *addr, size_t *len);
/*
 * Writes DIR/bin/objdump, a stand-in that prints one instruction line at its --start-address
 * then sleeps 60 s (exec sleep: killing it kills the sleep). Put DIR/bin first in PATH to use it.
 */
bool tb_slow_objdump(const char *dir);
/* Puts DIR/bin first in PATH; returns the PATH before (malloc'ed), for tb_path_restore. */
char *tb_path_first(const char *dir);
/* Sets PATH back to saved and frees it. */
void tb_path_restore(char *saved);
/* Removes dir and everything in it. */
void tb_remove(const char *dir);
/* Milliseconds of CLOCK_MONOTONIC. */
int64_t tb_now_ms(void);

#endif
