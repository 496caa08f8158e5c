/*
 * pbmem.c - protobuf-c's memory in one arena (pbmem.h).
 */
#include "import/pbmem.h"
#include "base/arena.h"

static void *pb_alloc(void *data, size_t size)
{
	struct pb_mem *m = data;
	void *p = arena_alloc(m->arena, size ? size : 1);
	if (!p)
		m->failed = 1;
	return p;
}

static void pb_free(void *data, void *ptr)
{
	(void)data;
	(void)ptr; /* the arena is freed whole */
}

ProtobufCAllocator pb_mem_allocator(struct pb_mem *m)
{
	return (ProtobufCAllocator){.alloc = pb_alloc, .free = pb_free, .allocator_data = m};
}
