#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/alloc.h"
#include "base/file.h"
#include "pv/import.h"

/*
 * The SIGBUS guard of mapped inputs. A mapped file that shrinks under us (its writer truncated
 * or rewrote it) raises SIGBUS when a page past its new end is read. The handler looks the
 * address up in the table of live mappings; when it is one of ours it maps zero pages over the
 * rest of that mapping (the parse then meets NUL bytes and ends, at worst at the old end) and
 * flags the slot, so input_changed() reports the change. An address outside every mapping is
 * not ours: the previous handler (or the default action) gets it.
 */
#define NR_GUARDS 256

static struct guard {
	_Atomic uintptr_t lo, hi; /* page-aligned [lo, hi); lo 0: a free slot */
	atomic_int hit;
} guards[NR_GUARDS];
static struct sigaction prev_bus;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static uintptr_t page_size;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	for (int i = 0; i < NR_GUARDS; i++) {
		uintptr_t lo = atomic_load(&guards[i].lo), hi = atomic_load(&guards[i].hi);
		if (!lo || a < lo || a >= hi)
			continue;
		uintptr_t from = a & ~(page_size - 1);
		void *m = mmap((void *)from, hi - from, PROT_READ,
			       MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			break;
		atomic_store(&guards[i].hit, 1);
		return;
	}
	if ((prev_bus.sa_flags & SA_SIGINFO) && prev_bus.sa_sigaction) {
		prev_bus.sa_sigaction(sig, si, ctx);
		return;
	}
	if (prev_bus.sa_handler != SIG_DFL && prev_bus.sa_handler != SIG_IGN) {
		prev_bus.sa_handler(sig);
		return;
	}
	/* the default action: the faulting read runs again and the process stops with SIGBUS */
	signal(SIGBUS, SIG_DFL);
}

static void guard_install(void)
{
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &prev_bus);
}

/* Registers [m, m + len) with the guard; the slot, or -1 when the table is full. */
static int guard_add(void *m, size_t len)
{
	pthread_once(&guard_once, guard_install);
	uintptr_t lo = (uintptr_t)m, hi = (lo + len + page_size - 1) & ~(page_size - 1);
	for (int i = 0; i < NR_GUARDS; i++) {
		uintptr_t free_lo = 0;
		if (atomic_compare_exchange_strong(&guards[i].lo, &free_lo, lo)) {
			atomic_store(&guards[i].hit, 0);
			atomic_store(&guards[i].hi, hi);
			return i;
		}
	}
	return -1;
}

