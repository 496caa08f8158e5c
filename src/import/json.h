/*
 * json.h - a streaming pull tokenizer for JSON, zero-copy over a struct pv_input.
 *
 * json_next() returns one token at a time: the start of an object or array, an object key, a
 * scalar, or the end of the innermost container. Syntax is checked as it goes (commas, colons,
 * nesting, string escapes, number grammar), so an importer only checks the structure it expects.
 * Tokens are views into the input: a token's bytes stay valid until the tokenizer has moved
 * JSON_FORGET_LAG bytes past it (on mapped files, older pages are returned to the kernel).
 * Strings with escapes are decoded on demand by json_str() into a scratch buffer that is valid
 * until the next json_str() call.
 *
 * Every error sets struct pv_error to "FILE: line L, column C: what was expected" and returns
 * PV_EPARSE (PV_ELIMIT past JSON_MAX_DEPTH); after an error every call fails again.
 */
#ifndef PV_IMPORT_JSON_H
#define PV_IMPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/file.h"

struct sbuf;

#define JSON_MAX_DEPTH	512
#define JSON_FORGET_LAG ((size_t)1 << 20)

enum json_kind {
	JSON_EOF = 0,
	JSON_OBJECT, /* '{' */
	JSON_ARRAY,  /* '[' */
	JSON_END,    /* '}' or ']' */
	JSON_KEY,    /* a key; the ':' is consumed */
	JSON_STRING,
	JSON_NUMBER,
	JSON_TRUE,
	JSON_FALSE,
	JSON_NULL,
};

struct json_tok {
	enum json_kind kind;
	const char *s; /* strings and keys: the bytes between the quotes; numbers: the text */
	size_t len;
	bool escaped; /* the string holds a backslash escape */
};

struct json {
	struct pv_input *in;
	const char *p, *end;
	struct pv_error *err;
	int failed;
	bool lenient_tail; /* accept a missing closing ']' / '}' and a trailing comma at EOF */
	bool top_done;
	uint32_t depth;
	uint8_t kind[JSON_MAX_DEPTH];  /* 'o' or 'a' */
	uint8_t state[JSON_MAX_DEPTH]; /* see json.c */
	const char *forget_mark;
	char *scratch;
	size_t scratch_cap;
};

void json_init(struct json *j, struct pv_input *in, struct pv_error *err);
void json_release(struct json *j);

int json_next(struct json *j, struct json_tok *t);
/* Skips the value whose first token is t (objects and arrays whole). */
int json_skip(struct json *j, const struct json_tok *t);
/* Reads the next token and skips the value it starts. */
int json_skip_value(struct json *j);
/*
 * Token t, already read, must be of kind k (JSON_TRUE: either boolean); else the error
 * "expected WHAT, found KIND" at t. json_expect reads the next token and checks it so.
 */
int json_want(struct json *j, const struct json_tok *t, enum json_kind k, const char *what);
int json_expect(struct json *j, struct json_tok *t, enum json_kind k, const char *what);
/*
 * The next member of the object being read (its '{' read): its key in *k and the first token of
 * its value in *v (a value, never an end). At the object's end *k is not a key: JSON_END (the
 * '}' consumed), or JSON_EOF when a lenient_tail input ends inside the object; *v is then
 * unset. Returns 0 or the tokenizer's error. The loop of every importer:
 *     while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) { ... }
 */
int json_next_member(struct json *j, struct json_tok *k, struct json_tok *v);

/* Depth of the container the tokenizer is in (0 at top level). */
static inline uint32_t json_depth(const struct json *j)
{
	return j->depth;
}

/*
 * Fast path for arrays of numbers, the bulk of a profile. Inside an array (its '[' read, and
 * maybe some elements by json_next), reads the elements that follow straight into out[],
 * converting while it scans, and stops:
 *   - at the end of the array, which it consumes (*stop = JSON_RUN_END);
 *   - after cap values (JSON_RUN_FULL);
 *   - before the first element it does not read on its own (JSON_RUN_OTHER): a string, an
 *     exponent, a number too long or out of its range, null when not wanted, bad syntax, the
 *     last bytes of the input. json_next then returns that element exactly as if the fast path
 *     had not run, so the caller reads it the general way, with the same errors at the same
 *     positions.
 * Returns how many values it stored. Whitespace is skipped only where a byte <= ' ' is found;
 * the forget position is checked once per call.
 */
