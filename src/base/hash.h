/*
 * hash.h - hashing (XXH3 from Debian's libxxhash) and an open-addressing map from keys to row
 * indices of a column table. The map stores only (hash, row); the keys live in the table's own
 * columns, and the caller compares them, so interning a row costs no copy of its key.
 */
#ifndef PV_BASE_HASH_H
#define PV_BASE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint64_t hash_bytes(const void *p, size_t n);

static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

struct ixmap {
	/*
	 * Low word row + 1 (0: an empty slot), high word the low 32 bits of the key's hash: a
	 * probe reads one word, so it costs one cache line, not two.
	 */
	uint64_t *slot;
	uint32_t mask; /* capacity - 1, capacity a power of two */
	uint32_t count;
};

void ixmap_release(struct ixmap *m);

/*
 * Slot probing: returns the row stored for a key with hash h for which eq(ctx, row) is true, or
 * UINT32_MAX with *slot set to the empty slot where it would go.
 */
typedef bool (*ixmap_eq_fn)(const void *ctx, uint32_t row);

static inline uint32_t ixmap_find(const struct ixmap *m, uint64_t h, ixmap_eq_fn eq,
				  const void *ctx, uint32_t *slot)
{
	if (!m->slot) {
		*slot = UINT32_MAX;
		return UINT32_MAX;
	}
	uint32_t h32 = (uint32_t)h;
	uint32_t i = h32 & m->mask;
	for (;;) {
		uint64_t e = m->slot[i];
		uint32_t r = (uint32_t)e;
		if (!r) {
			*slot = i;
			return UINT32_MAX;
		}
		if ((uint32_t)(e >> 32) == h32 && eq(ctx, r - 1))
			return r - 1;
		i = (i + 1) & m->mask;
	}
}

/*
 * Inserts row at slot (from a failed ixmap_find) and grows the map when 3/4 full; after a grow
 * slots found before are stale, which is why insertion takes the hash again. Returns 0 or
 * PV_ENOMEM.
 */
int ixmap_insert(struct ixmap *m, uint32_t slot, uint64_t h, uint32_t row);

/* A map from 64-bit keys to 32-bit values, for (prefix, frame) stack pairs. */
struct u64map {
	uint64_t *key;
	uint32_t *val; /* value + 1; 0 = empty */
	uint32_t mask, count;
};

void u64map_release(struct u64map *m);
/* Returns the value for key or UINT32_MAX. */
static inline uint32_t u64map_get(const struct u64map *m, uint64_t key)
{
	if (!m->key)
		return UINT32_MAX;
	uint32_t i = (uint32_t)hash_u64(key) & m->mask;
	for (;;) {
		uint32_t v = m->val[i];
		if (!v)
			return UINT32_MAX;
		if (m->key[i] == key)
			return v - 1;
		i = (i + 1) & m->mask;
	}
}
/* Sets key to val (the key must be absent). Returns 0 or PV_ENOMEM. */
int u64map_put(struct u64map *m, uint64_t key, uint32_t val);

#endif