static void guard_remove(int i)
{
	atomic_store(&guards[i].hi, 0);
	atomic_store(&guards[i].lo, 0);
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

static int gunzip(struct pv_input *in, const unsigned char *src, size_t n, struct pv_error *err)
{
	/* ISIZE (last 4 bytes) is the size mod 2^32 of the last member: a good first guess */
	size_t cap = n * 4 + 4096;
	if (n >= 4) {
		uint32_t isize = (uint32_t)src[n - 4] | (uint32_t)src[n - 3] << 8 |
				 (uint32_t)src[n - 2] << 16 | (uint32_t)src[n - 1] << 24;
		/* DEFLATE expands at most 1032:1: a larger ISIZE is corrupt, not a reason to
		 * allocate */
		if (isize + (size_t)4096 > cap && isize / 1032 <= n)
			cap = isize + (size_t)4096;
	}
	char *out = pv_malloc(cap);
	if (!out)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory for the inflated file",
				    in->name);
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 32) != Z_OK) {
		pv_free(out);
		return pv_error_set(err, PV_ENOMEM, "%s: cannot start zlib", in->name);
	}
	size_t len = 0, pos = 0;
	int ret = Z_OK;
	while (pos < n) {
		z.next_in = (unsigned char *)src + pos;
		z.avail_in = (uInt)((n - pos) > (1u << 30) ? (1u << 30) : (n - pos));
		if (len == cap) {
			if (cap >= PV_MAX_INPUT) {
				inflateEnd(&z);
				pv_free(out);
				return pv_error_set(err, PV_ELIMIT,
						    "%s: inflates to more than %zu bytes", in->name,
						    PV_MAX_INPUT);
			}
			char *nb = pv_realloc(out, cap * 2);
			if (!nb) {
				inflateEnd(&z);
				pv_free(out);
				return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
			}
			out = nb;
			cap *= 2;
		}
		z.next_out = (unsigned char *)out + len;
		size_t room = cap - len;
		z.avail_out = (uInt)(room > (1u << 30) ? (1u << 30) : room);
		uInt before_in = z.avail_in, before_out = z.avail_out;
		ret = inflate(&z, Z_NO_FLUSH);
		pos += before_in - z.avail_in;
		len += before_out - z.avail_out;
		if (ret == Z_STREAM_END) {
			/* another member may follow (concatenated gzip) */
			while (pos < n && src[pos] == 0)
				pos++; /* padding some tools leave */
			if (pos + 1 < n && src[pos] == 0x1f && src[pos + 1] == 0x8b) {
				inflateReset(&z);
				continue;
			}
			if (pos < n) {
				inflateEnd(&z);
				pv_free(out);
				return input_fail_byte(in, err, PV_EPARSE, pos,
						       "trailing garbage after the gzip stream");
			}
			break;
		}
		if (ret != Z_OK && ret != Z_BUF_ERROR) {
			size_t at = pos;
			inflateEnd(&z);
			pv_free(out);
			return input_fail_byte(in, err, PV_EPARSE, at, "corrupt gzip data (%s)",
					       z.msg ? z.msg : "inflate failed");
		}
		if (ret == Z_BUF_ERROR && z.avail_in == 0 && pos >= n)
			break;
	}
	inflateEnd(&z);
	if (ret != Z_STREAM_END) {
		pv_free(out);
		return input_fail_byte(in, err, PV_EPARSE, n,
				       "truncated gzip data (the stream does not end)");
	}
	pv_free(in->owned); /* the compressed copy of input_from_memory, if any */
	in->owned = out;
	in->data = out;
	in->len = len;
	in->gzip = 1;
	return 0;
}

/* UTF-16 (BOM given) to UTF-8, surrogate pairs joined; lone surrogates become U+FFFD. */
static int utf16_to_utf8(struct pv_input *in, const unsigned char *s, size_t n, int big)
{
	size_t units = n / 2;
	char *out = pv_malloc(units * 3 + 1);
	if (!out)
		return PV_ENOMEM;
	size_t o = 0;
	for (size_t i = 1; i < units; i++) { /* unit 0 is the BOM */
		uint32_t u = big ? (uint32_t)s[2 * i] << 8 | s[2 * i + 1]
				 : (uint32_t)s[2 * i + 1] << 8 | s[2 * i];
		uint32_t cp = u;
		if (u >= 0xd800 && u < 0xdc00 && i + 1 < units) {
			uint32_t v = big ? (uint32_t)s[2 * i + 2] << 8 | s[2 * i + 3]
					 : (uint32_t)s[2 * i + 3] << 8 | s[2 * i + 2];
			if (v >= 0xdc00 && v < 0xe000) {
				cp = 0x10000 + ((u - 0xd800) << 10) + (v - 0xdc00);
				i++;
			} else {
				cp = 0xfffd;
			}
		} else if (u >= 0xd800 && u < 0xe000) {
			cp = 0xfffd;
		}
		if (cp < 0x80) {
			out[o++] = (char)cp;
		} else if (cp < 0x800) {
			out[o++] = (char)(0xc0 | cp >> 6);
			out[o++] = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			out[o++] = (char)(0xe0 | cp >> 12);
			out[o++] = (char)(0x80 | (cp >> 6 & 0x3f));
			out[o++] = (char)(0x80 | (cp & 0x3f));
		} else {
			out[o++] = (char)(0xf0 | cp >> 18);
			out[o++] = (char)(0x80 | (cp >> 12 & 0x3f));
			out[o++] = (char)(0x80 | (cp >> 6 & 0x3f));
			out[o++] = (char)(0x80 | (cp & 0x3f));
		}
	}
	out[o] = 0;
	in->odd_utf16 = n % 2;
	pv_free(in->owned);
	in->owned = out;
	in->data = out;
	in->len = o;
	return 0;
}

