/*
 * scan.c - the floor of every "open" benchmark: a plain byte scan of the file.
 *
 *   scan FILE
 *
 * Maps FILE read-only and counts its newlines with memchr, then prints "LINES BYTES". Nothing
 * is parsed and nothing is allocated, so its time is what touching every byte of the input once
 * costs on this machine (page cache reads and page-table setup included, as for profview, which
 * maps its input the same way).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: scan FILE\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "scan: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		fprintf(stderr, "scan: cannot stat '%s': %s\n", argv[1], strerror(errno));
		close(fd);
		return 1;
	}
	size_t len = (size_t)st.st_size;
	uint64_t lines = 0;
	if (len > 0) {
		const char *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			fprintf(stderr, "scan: cannot map '%s': %s\n", argv[1], strerror(errno));
			close(fd);
			return 1;
		}
		(void)madvise((void *)(uintptr_t)p, len, MADV_SEQUENTIAL);
		const char *q = p, *e = p + len;
		while (q < e) {
			const char *n = memchr(q, '\n', (size_t)(e - q));
			if (!n)
				break;
			lines++;
			q = n + 1;
		}
		munmap((void *)(uintptr_t)p, len);
	}
	close(fd);
	printf("%llu %llu\n", (unsigned long long)lines, (unsigned long long)len);
	return 0;
}
