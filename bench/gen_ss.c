/*
 * gen_ss.c - seeded, deterministic large inputs in speedscope's other formats (issue 30), for
 * the import benchmark of each reader against bench/scan (bench/RESULTS.md, "speedscope's other
 * formats").
 *
 *   gen-ss FORMAT SIZE_MB OUT [SEED]
 *
 * FORMAT: stackprof (wall mode), pmcstat (pmcstat -G), ghc (+RTS -pj), papyrus (a stack log),
 * safari (a timeline recording), v8log (node --prof-process --preprocess), v8raw (node --prof).
 * SIZE_MB is in units of 1,000,000 bytes (the output is within a few kB of it). Each file has 2,000
 * functions called along a fixed random call graph of 8 callees each, to stacks 4 to 40 deep, as
 * the readers see in real files; the same arguments give the same bytes on every run.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFUNC 2000
#define NCALL 8
#define MAXD  40

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

static uint32_t callee[NFUNC][NCALL];

/* A random stack of functions, root first: its depth. */
static int stack(uint32_t *s)
{
	int d = 4 + (int)below(MAXD - 3);
	s[0] = below(16); /* a few roots */
	for (int i = 1; i < d; i++) {
		uint32_t k = below(NCALL * NCALL);
		s[i] = callee[s[i - 1]][k < NCALL * 4 ? k % 2 : k % NCALL];
	}
	return d;
}

static void fname(char *buf, size_t n, uint32_t f)
{
	snprintf(buf, n, "Module%u::function_%u", f % 97, f);
}

static void gen_stackprof(FILE *o, long long budget)
{
	long long w =
	    fprintf(o, "{\"version\":1.2,\"mode\":\"wall\",\"interval\":1000,\"frames\":{");
	for (uint32_t f = 0; f < NFUNC; f++) {
		char nm[64];
		fname(nm, sizeof(nm), f);
		w += fprintf(o,
			     "%s\"%u\":{\"name\":\"%s\",\"file\":\"/app/lib/m%u.rb\",\"line\":%u}",
			     f ? "," : "", 140000000 + f, nm, f % 97, 10 + f);
	}
	w += fprintf(o, "},\"raw\":[");
	long long deltas = 0;
	uint32_t s[MAXD];
	bool first = true;
	while (w < budget * 7 / 8) {
		int d = stack(s);
		int c = 1 + (int)below(3);
		w += fprintf(o, "%s%d", first ? "" : ",", d);
		first = false;
		for (int i = 0; i < d; i++)
			w += fprintf(o, ",%u", 140000000 + s[i]);
		w += fprintf(o, ",%d", c);
		deltas += c;
	}
	fprintf(o, "],\"raw_timestamp_deltas\":[");
	for (long long i = 0; i < deltas; i++)
		fprintf(o, "%s%u", i ? "," : "", 900 + below(200));
	fprintf(o, "]}\n");
}

static void gen_pmcstat(FILE *o, long long budget)
{
	long long w = fprintf(o, "@ CPU_CLK_UNHALTED_CORE [%lld samples]\n\n", budget / 100);
	uint32_t s[MAXD];
	char nm[64];
	while (w < budget) {
		int d = stack(s);
		unsigned c = 1 + below(5000);
		fname(nm, sizeof(nm), s[d - 1]);
		w += fprintf(o, "%.2f%%  [%u]     %s @ /boot/kernel/kernel\n", c / 100.0, c, nm);
		for (int i = d - 2; i >= 0; i--) {
			fname(nm, sizeof(nm), s[i]);
			w += fprintf(o, "%*s100.0%%  [%u]      %s\n", d - 1 - i, "", c, nm);
		}
		w += fprintf(o, "\n");
	}
}

