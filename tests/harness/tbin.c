#include "tbin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "t.h"

int64_t tb_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void tb_remove(const char *dir)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		t_fail(__FILE__, __LINE__, "cannot remove %s", dir);
}

bool tb_nop_binary(char *dir, uint32_t n, uint32_t size, bool labels, uint64_t *addr)
{
	if (system("command -v gcc >/dev/null && command -v nm >/dev/null && command -v objdump "
		   ">/dev/null") != 0) {
		t_fail(__FILE__, __LINE__, "gcc, nm and objdump are needed (make deps)");
		return false;
	}
	snprintf(dir, 64, "/tmp/pv-bin-XXXXXX");
	if (!mkdtemp(dir)) {
		t_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		return false;
	}
	char path[128], cmd[512];
	snprintf(path, sizeof(path), "%s/nops.s", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		t_fail(__FILE__, __LINE__, "cannot write %s", path);
		return false;
	}
	fputs("\t.text\n", f);
	char name[301];
	memset(name, 'x', 300);
	name[300] = 0;
	for (uint32_t k = 0; k < n; k++) {
		fprintf(f, "\t.globl f%u\n\t.type f%u, @function\nf%u:\n", k, k, k);
		if (labels && k == 0)
			for (uint32_t i = 0; i < size; i++)
				fprintf(f, "\t.globl %.290s%08u\n%.290s%08u:\n\tnop\n", name, i,
					name, i);
		else
			fprintf(f, "\t.fill %u, 1, 0x90\n", size);
		fprintf(f, "\tret\n\t.size f%u, .-f%u\n", k, k);
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && gcc -nostdlib -static -no-pie -Wl,-e,f0 -o nops nops.s && "
		 "nm nops > nm.txt",
		 dir);
	if (system(cmd) != 0) {
		t_fail(__FILE__, __LINE__, "cannot build %s/nops", dir);
		return false;
	}
	snprintf(path, sizeof(path), "%s/nm.txt", dir);
	char *nm = t_read_file(path, NULL);
	uint32_t found = 0;
	for (char *l = nm; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		unsigned long long a;
		unsigned k;
		char t, rest[8];
		if (sscanf(l, "%llx %c f%u%7s", &a, &t, &k, rest) == 3 && k < n) {
			addr[k] = a;
			found++;
		}
		l = nl ? nl + 1 : NULL;
	}
	free(nm);
	if (found != n) {
		t_fail(__FILE__, __LINE__, "nm of %s/nops names %u of %u functions", dir, found, n);
		return false;
	}
	return true;
}

char *tb_nop_profile(const char *dir, uint32_t n, uint32_t size, const uint64_t *addr, size_t *len)
{
	size_t cap = 256 + (size_t)n * 160, at = 0;
	char *t = malloc(cap);
	if (!t)
		return NULL;
	at += (size_t)snprintf(t, cap,
			       "# callgrind format\nevents: Ir\npositions: instr line\n"
			       "ob=%s/nops\nfl=%s/nops.c\n",
			       dir, dir);
	for (uint32_t k = 0; k < n; k++)
		at += (size_t)snprintf(t + at, cap - at, "fn=f%u\n0x%llx 1 1\n0x%llx 2 2\n", k,
				       (unsigned long long)addr[k],
				       (unsigned long long)(addr[k] + size - 1));
	*len = at;
	return t;
}

char *tb_path_first(const char *dir)
{
	const char *old = getenv("PATH");
	char *saved = strdup(old ? old : "/usr/bin:/bin"), path[4096];
	snprintf(path, sizeof(path), "%s/bin:%s", dir, saved ? saved : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	return saved;
}

void tb_path_restore(char *saved)
{
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
}

bool tb_slow_objdump(const char *dir)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/bin", dir);
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		t_fail(__FILE__, __LINE__, "mkdir %s: %s", path, strerror(errno));
		return false;
	}
	snprintf(path, sizeof(path), "%s/bin/objdump", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		t_fail(__FILE__, __LINE__, "cannot write %s", path);
		return false;
	}
	fputs("#!/bin/sh\nfor a; do case $a in --start-address=0x*) s=${a#*=0x} ;; esac; done\n"
	      "printf '  %s:\\tnop\\n' \"$s\"\nexec sleep 60\n",
	      f);
	fclose(f);
	if (chmod(path, 0755) != 0) {
		t_fail(__FILE__, __LINE__, "chmod %s: %s", path, strerror(errno));
		return false;
	}
	return true;
}
