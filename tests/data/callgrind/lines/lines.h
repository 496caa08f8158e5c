/* lines.h - a header whose inlined code callgrind names with fi=/fe= */
static inline unsigned mix(unsigned h, unsigned v)
{
	h ^= v;
	h *= 16777619u;
	return h;
}
