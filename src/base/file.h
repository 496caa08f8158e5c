/*
 * file.h - an input file as one read-only byte buffer.
 *
 * A plain file is mmap'ed (no copy); a gzip file is inflated once into one buffer; a UTF-16 file
 * (with a byte-order mark) is transcoded once to UTF-8; a UTF-8 byte-order mark is skipped.
 * Importers parse the buffer in place. For a mapped file, input_forget() lets the kernel drop
 * pages the parser is done with, so opening a big file does not keep all of it resident.
 */
#ifndef PV_BASE_FILE_H
#define PV_BASE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "pv/error.h"

struct pv_progress;

/* Largest decompressed input we accept (PV_ELIMIT past it). */
#define PV_MAX_INPUT ((size_t)16 << 30)

struct pv_input {
	const char *name;  /* as given, for messages */
	const char *data;  /* the bytes to parse */
	size_t len;
	int gzip;          /* the file was gzip-compressed */
	/* private */
	void *map;
	size_t map_len;
	char *owned;
	size_t forgotten;  /* bytes of data already handed back to the kernel */
	struct pv_progress *progress; /* optional: bytes parsed so far (input_forget reports them) */
};

/* Loads path ("-" = standard input). Returns 0, PV_EIO, PV_EPARSE (bad gzip) or PV_ENOMEM. */
int input_open(struct pv_input *in, const char *path, struct pv_error *err);
/* Loads a copy of a memory buffer (tests, fuzzers), with the same decoding. */
int input_from_memory(struct pv_input *in, const char *name, const void *buf, size_t len,
		      struct pv_error *err);
void input_close(struct pv_input *in);
/* Tells the kernel the bytes before p are no longer needed (mapped files only; page-granular),
 * and reports p as the parse position to in->progress when set. */
void input_forget(struct pv_input *in, const char *p);

/* 1-based line and column (bytes) of position p in the input; counts newlines up to p. */
void input_position(const struct pv_input *in, const char *p, uint64_t *line, uint64_t *column);

#endif
