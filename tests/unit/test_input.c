/*
 * Input files that are not what they seemed: a file that changes while it is read (truncated under
 * the mapping: SIGBUS without the guard of src/base/file.c), a FIFO with no writer, a device, an
 * empty file. Each is one error line, never a crash or a hang.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "pv/import.h"
#include "pv/profile.h"
#include "t.h"

/* A collapsed-stacks file of about `bytes` bytes in a fresh temporary path (static buffer). */
static const char *write_stacks(size_t bytes)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/pv-input-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	size_t n = 0;
	for (unsigned i = 0; n < bytes; i++)
		n += (size_t)fprintf(f, "main;work_%u;leaf_%u %u\n", i % 997, i % 13, 1 + i % 7);
	fclose(f);
	return path;
}

T_TEST(input_truncated_under_the_mapping)
{
	const char *path = write_stacks(2 << 20); /* mapped: past the 1 MiB read whole */
	T_TRUE(path != NULL);
	struct pv_input in;
	struct pv_error err;
	T_EQ_INT(input_open(&in, path, &err), 0);
	T_TRUE(in.map != NULL);
	size_t len = in.len;
	T_TRUE(truncate(path, 100) == 0);
	/* reads every page, the ones past the new end included: zeros, not SIGBUS */
	uint64_t sum = 0, zeros = 0;
	for (size_t i = 0; i < len; i++) {
		sum += (unsigned char)in.data[i];
		zeros += in.data[i] == 0;
	}
	T_TRUE(sum > 0);
	T_TRUE(zeros > len / 2);
	T_EQ_INT(input_changed(&in, &err), 1);
	T_EQ_INT(err.code, PV_EIO);
	char want[256];
	snprintf(want, sizeof(want), "%s: changed while being read (%zu bytes at open, 100 now)",
		 path, len);
	T_CONTAINS(err.msg, want);
	input_close(&in);
	unlink(path);
}

/* input_ahead maps from p to INPUT_AHEAD bytes on, page-aligned, once; a copy has nothing to map.
 */
T_TEST(input_ahead_maps_once_to_the_end)
{
	const char *path = write_stacks(INPUT_AHEAD + (1 << 20));
	T_TRUE(path != NULL);
	struct pv_input in;
	struct pv_error err;
	T_EQ_INT(input_open(&in, path, &err), 0);
	T_TRUE(in.map != NULL && in.len > INPUT_AHEAD + 100);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	input_ahead(&in, in.data + 100);
	T_EQ_INT(in.ahead, (INPUT_AHEAD + 100 + page - 1) / page * page);
	input_ahead(&in, in.data + 200); /* nothing new to map */
	T_EQ_INT(in.ahead, (INPUT_AHEAD + 100 + page - 1) / page * page);
	input_ahead(&in, in.data + in.len - 10); /* the rest, up to the end */
	T_EQ_INT(in.ahead, (in.len + page - 1) / page * page);
	/* cut under the mapping: the pages past the end are not mapped, and no SIGBUS */
	T_TRUE(truncate(path, 100) == 0);
	in.ahead = 0;
	input_ahead(&in, in.data + 200);
	T_EQ_INT(input_changed(&in, &err), 1);
	input_close(&in);
	unlink(path);
	T_EQ_INT(input_from_memory(&in, "copy", "[1, 2]", 6, &err), 0);
	input_ahead(&in, in.data);
	T_EQ_INT(in.ahead, 0);
	input_close(&in);
}

T_TEST(input_rewritten_same_size)
{
	const char *path = write_stacks(4096);
	struct pv_input in;
	struct pv_error err;
	T_EQ_INT(input_open(&in, path, &err), 0);
	T_EQ_INT(input_changed(&in, &err), 0);
	/* same size, new modification time: still another file than the one parsed */
	struct timespec ts[2] = {{0, UTIME_OMIT}, {12345, 0}};
	T_TRUE(utimensat(AT_FDCWD, path, ts, 0) == 0);
	T_EQ_INT(input_changed(&in, &err), 1);
	T_CONTAINS(err.msg, "changed while being read: open it again once its writer is done");
	input_close(&in);
	unlink(path);
}

/* A file of up to 1 MiB is read, not mapped, into the buffer the input closed before it left. */
T_TEST(input_small_files_share_one_buffer)
{
	char a[64], b[64];
	snprintf(a, sizeof(a), "%s", write_stacks(3000));
	snprintf(b, sizeof(b), "%s", write_stacks(200));
	struct pv_input in;
	struct pv_error err;
	T_EQ_INT(input_open(&in, a, &err), 0);
	T_TRUE(in.map == NULL);
	T_TRUE(in.len >= 3000 && in.len < 3100);
	T_TRUE(memcmp(in.data, "main;work_0;leaf_0 1\n", 21) == 0);
	const char *first = in.data;
	input_close(&in);
	T_EQ_INT(input_open(&in, b, &err), 0);
	T_TRUE(in.data == first);
	T_TRUE(in.len >= 200 && in.len < 300);
	T_TRUE(in.data[in.len] == 0); /* the rest of a's bytes are not part of b */
	T_TRUE(memcmp(in.data + in.len - 21, "main;work_9;leaf_9 3\n", 21) == 0);
	T_EQ_INT(input_changed(&in, &err), 0);
	T_TRUE(truncate(b, 10) == 0);
	T_EQ_INT(input_changed(&in, &err), 1);
	T_CONTAINS(err.msg, "changed while being read");
	input_close(&in);
	unlink(a);
	unlink(b);
}

struct cutter {
	const char *path;
	struct pv_progress *prog;
};

/* Truncates the file as soon as the import starts parsing it. */
static void *cut_when_parsing(void *arg)
{
	struct cutter *c = arg;
	while (atomic_load(&c->prog->phase) != PV_PROGRESS_PARSING &&
	       atomic_load(&c->prog->phase) != PV_PROGRESS_DONE)
		;
	static int failed = 1;
	return truncate(c->path, 10) != 0 ? &failed : NULL;
}

T_TEST(input_import_of_a_file_cut_while_parsing)
{
	const char *path = write_stacks(16 << 20);
	struct pv_progress prog = {0};
	struct cutter c = {path, &prog};
	pthread_t th;
	T_EQ_INT(pthread_create(&th, NULL, cut_when_parsing, &c), 0);
	struct pv_profile *p = NULL;
	struct pv_error err;
	int rc = pv_import_file_progress(path, NULL, &prog, &p, &err);
	void *res;
	pthread_join(th, &res);
	T_TRUE(res == NULL);
	T_EQ_INT(rc, PV_EIO);
	T_TRUE(p == NULL);
	T_CONTAINS(err.msg, "changed while being read");
	pv_profile_free(p);
	unlink(path);
}

T_TEST(input_fifo_without_writer_does_not_hang)
{
	char path[] = "/tmp/pv-fifo-XXXXXX";
	int fd = mkstemp(path);
	T_TRUE(fd >= 0);
	close(fd);
	unlink(path);
	T_TRUE(mkfifo(path, 0600) == 0);
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_file(path, NULL, &p, &err), PV_EPARSE);
	char want[128];
	snprintf(want, sizeof(want), "%s: is empty (a profile was expected)", path);
	T_EQ_STR(err.msg, want);
	unlink(path);
}

T_TEST(input_devices_are_refused)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_file("/dev/zero", NULL, &p, &err), PV_EIO);
	T_EQ_STR(err.msg,
		 "/dev/zero: is a device, not a file (a regular file or a pipe was expected)");
	T_TRUE(p == NULL);
}
