/*
 * source.c - the source files a profile names, opened beneath allowed folders only
 * (include/pv/source.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pv/source.h"

#define MAX_COMPONENTS 128

/* Splits buf (a copy of a path, cut in place) into components; skips empty and "." ones.
 * Returns the count, -1 past MAX_COMPONENTS. */
static int split(char *buf, const char **comp)
{
	int n = 0;
	for (char *s = buf; *s;) {
		char *e = strchr(s, '/');
		if (e)
			*e = 0;
		if (*s && strcmp(s, ".") != 0) {
			if (n == MAX_COMPONENTS)
				return -1;
			comp[n++] = s;
		}
		if (!e)
			break;
		s = e + 1;
	}
	return n;
}

/* The first component after the last "..": a name is never followed upwards. */
static int after_dotdot(const char *const *comp, int n)
{
	int first = 0;
	for (int i = 0; i < n; i++)
		if (strcmp(comp[i], "..") == 0)
			first = i + 1;
	return first;
}

/* Opens comp[0 .. n) beneath the folder dirfd, step by step, following no symbolic link. */
static int open_beneath(int dirfd, const char *const *comp, int n, size_t max)
{
	int at = dirfd;
	for (int i = 0; i < n; i++) {
		if (strcmp(comp[i], "..") == 0) {
			if (at != dirfd)
				close(at);
			return -1;
		}
		int last = i == n - 1;
		int fd = openat(at, comp[i],
				last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
				     : O_RDONLY | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (at != dirfd)
			close(at);
		if (fd < 0)
			return -1;
		at = fd;
	}
	if (at == dirfd)
		return -1;
	struct stat st;
	if (fstat(at, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		close(at);
		return -1;
	}
	return at;
}

/* Whether path lies textually beneath root; *rest is the part below it. */
static bool beneath(const char *path, const char *root, const char **rest)
{
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (strncmp(path, root, n) != 0 || (path[n] != '/' && !(n == 1 && root[0] == '/')))
		return false;
	*rest = path + n;
	return true;
}

int pv_source_open(const char *name, const char *const *roots, uint32_t nroots, size_t max)
{
	if (!name || !*name || !nroots)
		return -1;
	if (strncmp(name, "file://", 7) == 0)
		name += 7;
	size_t len = strlen(name);
	if (len > 4096)
		return -1;
	char buf[4097];
	const char *comp[MAX_COMPONENTS];
	int fd = -1;
	int *dirs = malloc(nroots * sizeof(*dirs));
	if (!dirs)
		return -1;
	for (uint32_t r = 0; r < nroots; r++)
		dirs[r] = roots[r] ? open(roots[r], O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	/* an absolute path beneath a root: that very file */
	for (uint32_t r = 0; name[0] == '/' && r < nroots && fd < 0; r++) {
		const char *rest;
		if (dirs[r] < 0 || !beneath(name, roots[r], &rest))
			continue;
		memcpy(buf, rest, strlen(rest) + 1);
		int n = split(buf, comp);
		if (n > 0 && after_dotdot(comp, n) == 0)
			fd = open_beneath(dirs[r], comp, n, max);
	}
	/* the trailing components, longest first, beneath each root */
	if (fd < 0) {
		memcpy(buf, name, len + 1);
		int n = split(buf, comp);
		for (int i = n > 0 ? after_dotdot(comp, n) : 0; i < n && fd < 0; i++)
			for (uint32_t r = 0; r < nroots && fd < 0; r++)
				if (dirs[r] >= 0)
					fd = open_beneath(dirs[r], comp + i, n - i, max);
	}
	for (uint32_t r = 0; r < nroots; r++)
		if (dirs[r] >= 0)
			close(dirs[r]);
	free(dirs);
	return fd;
}

int pv_source_read(const char *name, const char *const *roots, uint32_t nroots, size_t max,
		   char **data, size_t *len)
{
	int fd = pv_source_open(name, roots, nroots, max);
	if (fd < 0)
		return -1;
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	if (fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1))) {
		while (n < (size_t)st.st_size) {
			ssize_t k = read(fd, buf + n, (size_t)st.st_size - n);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break; /* a file that shrank: what it has */
			n += (size_t)k;
		}
		buf[n] = 0;
	}
	close(fd);
	if (!buf)
		return -1;
	*data = buf;
	*len = n;
	return 0;
}

int pv_source_profile_root(const char *profile_path, char *dir, size_t len)
{
	const char *slash = strrchr(profile_path, '/');
	char d[4096];
	struct stat st;
	if (stat(profile_path, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(d, sizeof(d), "%s", profile_path);
	else
		snprintf(d, sizeof(d), "%.*s",
			 slash ? (int)(slash - profile_path + (slash == profile_path)) : 1,
			 slash ? profile_path : ".");
	char *real = realpath(d, NULL);
	size_t n = real ? strlen(real) : 0;
	int ok = real && n < len;
	if (ok)
		memcpy(dir, real, n + 1);
	free(real);
	return ok;
}
