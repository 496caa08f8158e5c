/*
 * jit.c - a JIT as the perf.data tests need one (tests/unit/test_perf_symbols.c): the machine
 * code of spin(), which calls nothing and reads no global (it runs at any address), copied into
 * an anonymous executable mapping; /tmp/perf-PID.map names that range "jit_spin" as a JIT
 * writes it for perf; the copy runs hot for SECONDS (default 0.3). Prints its PID.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline, noipa)) long spin(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += (i * i) ^ (s >> 3);
	return s;
}

/* the end of spin's code (built with -fno-reorder-functions: it follows spin) */
__attribute__((noinline, noipa)) void spin_end(void)
{
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.3;
	size_t size = (size_t)((const char *)(void *)spin_end - (const char *)(void *)spin);
	if (size == 0 || size > 4096)
		return 3;
	unsigned char *code =
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 4;
	memcpy(code, (const void *)spin, size);
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC))
		return 5;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 6;
	fprintf(f, "%lx %zx jit_spin\n", (unsigned long)code, size);
	fclose(f);
	long (*fn)(long) = (long (*)(long))(void *)code;
	long s = 0;
	double t0 = now();
	do
		s += fn(20000);
	while (now() - t0 < secs);
	printf("%d %ld\n", (int)getpid(), s & 1);
	return 0;
}