/*
 * A regular file of up to READ_MAX bytes is read into a buffer rather than mapped: a mapping is
 * cheap to make but not to drop (munmap flushes the TLB: on this VM's kernel a hypercall, 25 % of
 * a merge of 10,000 small files, and a cost two processes pay against each other). The buffer of
 * the last such input closed is kept for the next one (one per process, taken atomically), so a
 * merge of many small inputs reads each into the same pages, without a system call but the read.
 */
#define READ_MAX ((size_t)1 << 20)

struct readbuf {
	size_t cap, pad; /* bytes of data; data as aligned as malloc's blocks (a snapshot: 8) */
	char data[];
};

static _Atomic(struct readbuf *) spare_buf;

static void readbuf_put(struct readbuf *rb)
{
	if (rb)
		pv_free(atomic_exchange(&spare_buf, rb));
}

/* A buffer of at least n + 1 bytes (the spare one when it is large enough), NULL: no memory. */
static struct readbuf *readbuf_get(size_t n)
{
	struct readbuf *rb = atomic_exchange(&spare_buf, NULL);
	if (rb && rb->cap > n)
		return rb;
	pv_free(rb);
	size_t cap = 64 << 10;
	while (cap <= n)
		cap *= 2;
	rb = pv_malloc(sizeof(*rb) + cap);
	if (rb)
		rb->cap = cap;
	return rb;
}

