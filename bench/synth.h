/*
 * synth.h - the seeded synthetic profile of the in-process benchmarks (center.c, serve.c), and
 * their timing helpers.
 */
#ifndef PV_BENCH_SYNTH_H
#define PV_BENCH_SYNTH_H

#include <stdint.h>

#include "pv/profile.h"

/* seconds on the monotonic clock */
double synth_now(void);
/* the CPU time of the calling thread, in seconds: what a loaded machine moves least */
double synth_cpu(void);
/* the median of v[0..n) (v is not changed; 0 when n is 0 or memory is short) */
double synth_median(const double *v, int n);
/* a seeded pseudo-random number (splitmix64): the same sequence every run */
uint64_t synth_rng(void);
/*
 * A profile of nsamples samples over nstacks distinct stacks and nfuncs functions with long C++
 * names, on 4 threads, depths 20-60: a prefix tree that mostly deepens the last path and
 * branches from earlier stacks; samples and functions skewed towards a hot few. NULL when out
 * of memory.
 */
struct pv_profile *synth_profile(uint32_t nsamples, uint32_t nstacks, uint32_t nfuncs);
/*
 * The command line of the benchmarks on this profile, [SAMPLES [STACKS [ROUNDS]]] (defaults
 * 10,000,000, 1,000,000 and 7; ROUNDS 1-101): the profile over 50,000 functions, built; NULL
 * (said on stderr, with the program's name) when out of memory. *built_s: the seconds it took.
 */
struct pv_profile *synth_args(int argc, char **argv, const char *name, int *rounds,
			      double *built_s);
/* a skewed pick in [0, n): small indices are hot */
uint32_t synth_skewed(uint32_t n);

#endif
