#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "pv/error.h"

uint64_t hash_bytes(const void *p, size_t n)
{
	return XXH3_64bits(p, n);
}

void ixmap_release(struct ixmap *m)
{
	pv_free(m->slot);
	memset(m, 0, sizeof(*m));
}

static int ixmap_grow(struct ixmap *m)
{
	uint32_t cap = m->slot ? (m->mask + 1) * 2 : 1024;
	if (cap == 0)
		return PV_ENOMEM;
	uint64_t *slot = pv_calloc(cap, sizeof(*slot));
	if (!slot)
		return PV_ENOMEM;
	/* Slots come from the low 32 bits of the hash, which are kept. */
	uint32_t mask = cap - 1;
	for (uint32_t i = 0; m->slot && i <= m->mask; i++) {
		uint64_t e = m->slot[i];
		if (!(uint32_t)e)
			continue;
		uint32_t j = (uint32_t)(e >> 32) & mask;
		while ((uint32_t)slot[j])
			j = (j + 1) & mask;
		slot[j] = e;
	}
	pv_free(m->slot);
	m->slot = slot;
	m->mask = mask;
	return 0;
}

int ixmap_insert(struct ixmap *m, uint32_t slot, uint64_t h, uint32_t row)
{
	(void)slot;
	if (!m->slot || (uint64_t)(m->count + 1) * 4 > (uint64_t)(m->mask + 1) * 3) {
		if (ixmap_grow(m))
			return PV_ENOMEM;
	}
	/* Probe again from the start position; cheap, and correct after a grow. */
	uint32_t h32 = (uint32_t)h;
	uint32_t i = h32 & m->mask;
	while ((uint32_t)m->slot[i])
		i = (i + 1) & m->mask;
	m->slot[i] = (uint64_t)h32 << 32 | (row + 1);
	m->count++;
	return 0;
}

void u64map_release(struct u64map *m)
{
	pv_free(m->key);
	pv_free(m->val);
	memset(m, 0, sizeof(*m));
}

static int u64map_grow(struct u64map *m)
{
	uint32_t cap = m->key ? (m->mask + 1) * 2 : 1024;
	if (cap == 0)
		return PV_ENOMEM;
	uint64_t *key = pv_malloc((size_t)cap * sizeof(*key));
	uint32_t *val = pv_calloc(cap, sizeof(*val));
	if (!key || !val) {
		pv_free(key);
		pv_free(val);
		return PV_ENOMEM;
	}
	uint32_t mask = cap - 1;
	if (m->key) {
		for (uint32_t i = 0; i <= m->mask; i++) {
			if (!m->val[i])
				continue;
			uint32_t j = (uint32_t)hash_u64(m->key[i]) & mask;
			while (val[j])
				j = (j + 1) & mask;
			key[j] = m->key[i];
			val[j] = m->val[i];
		}
	}
	pv_free(m->key);
	pv_free(m->val);
	m->key = key;
	m->val = val;
	m->mask = mask;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	if (!m->key || (uint64_t)(m->count + 1) * 4 > (uint64_t)(m->mask + 1) * 3) {
		if (u64map_grow(m))
			return PV_ENOMEM;
	}
	uint32_t i = (uint32_t)hash_u64(key) & m->mask;
	while (m->val[i])
		i = (i + 1) & m->mask;
	m->key[i] = key;
	m->val[i] = val + 1;
	m->count++;
	return 0;
}