enum json_run { JSON_RUN_END, JSON_RUN_FULL, JSON_RUN_OTHER };
/* Non-negative integers below 10^9; null as null_value when null_ok. */
size_t json_run_u32(struct json *j, uint32_t *out, size_t cap, bool null_ok, uint32_t null_value,
		    enum json_run *stop);
/*
 * pow10 == 0: integers of at most 18 digits. pow10 1 to 6: value * 10^pow10 as json_fixed
 * gives it, for decimals of at most 12 integer digits without exponent. Null as null_value when
 * null_ok.
 */
size_t json_run_i64(struct json *j, int pow10, int64_t *out, size_t cap, bool null_ok,
		    int64_t null_value, enum json_run *stop);

/*
 * Fast path for tables of number rows (Gecko's samples: [stack, time, ...]). Inside an array of
 * rows (its '[' read, and maybe some rows by json_next), reads the next row when it is an array
 * of exactly n cells, cell k a number as cell[k] says or null (null_value), into out[0..n):
 * true, the row consumed. Else false, nothing consumed (the end of the table, a row of another
 * length or shape, a number the runs above do not read, the last bytes of the input): json_next
 * then reads it as if the fast path had not run, with the same errors at the same positions.
 */
struct json_run_cell {
	bool index;   /* a non-negative integer below 10^9, as json_run_u32 */
	int8_t pow10; /* else: value * 10^pow10 (0 to 6) as json_run_i64 */
};
bool json_run_row(struct json *j, const struct json_run_cell *cell, unsigned n, int64_t null_value,
		  int64_t *out);

/* Conversions of a token; each fails with a positioned error naming what was expected. */
int json_i64(struct json *j, const struct json_tok *t, int64_t *out);
int json_f64(struct json *j, const struct json_tok *t, double *out);
/* Exact value * 10^pow10 rounded to an integer (milliseconds to ns: pow10 = 6). */
int json_fixed(struct json *j, const struct json_tok *t, int pow10, int64_t *out);
/* A string or key token's decoded bytes (a view, or scratch when escaped). */
int json_str(struct json *j, const struct json_tok *t, const char **s, size_t *len);
/*
 * The text of a string or key token (decoded) or of a number token (as written) into out,
 * replacing what it held. Returns 0; 1 when t is none of these (out emptied, t's value not
 * read: the caller skips or refuses it); or the tokenizer's error (PV_ENOMEM as a positioned
 * "out of memory").
 */
int json_text(struct json *j, const struct json_tok *t, struct sbuf *out);

/* Compares a key/string token (unescaped bytes) with a C string. */
static inline bool json_is(const struct json_tok *t, const char *lit)
{
	size_t i = 0;
	for (; i < t->len; i++)
		if (lit[i] != t->s[i])
			return false;
	return lit[i] == 0;
}

/* Positioned error at p (NULL = current position): "FILE: line L, column C: <message>". */
int json_fail(struct json *j, const char *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same, at the start of token t. */
#define json_fail_at(j, t, ...)                                                                 \
	json_fail((j), (t)->kind == JSON_STRING || (t)->kind == JSON_KEY ? (t)->s - 1 : (t)->s, \
		  __VA_ARGS__)

/* Human name of a token kind ("a number", "'{'", ...). */
const char *json_kind_name(enum json_kind k);

/*
 * Appends the value whose first token is t to buf as compact JSON text: strings keep their
 * escapes as written, numbers their text. Used to keep marker payloads verbatim. Returns 0 or an
 * error (PV_ENOMEM via json_fail).
 */
int json_capture(struct json *j, const struct json_tok *t, struct sbuf *buf);

#endif
