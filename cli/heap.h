/*
 * heap.h - how the command line's programs (profview, profview-mpi) set up glibc's allocator
 * before any command runs.
 */
#ifndef PV_CLI_HEAP_H
#define PV_CLI_HEAP_H

#include <stdbool.h>

/*
 * Blocks from 128 KiB on mapped on their own; with one_shot (a command that opens its files,
 * prints and exits), freed memory kept for the next allocations and the heap in 2 MiB pages.
 */
void cli_heap(bool one_shot);

#endif
