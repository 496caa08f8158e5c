/*
 * open.c - one open of a profile, timed and measured in process (bench/run.sh, "Snapshot"):
 * pv_import_file alone, nothing printed and no view computed, so a first open (parse) and a
 * reopen from a snapshot (map and check) compare as what they are.
 *
 *   open FILE      prints: seconds=WALL cpu=CPU checked=WALL2 anon_kb=PEAK_ANON hwm_kb=PEAK_RSS
 *
 * WALL and CPU (the calling thread's) are pv_import_file's; WALL2 the wall time until
 * pv_profile_check returns as well (a snapshot's big sections are checksummed on a second thread
 * that the open leaves running, doc/snapshot.md; a front end computes its view meanwhile, and asks
 * before it prints). PEAK_ANON is the largest RssAnon (/proc/self/status: anonymous memory
 * resident, not the file pages mapped) seen by a thread that reads it every 0.5 ms during the open
 * (from /proc/self/statm, the cheaper file) and once after it (/proc/self/status); PEAK_RSS is
 * VmHWM, all resident memory, file pages included.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pv/import.h"

static atomic_int done;
static long peak_anon;

static long status_kb(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0 && line[n] == ':')
			v = atol(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

/*
 * RssAnon from /proc/self/statm, kept open: resident minus shared (file and shmem pages) is the
 * anonymous pages, what RssAnon counts, for a fraction of the cost of formatting and parsing
 * /proc/self/status, so the poller takes less of the CPU the open runs on; -1 when unreadable.
 */
static long statm_anon_kb(int fd)
{
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long size, resident, shared;
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (sscanf(buf, "%ld %ld %ld", &size, &resident, &shared) != 3)
		return -1;
	return (resident - shared) * (sysconf(_SC_PAGESIZE) / 1024);
}

static void *watch(void *arg)
{
	(void)arg;
	struct timespec ts = {0, 500000};
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	while (!atomic_load(&done)) {
		long a = fd >= 0 ? statm_anon_kb(fd) : status_kb("RssAnon");
		if (a > peak_anon)
			peak_anon = a;
		nanosleep(&ts, NULL);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static double now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: open FILE\n", stderr);
		return 2;
	}
	pthread_t th;
	if (pthread_create(&th, NULL, watch, NULL))
		return 1;
	struct pv_profile *p;
	struct pv_error err;
	/* CPU: the calling thread's (the checksum helper's is not the open's wait) */
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
	int rc = pv_import_file(argv[1], NULL, &p, &err);
	double w1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_THREAD_CPUTIME_ID);
	if (!rc && (rc = pv_profile_check(p, &err)))
		pv_profile_free(p);
	double w2 = now(CLOCK_MONOTONIC);
	atomic_store(&done, 1);
	pthread_join(th, NULL);
	if (rc) {
		fprintf(stderr, "open: %s\n", err.msg);
		return 2;
	}
	long a = status_kb("RssAnon");
	if (a > peak_anon)
		peak_anon = a;
	/* the watcher's own CPU is a few microseconds per read: small next to either open */
	printf("seconds=%.4f cpu=%.4f checked=%.4f anon_kb=%ld hwm_kb=%ld samples=%u\n", w1 - w0,
	       c1 - c0, w2 - w0, peak_anon, status_kb("VmHWM"), p->samples.len);
	pv_profile_free(p);
	return 0;
}
