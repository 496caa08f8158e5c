#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"

struct chunk {
	struct chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

struct pv_arena {
	struct chunk *head;
	size_t total;
};

enum { CHUNK_MIN = 64 * 1024 };

struct pv_arena *arena_new(void)
{
	return pv_calloc(1, sizeof(struct pv_arena));
}

void arena_free(struct pv_arena *a)
{
	if (!a)
		return;
	struct chunk *c = a->head;
	while (c) {
		struct chunk *n = c->next;
		pv_free(c);
		c = n;
	}
	pv_free(a);
}

/* n bytes at a multiple of align (a power of two, at most 16) in the newest chunk, else a new one
 */
static void *take(struct pv_arena *a, size_t n, size_t align)
{
	struct chunk *c = a->head;
	size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
	if (!c || at > c->cap || c->cap - at < n) {
		size_t cap = CHUNK_MIN;
		if (a->total / 4 > cap)
			cap = a->total / 4; /* grow chunks with the arena: few mallocs */
		if (cap > 16u << 20)
			cap = 16u << 20;
		if (n > cap)
			cap = n;
		struct chunk *nc = pv_malloc(sizeof(*nc) + cap);
		if (!nc)
			return NULL;
		nc->used = 0;
		nc->cap = cap;
		nc->next = c;
		a->head = nc;
		c = nc;
		at = 0;
	}
	void *p = c->data + at;
	c->used = at + n;
	a->total += n;
	return p;
}

void *arena_alloc(struct pv_arena *a, size_t n)
{
	return take(a, n, 8);
}

char *arena_strndup(struct pv_arena *a, const char *s, size_t n)
{
	/* bytes need no alignment: a string of 8 characters takes 9 bytes, not 16 */
	char *d = take(a, n + 1, 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

size_t arena_used(const struct pv_arena *a)
{
	return a->total;
}