static long long ghc_node(FILE *o, int depth, long long budget, long long *w)
{
	uint32_t id = 1 + below(NFUNC);
	*w += fprintf(o,
		      "{\"id\": %u, \"entries\": %u, \"alloc\": %u, \"ticks\": %u, \"children\": [",
		      id, below(1000), below(100000), below(50));
	int kids = depth < 12 ? (int)below(5) : 0;
	for (int k = 0; k < kids && *w < budget; k++) {
		if (k)
			*w += fprintf(o, ",");
		ghc_node(o, depth + 1, budget, w);
	}
	*w += fprintf(o, "]}");
	return *w;
}

static void gen_ghc(FILE *o, long long budget)
{
	long long w =
	    fprintf(o, "{\"program\": \"bench\", \"arguments\": [\"bench\"], "
		       "\"rts_arguments\": [\"-pj\"], \"end_time\": \"Thu Oct 25 10:51 2018\", "
		       "\"initial_capabilities\": 0, \"total_time\": 1.0, \"total_ticks\": 1, "
		       "\"tick_interval\": 1000, \"total_alloc\": 1, \"cost_centres\": [\n");
	for (uint32_t f = 1; f <= NFUNC; f++)
		w += fprintf(o,
			     "%s{\"id\": %u, \"label\": \"f%u\", \"module\": \"M%u\", \"src_loc\": "
			     "\"src/M%u.hs:%u:1-20\", \"is_caf\": false}",
			     f > 1 ? ",\n" : "", f, f, f % 97, f % 97, f);
	w += fprintf(o, "],\n\"profile\": {\"id\": 1, \"entries\": 0, \"alloc\": 0, \"ticks\": 0, "
			"\"children\": [");
	for (int k = 0; w < budget; k++) {
		if (k)
			w += fprintf(o, ",\n");
		ghc_node(o, 1, budget, &w);
	}
	fprintf(o, "]}}\n");
}

static void gen_papyrus(FILE *o, long long budget)
{
	long long w = fprintf(o, "Stack_3185 log opened (PC)\n");
	uint64_t t = 50000;
	uint32_t s[MAXD];
	while (w < budget) {
		int d = stack(s);
		for (int i = 0; i < d; i++, t += below(3))
			w += fprintf(o, "%" PRIu64 ":PUSH:3185:%d:None:script%u..function%u\n", t,
				     i, s[i] % 97, s[i]);
		for (int i = d - 1; i >= 0; i--, t += below(3))
			w += fprintf(o, "%" PRIu64 ":POP:3185:%d:None:script%u..function%u\n", t, i,
				     s[i] % 97, s[i]);
	}
	fprintf(o, "Log closed\n");
}

static void gen_safari(FILE *o, long long budget)
{
	long long w = fprintf(o, "{\"version\":1,\"recording\":{\"displayName\":\"bench\","
				 "\"startTime\":1.5,\"endTime\":1000,\"records\":[],"
				 "\"sampleStackTraces\":[");
	uint32_t s[MAXD];
	long long n = 0;
	double ts = 1.5;
	while (w < budget * 97 / 100) {
		int d = stack(s);
		ts += 0.001 + below(1000) / 1e6;
		w += fprintf(o, "%s{\"timestamp\":%.9f,\"stackFrames\":[", n ? "," : "", ts);
		for (int i = d - 1; i >= 0; i--)
			w += fprintf(o,
				     "{\"sourceID\":\"%u\",\"name\":\"f%u\",\"line\":%u,"
				     "\"column\":%u,\"url\":\"https://app.example/m%u.js\","
				     "\"expressionLocation\":{\"line\":%u,\"column\":9}}%s",
				     s[i] % 97, s[i], 10 + s[i], 3, s[i] % 97, 12 + s[i],
				     i ? "," : "");
		w += fprintf(o, "]}");
		n++;
	}
	fprintf(o, "],\"sampleDurations\":[");
	for (long long i = 0; i < n; i++)
		fprintf(o, "%s0.001", i ? "," : "");
	fprintf(o, "]}}\n");
}

