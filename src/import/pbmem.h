/*
 * pbmem.h - protobuf-c's memory for the importers that unpack protobuf (pprof, simpleperf): bump
 * allocation in one arena, freed whole; a failed allocation is remembered in failed.
 */
#ifndef PV_IMPORT_PBMEM_H
#define PV_IMPORT_PBMEM_H

#include <protobuf-c/protobuf-c.h>

struct pv_arena;

struct pb_mem {
	struct pv_arena *arena;
	int failed;
};

/* The allocator over m (m->arena set by the caller). */
ProtobufCAllocator pb_mem_allocator(struct pb_mem *m);

#endif