/* Reads the regular file fd of size bytes (<= READ_MAX) into a kept buffer: 0, or not read. */
static int read_small(struct pv_input *in, int fd, size_t size)
{
	struct readbuf *rb = readbuf_get(size);
	if (!rb)
		return PV_ENOMEM;
	size_t len = 0;
	while (len < size) {
		ssize_t r = read(fd, rb->data + len, size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	if (len < size) {
		/* shrunk under the read (or a read error): input_changed() reports it */
		in->changed = 1;
		if (len == 0) {
			readbuf_put(rb);
			return PV_EIO;
		}
	}
	rb->data[len] = 0;
	in->rbuf = rb;
	in->data = rb->data;
	in->len = len;
	return 0;
}

/* Drops the mapping or the read buffer (a decoded copy replaced it), remembering whether it was
 * hit. */
static void unmap(struct pv_input *in)
{
	readbuf_put(in->rbuf);
	in->rbuf = NULL;
	if (in->guard >= 0) {
		in->changed |= atomic_load(&guards[in->guard].hit) != 0;
		guard_remove(in->guard);
		in->guard = -1;
	}
	if (in->map) {
		munmap(in->map, in->map_len);
		in->map = NULL;
	}
}

static int decode(struct pv_input *in, struct pv_error *err)
{
	const unsigned char *s = (const unsigned char *)in->data;
	if (in->len >= 2 && s[0] == 0x1f && s[1] == 0x8b) {
		int rc = gunzip(in, s, in->len, err);
		if (rc)
			return rc;
		unmap(in); /* the raw mapping is no longer needed */
		s = (const unsigned char *)in->data;
	}
	if (in->len >= 2 && ((s[0] == 0xff && s[1] == 0xfe) || (s[0] == 0xfe && s[1] == 0xff))) {
		if (utf16_to_utf8(in, s, in->len, s[0] == 0xfe))
			return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
		unmap(in);
	} else if (in->len >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf) {
		in->data += 3;
		in->len -= 3;
	}
	return 0;
}

static int read_all(struct pv_input *in, int fd, struct pv_error *err)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = pv_malloc(cap);
	if (!buf)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	for (;;) {
		if (len == cap) {
			if (cap >= PV_MAX_INPUT) {
				pv_free(buf);
				return pv_error_set(err, PV_ELIMIT, "%s: larger than %zu bytes",
						    in->name, PV_MAX_INPUT);
			}
			char *nb = pv_realloc(buf, cap * 2);
			if (!nb) {
				pv_free(buf);
				return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			pv_free(buf);
			return pv_error_set(err, PV_EIO, "%s: cannot read: %s", in->name,
					    strerror(e));
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	in->owned = buf;
	in->data = buf;
	in->len = len;
	return 0;
}

int input_open(struct pv_input *in, const char *path, struct pv_error *err)
{
	memset(in, 0, sizeof(*in));
	in->name = path;
	in->fd = -1;
	in->guard = -1;
	/* O_NONBLOCK: opening a FIFO that has no writer must not wait for one */
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return pv_error_set(err, PV_EIO, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	int rc;
	if (fstat(fd, &st) != 0) {
		rc = pv_error_set(err, PV_EIO, "%s: cannot read: %s", path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		rc = pv_error_set(err, PV_EIO, "%s: is a directory", path);
	} else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		rc = fd == 0 && isatty(0)
			 ? read_all(in, fd, err)
			 : pv_error_set(err, PV_EIO,
					"%s: is a device, not a file (a regular file or a pipe "
					"was expected)",
					path);
	} else {
		if (fd != 0 && !S_ISREG(st.st_mode)) {
			/* reads block again (a pipe's data may come later); a FIFO with no
			 * writer reads as empty. A regular file's reads ignore O_NONBLOCK. */
			int fl = fcntl(fd, F_GETFL);
			if (fl >= 0)
				fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		}
		void *m = MAP_FAILED;
		bool small = S_ISREG(st.st_mode) && st.st_size > 0 && fd != 0 &&
			     (size_t)st.st_size <= READ_MAX;
		if (small && read_small(in, fd, (size_t)st.st_size) == 0)
			rc = 0; /* else mapped, as a larger file */
		else if (S_ISREG(st.st_mode) && st.st_size > 0 && fd != 0)
			m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		int slot = m == MAP_FAILED ? -1 : guard_add(m, (size_t)st.st_size);
		if (m != MAP_FAILED && slot < 0) {
			munmap(m, (size_t)st.st_size); /* unguarded: read a copy instead */
			m = MAP_FAILED;
		}
		if (in->rbuf) {
			/* read whole above */
		} else if (m == MAP_FAILED) {
			rc = read_all(in, fd, err);
		} else {
			madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
			in->map = m;
			in->map_len = (size_t)st.st_size;
			in->guard = slot;
			in->data = m;
			in->len = (size_t)st.st_size;
			rc = 0;
		}
		if (S_ISREG(st.st_mode) && fd != 0) {
			in->fd = fd;
			in->size0 = (int64_t)st.st_size;
			in->mtime0_ns = mtime_ns(&st);
			fd = 0; /* kept open for input_changed() */
		}
	}
	if (fd != 0)
		close(fd);
	if (!rc)
		rc = decode(in, err);
	if (rc) {
		/* a file that changed under the parse says so rather than how it broke */
		if (input_changed(in, err))
			rc = PV_EIO;
		input_close(in);
	}
	in->name = path;
	return rc;
}

int input_changed(struct pv_input *in, struct pv_error *err)
{
	bool hit = in->changed || (in->guard >= 0 && atomic_load(&guards[in->guard].hit));
	struct stat st;
	int64_t size = in->size0;
	if (in->fd >= 0 && fstat(in->fd, &st) == 0) {
		size = (int64_t)st.st_size;
		if (size != in->size0 || mtime_ns(&st) != in->mtime0_ns)
			hit = true;
	}
	if (!hit)
		return 0;
	if (size != in->size0)
		pv_error_set(err, PV_EIO,
			     "%s: changed while being read (%" PRId64 " bytes at open, %" PRId64
			     " now): open it again once its writer is done",
			     in->name, in->size0, size);
	else
		pv_error_set(err, PV_EIO,
			     "%s: changed while being read: open it again once its writer is done",
			     in->name);
	return 1;
}

int input_from_memory(struct pv_input *in, const char *name, const void *buf, size_t len,
		      struct pv_error *err)
{
	memset(in, 0, sizeof(*in));
	in->name = name;
	in->fd = -1;
	in->guard = -1;
	char *copy = pv_malloc(len + 1);
	if (!copy)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", name);
	memcpy(copy, buf, len);
	copy[len] = 0;
	in->owned = copy;
	in->data = copy;
	in->len = len;
	int rc = decode(in, err);
	if (rc)
		input_close(in);
	in->name = name;
	return rc;
}

void input_close(struct pv_input *in)
{
	unmap(in);
	if (in->fd >= 0)
		close(in->fd);
	pv_free(in->owned);
	const char *name = in->name;
	memset(in, 0, sizeof(*in));
	in->name = name;
	in->fd = -1;
	in->guard = -1;
}

struct pv_input *input_take(struct pv_input *in)
{
	struct pv_input *k = pv_malloc(sizeof(*k));
	if (!k)
		return NULL;
	*k = *in;
	k->name = "";
	k->progress = NULL;
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	/* in keeps its name and its file's identity, so input_changed() can still tell */
	in->map = NULL;
	in->rbuf = NULL;
	in->owned = NULL;
	in->guard = -1;
	in->data = NULL;
	in->len = 0;
	in->fd = -1;
	return k;
}

void input_forget(struct pv_input *in, const char *p)
{
	if (in->progress && p >= in->data)
		atomic_store_explicit(&in->progress->done, (uint64_t)(p - in->data),
				      memory_order_relaxed);
	if (!in->map || in->data != in->map)
		return;
	long page = sysconf(_SC_PAGESIZE);
	size_t upto = (size_t)(p - in->data);
	upto -= upto % (size_t)page;
	if (upto <= in->forgotten)
		return;
	madvise((char *)in->map + in->forgotten, upto - in->forgotten, MADV_DONTNEED);
	in->forgotten = upto;
}

void input_ahead(struct pv_input *in, const char *p)
{
	if (!in->map || in->data != in->map || p < in->data)
		return;
	size_t at = (size_t)(p - in->data), page = (size_t)sysconf(_SC_PAGESIZE);
	size_t from = at > in->ahead ? at - at % page : in->ahead;
	size_t to = at + INPUT_AHEAD < in->len ? at + INPUT_AHEAD : in->len;
	if (to <= from)
		return;
		/* an error (an old kernel, a file cut short) leaves the page faults to do it */
#ifdef MADV_POPULATE_READ
	madvise((char *)in->map + from, to - from, MADV_POPULATE_READ);
#endif
	in->ahead = to + (page - to % page) % page;
}

void input_position(const struct pv_input *in, const char *p, uint64_t *line, uint64_t *column)
{
	uint64_t l = 1;
	const char *ls = in->data;
	for (const char *q = in->data; q < p; q++) {
		q = memchr(q, '\n', (size_t)(p - q));
		if (!q)
			break;
		l++;
		ls = q + 1;
	}
	*line = l;
	*column = (uint64_t)(p - ls) + 1;
}

int input_vfail_at(const struct pv_input *in, struct pv_error *err, int code, uint64_t line,
		   uint64_t column, const char *fmt, va_list ap)
{
	char what[400];
	vsnprintf(what, sizeof(what), fmt, ap);
	int rc = pv_error_set(err, code, "%s: line %llu, column %llu: %s", in->name,
			      (unsigned long long)line, (unsigned long long)column, what);
	if (err) {
		err->line = line;
		err->column = column;
		err->has_pos = 1;
	}
	return rc;
}

int input_fail_at(const struct pv_input *in, struct pv_error *err, int code, uint64_t line,
		  uint64_t column, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = input_vfail_at(in, err, code, line, column, fmt, ap);
	va_end(ap);
	return rc;
}

int input_vfail(const struct pv_input *in, struct pv_error *err, int code, const char *at,
		const char *fmt, va_list ap)
{
	uint64_t line = 1, column = 1;
	if (at)
		input_position(in, at, &line, &column);
	int rc = input_vfail_at(in, err, code, line, column, fmt, ap);
	if (err && at)
		err->offset = (uint64_t)(at - in->data);
	return rc;
}

int input_fail(const struct pv_input *in, struct pv_error *err, int code, const char *at,
	       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = input_vfail(in, err, code, at, fmt, ap);
	va_end(ap);
	return rc;
}

int input_vfail_byte(const struct pv_input *in, struct pv_error *err, int code, uint64_t offset,
		     const char *fmt, va_list ap)
{
	return name_vfail_byte(in->name, err, code, offset, fmt, ap);
}

int name_vfail_byte(const char *name, struct pv_error *err, int code, uint64_t offset,
		    const char *fmt, va_list ap)
{
	char what[400];
	vsnprintf(what, sizeof(what), fmt, ap);
	int rc =
	    pv_error_set(err, code, "%s: byte %llu: %s", name, (unsigned long long)offset, what);
	if (err) {
		err->offset = offset;
		err->has_pos = 2;
	}
	return rc;
}

int input_fail_byte(const struct pv_input *in, struct pv_error *err, int code, uint64_t offset,
		    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = input_vfail_byte(in, err, code, offset, fmt, ap);
	va_end(ap);
	return rc;
}