static void gen_v8log(FILE *o, long long budget)
{
	long long w = fprintf(o, "{\"code\":[");
	for (uint32_t f = 0; f < NFUNC; f++) {
		if (f % 4 == 0)
			w += fprintf(o,
				     "%s{\"name\":\"T v8::internal::Fn%u(int)\",\"type\":\"CPP\"}",
				     f ? "," : "", f);
		else
			w += fprintf(o,
				     ",{\"name\":\"fn%u /app/m%u.js:%u:%u\",\"type\":\"JS\","
				     "\"kind\":\"Opt\",\"func\":%u,\"tm\":%u}",
				     f, f % 97, 10 + f, 3, f, f);
	}
	w += fprintf(o, "],\"functions\":[],\"ticks\":[");
	uint32_t s[MAXD];
	long long tm = 0;
	for (long long n = 0; w < budget; n++) {
		int d = stack(s);
		tm += 900 + below(200);
		w += fprintf(o, "%s{\"tm\":%lld,\"vm\":0,\"s\":[", n ? "," : "", tm);
		for (int i = d - 1; i >= 0; i--)
			w += fprintf(o, "%u,%u%s", s[i], below(400), i ? "," : "");
		w += fprintf(o, "]}");
	}
	fprintf(o, "]}\n");
}

/* A raw `node --prof` log: code of every function at its own address, ticks in it. */
static void gen_v8raw(FILE *o, long long budget)
{
	long long w =
	    fprintf(o, "v8-version,6,0,287,53,0\n"
		       "shared-library,\"/usr/local/bin/node\",0x100003200,0x1008b3cba,0\n");
	for (uint32_t f = 0; f < NFUNC; f++)
		w += fprintf(o,
			     "code-creation,LazyCompile,10,%u,0x%" PRIx64 ",%u,\"fn%u "
			     "/app/m%u.js:%u:%u\",0x%" PRIx64 ",~\n",
			     1000 + f, (uint64_t)0x3a8437e00000 + f * 0x1000, 0x800, f, f % 97,
			     10 + f, 3, (uint64_t)0x2b0000000000 + f * 0x40);
	uint32_t s[MAXD];
	long long tm = 5000;
	while (w < budget) {
		int d = stack(s);
		tm += 900 + below(200);
		uint64_t pc = 0x3a8437e00000 + (uint64_t)s[d - 1] * 0x1000 + below(0x800);
		w += fprintf(o, "tick,0x%" PRIx64 ",%lld,0,0x0,0", pc, tm);
		for (int i = d - 2; i >= 0; i--)
			w += fprintf(o, ",0x%" PRIx64,
				     (uint64_t)0x3a8437e00000 + (uint64_t)s[i] * 0x1000 +
					 below(0x800));
		w += fprintf(o, "\n");
	}
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr,
			"usage: gen-ss stackprof|pmcstat|ghc|papyrus|safari|v8log|v8raw SIZE_MB "
			"OUT [SEED]\n");
		return 2;
	}
	long long budget = atoll(argv[2]) * 1000000LL;
	rng_state = argc > 4 ? strtoull(argv[4], NULL, 10) : 30;
	for (uint32_t f = 0; f < NFUNC; f++)
		for (int k = 0; k < NCALL; k++)
			callee[f][k] = below(NFUNC);
	FILE *o = strcmp(argv[3], "-") == 0 ? stdout : fopen(argv[3], "w");
	if (!o) {
		perror(argv[3]);
		return 1;
	}
	const char *f = argv[1];
	if (strcmp(f, "stackprof") == 0)
		gen_stackprof(o, budget);
	else if (strcmp(f, "pmcstat") == 0)
		gen_pmcstat(o, budget);
	else if (strcmp(f, "ghc") == 0)
		gen_ghc(o, budget);
	else if (strcmp(f, "papyrus") == 0)
		gen_papyrus(o, budget);
	else if (strcmp(f, "safari") == 0)
		gen_safari(o, budget);
	else if (strcmp(f, "v8log") == 0)
		gen_v8log(o, budget);
	else if (strcmp(f, "v8raw") == 0)
		gen_v8raw(o, budget);
	else {
		fprintf(stderr, "gen-ss: unknown format %s\n", f);
		return 2;
	}
	return fclose(o) ? 1 : 0;
}
