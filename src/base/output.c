/*
 * output.c - where profview may write (pv/output.h) and whole-file replacement (base/output.h).
 */
#include "base/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"

/* What mode names, when it is not a regular file. */
static const char *kind(mode_t mode)
{
	return S_ISCHR(mode)	? "a character device"
	       : S_ISBLK(mode)	? "a block device"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISSOCK(mode) ? "a socket"
	       : S_ISDIR(mode)	? "a folder"
	       : S_ISLNK(mode)	? "a symbolic link"
				: "not a file";
}

static int refuse(const char *path, mode_t mode, struct pv_error *err)
{
	return pv_error_set(err, PV_EIO, "%s: %s, not a regular file: not written", path,
			    kind(mode));
}

/* 0 when the folder that would hold the new file path exists and may be written into. */
static int folder_check(const char *path, struct pv_error *err)
{
	const char *slash = strrchr(path, '/');
	char *dir = NULL;
	if (slash) {
		size_t n = slash == path ? 1 : (size_t)(slash - path);
		if (!(dir = pv_malloc(n + 1)))
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		memcpy(dir, path, n);
		dir[n] = 0;
	}
	const char *d = dir ? dir : ".";
	struct stat st;
	int why = 0;
	if (stat(d, &st) != 0)
		why = errno;
	else if (!S_ISDIR(st.st_mode))
		why = ENOTDIR;
	else if (access(d, W_OK | X_OK) != 0)
		why = errno;
	pv_free(dir);
	return why ? pv_error_set(err, PV_EIO, "%s: cannot write: %s", path, strerror(why)) : 0;
}

int pv_output_check(const char *path, struct pv_error *err)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? folder_check(path, err)
				       : pv_error_set(err, PV_EIO, "%s: cannot write: %s", path,
						      strerror(errno));
	return S_ISREG(st.st_mode) ? 0 : refuse(path, st.st_mode, err);
}

FILE *pv_output_open(const char *path, struct pv_error *err)
{
	if (pv_output_check(path, err))
		return NULL;
	int fd = open(path,
		      O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		      0666);
	struct stat st;
	if (fd < 0) {
		/* O_NOFOLLOW on a link put there since the check: ELOOP */
		pv_error_set(err, PV_EIO, "%s: cannot write: %s", path,
			     errno == ELOOP ? "a symbolic link, not a regular file"
					    : strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (errno = 0, fstat(fd, &st) != 0)
			pv_error_set(err, PV_EIO, "%s: cannot write: %s", path, strerror(errno));
		else
			refuse(path, st.st_mode, err);
		close(fd);
		return NULL;
	}
	int fl = fcntl(fd, F_GETFL);
	FILE *f = fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0 ? NULL : fdopen(fd, "wb");
	if (!f) {
		pv_error_set(err, PV_EIO, "%s: cannot write: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

int output_temp(const char *path, int *fd, char **tmp, struct pv_error *err)
{
	*fd = -1;
	*tmp = NULL;
	int rc = pv_output_check(path, err);
	if (rc)
		return rc;
	size_t n = strlen(path) + 16;
	char *t = pv_malloc(n);
	if (!t)
		return PV_ENOMEM;
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	for (int tries = 0; tries < 100; tries++) {
		uint64_t r = 0;
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15u ^ (uint64_t)getpid() ^
			    (uint64_t)tries << 40;
		}
		char name[7];
		for (int i = 0; i < 6; i++, r /= 36)
			name[i] = digits[r % 36];
		name[6] = 0;
		snprintf(t, n, "%s.tmp-%s", path, name);
		/* the kernel applies the umask to 0666: no umask(0) to read it back */
		*fd =
		    open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666);
		if (*fd >= 0) {
			*tmp = t;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	int e = errno;
	pv_free(t);
	return pv_error_set(err, PV_EIO, "%s: cannot write: %s", path, strerror(e));
}

int output_replace(const char *tmp, const char *path, struct pv_error *err)
{
	int rc = pv_output_check(path, err);
	if (!rc && rename(tmp, path) != 0)
		rc = pv_error_set(err, PV_EIO, "%s: cannot write: %s", path, strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}
