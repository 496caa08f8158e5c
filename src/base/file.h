/*
 * file.h - an input file as one read-only byte buffer.
 *
 * A plain file is mmap'ed (no copy), one of up to 1 MiB read into a buffer kept for the next
 * input (dropping a mapping costs more than the copy); a gzip file is inflated once into one
 * buffer; a UTF-16 file (with a byte-order mark) is transcoded once to UTF-8; a UTF-8 byte-order
 * mark is skipped. Importers parse the buffer in place. For a mapped file, input_forget() lets the
 * kernel drop pages the parser is done with, so opening a big file does not keep all of it
 * resident.
 *
 * A file can change while it is read (a profiler still writing it, a truncation): a mapped file
 * that shrinks would raise SIGBUS on the next page read. Every mapping is registered with one
 * process-wide SIGBUS handler, which puts zero pages in place of the missing ones and flags the
 * input; input_changed() then tells (it also compares the file's size and modification time with
 * those at open), and the import reports "FILE: changed while being read" instead of a result.
 * Only regular files are mapped; pipes and FIFOs are read (a FIFO without a writer reads as
 * empty, never blocks at open); devices are refused.
 */
#ifndef PV_BASE_FILE_H
#define PV_BASE_FILE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/error.h"

struct pv_progress;

/* Largest decompressed input we accept (PV_ELIMIT past it). */
#define PV_MAX_INPUT ((size_t)16 << 30)

struct pv_input {
	const char *name; /* as given, for messages */
	const char *data; /* the bytes to parse */
	size_t len;
	int gzip; /* the file was gzip-compressed */
	/* private */
	void *map;
	size_t map_len;
	char *owned;
	struct readbuf *rbuf;	  /* a small regular file read whole (data points into it) */
	int fd;			  /* the open regular file (-1: none), for input_changed() */
	int64_t size0, mtime0_ns; /* its size and modification time at open */
	int guard;		  /* slot of the mapping in the SIGBUS guard, -1: none */
	int changed;		  /* a dropped mapping had been hit */
	int odd_utf16;	  /* a UTF-16 input of an odd number of bytes: its last byte dropped */
	size_t forgotten; /* bytes of data already handed back to the kernel */
	size_t ahead;	  /* bytes of data mapped in ahead of the parse (input_ahead) */
	struct pv_progress
	    *progress; /* optional: bytes parsed so far (input_forget reports them) */
};

/* Loads path ("-" = standard input). Returns 0, PV_EIO, PV_EPARSE (bad gzip) or PV_ENOMEM. */
int input_open(struct pv_input *in, const char *path, struct pv_error *err);
/* Loads a copy of a memory buffer (tests, fuzzers), with the same decoding. */
int input_from_memory(struct pv_input *in, const char *name, const void *buf, size_t len,
		      struct pv_error *err);
void input_close(struct pv_input *in);
/*
 * Moves in's bytes (the mapping, guarded as before, or the decoded copy) into a new input for a
 * caller that keeps them past the import (a snapshot's profile points into them), leaving in
 * closed; the file itself is closed. NULL when out of memory (in is then unchanged). The moved
 * input is released with input_close() and pv_free().
 */
struct pv_input *input_take(struct pv_input *in);
/* Whether in was read from a regular file on disk (whose folder may hold sibling files). */
static inline int input_is_file(const struct pv_input *in)
{
	return in->fd >= 0;
}
/* Whether the file changed since input_open (a page vanished under the mapping, or its size or
 * modification time differ); fills err with "NAME: changed while being read" when it did. */
int input_changed(struct pv_input *in, struct pv_error *err);
/* Tells the kernel the bytes before p are no longer needed (mapped files only; page-granular),
 * and reports p as the parse position to in->progress when set. */
void input_forget(struct pv_input *in, const char *p);
/*
 * Maps the pages of the next INPUT_AHEAD bytes from p that are not mapped yet in one system call
 * (mapped files only), rather than a page fault for every few pages as the parse reaches them.
 */
#define INPUT_AHEAD ((size_t)4 << 20)
void input_ahead(struct pv_input *in, const char *p);

/* 1-based line and column (bytes) of position p in the input; counts newlines up to p. */
void input_position(const struct pv_input *in, const char *p, uint64_t *line, uint64_t *column);

/*
 * The one shape of a parse error at a place in the input, as every importer reports it: err
 * (NULL allowed) gets "NAME: line L, column C: WHAT" with line, column and has_pos = 1 (and the
 * byte offset when the position is given as a pointer), or
 * "NAME: byte N: WHAT" with offset and has_pos = 2; WHAT is printf's text of fmt (cut at 399
 * bytes). Each returns code.
 */
int input_fail_at(const struct pv_input *in, struct pv_error *err, int code, uint64_t line,
		  uint64_t column, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* At position at of the input (NULL: line 1, column 1). */
int input_fail(const struct pv_input *in, struct pv_error *err, int code, const char *at,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int input_fail_byte(const struct pv_input *in, struct pv_error *err, int code, uint64_t offset,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same for an importer's own printf-like error function. */
int input_vfail_at(const struct pv_input *in, struct pv_error *err, int code, uint64_t line,
		   uint64_t column, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
int input_vfail(const struct pv_input *in, struct pv_error *err, int code, const char *at,
		const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
int input_vfail_byte(const struct pv_input *in, struct pv_error *err, int code, uint64_t offset,
		     const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
/* The same for a file read without a pv_input (a database's member files): NAME is its name. */
int name_vfail_byte(const char *name, struct pv_error *err, int code, uint64_t offset,
		    const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

#endif
