/*
 * vec.h - a growable array of fixed-size elements for importers' scratch tables.
 * Growth goes through grow_cap/col_realloc (alloc.h): capped, overflow-checked, hookable.
 */
#ifndef PV_BASE_VEC_H
#define PV_BASE_VEC_H

#include <string.h>

#include "base/alloc.h"
#include "pv/error.h"

struct vec {
	void *p;
	uint32_t len, cap;
};

#define VEC(v, type) ((type *)(v).p)

/* A new element at the end (uninitialised), or NULL when out of memory or past the cap. */
static inline void *vec_push(struct vec *v, size_t elt)
{
	if (v->len == v->cap) {
		uint32_t nc = grow_cap(v->cap, (uint64_t)v->len + 1);
		if (!nc || col_realloc(&v->p, elt, nc))
			return NULL;
		v->cap = nc;
	}
	return (char *)v->p + (size_t)v->len++ * elt;
}

/* Sets the length to n, growing as needed (new elements uninitialised); 0 or PV_ENOMEM. */
static inline int vec_resize(struct vec *v, size_t elt, uint32_t n)
{
	if (n > v->cap) {
		uint32_t nc = grow_cap(v->cap, n);
		if (!nc || col_realloc(&v->p, elt, nc))
			return PV_ENOMEM;
		v->cap = nc;
	}
	v->len = n;
	return 0;
}

static inline void vec_free(struct vec *v)
{
	pv_free(v->p);
	memset(v, 0, sizeof(*v));
}

#endif
