/*
 * arena.h - a chunked bump allocator. Memory handed out stays at its address until the arena is
 * freed whole; there is no per-object free.
 */
#ifndef PV_BASE_ARENA_H
#define PV_BASE_ARENA_H

#include <stddef.h>

struct pv_arena;

struct pv_arena *arena_new(void);
void arena_free(struct pv_arena *a);
/* n bytes aligned to 8; NULL on allocation failure. */
void *arena_alloc(struct pv_arena *a, size_t n);
/* A NUL-terminated copy of s[0..n), unaligned. */
char *arena_strndup(struct pv_arena *a, const char *s, size_t n);
/* Bytes handed out so far (for statistics). */
size_t arena_used(const struct pv_arena *a);

#endif
