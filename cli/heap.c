#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heap.h"

/*
 * A command that opens its files, prints and exits (not `serve` nor `tui`, which live on and open
 * profile after profile) keeps the memory it frees for its next allocations and takes its heap in
 * 2 MiB pages: the columns and maps an import fills are fresh memory, and with 4 KiB pages the
 * kernel's faults to hand them out were a third of the time of opening a database of 100,000
 * contexts (bench/RESULTS.md, "HPCToolkit databases"). The pages are the kernel's transparent
 * huge pages (where it offers them: madvise mode). Blocks from 128 KiB stay mapped on their own
 * (cli_heap): in the heap, a grown column's old copy would stay held (10 M unique stacks: 706 MB
 * peak with a 32 MiB threshold, 528 MB without, at the same speed on the database above).
 * profview-mpi (`profview merge` under mpirun) is such a command: its ranks read input after
 * input, each freed before the next, and reuse its memory.
 */
static void one_shot_heap(void)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	mallopt(M_TOP_PAD, 64 << 20);
	/* past what the heap holds: it grows by that and 64 MiB, still untouched */
	void *p = malloc(1 << 20);
	uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = (uintptr_t)sbrk(0);
	if (p && hi != (uintptr_t)-1 && hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	free(p);
}

void cli_heap(bool one_shot)
{
#ifdef __GLIBC__
	/*
	 * Blocks from 128 KiB on are mapped, as glibc starts: its threshold would otherwise rise
	 * to 32 MiB after the first such block is freed, and the model's columns and the arena's
	 * chunks that grow past it would be copied in the heap and leave it holding the old ones
	 * (10 M unique stacks: 106 MB more at the peak, doc/deep-stacks.md).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	if (one_shot)
		one_shot_heap();
}
