/*
 * replay.c - main() for fuzz targets built without libFuzzer: runs every file named on the
 * command line (or found in the folders named) through LLVMFuzzerTestOneInput, so the seed
 * corpus is an ordinary test. Prints "NAME: N passed, 0 failed"; a bad input aborts.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	size_t cap = 1 << 16, len = 0, r;
	uint8_t *buf = malloc(cap);
	while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf)
		return -1;
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int n = 0, bad = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *e;
			while (d && (e = readdir(d))) {
				if (e->d_name[0] == '.')
					continue;
				char path[4096];
				snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
				if (run_file(path))
					bad++;
				else
					n++;
			}
			if (d)
				closedir(d);
		} else if (run_file(argv[i])) {
			bad++;
		} else {
			n++;
		}
	}
	printf("fuzz %s: %d passed, %d failed\n", argc > 1 ? argv[1] : "", n, bad);
	return bad || n == 0;
}
