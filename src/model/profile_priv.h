/*
 * profile_priv.h - what only libpv reads of a profile (pv/profile.h's p->priv): the arena that
 * owns the strings' bytes. Every profile is allocated by profile_alloc(), its private part with
 * it in one block; pv_profile_free() frees both.
 */
#ifndef PV_MODEL_PROFILE_PRIV_H
#define PV_MODEL_PROFILE_PRIV_H

#include "pv/profile.h"

struct pv_arena;

struct pv_profile_priv {
	/* the strings' bytes (builder_str); NULL for a snapshot's profile */
	struct pv_arena *arena;
};

/* A zeroed profile with its (zeroed) private part; NULL when out of memory. */
struct pv_profile *profile_alloc(void);

/* The arena of p's string bytes (NULL when it has none). */
static inline struct pv_arena *profile_arena(const struct pv_profile *p)
{
	return p->priv->arena;
}

#endif
