/*
 * bplist.h - Apple's binary property lists (bplist00, CFBinaryPList.c) and the NSKeyedArchiver
 * archives stored in them, read in place: what an Instruments .trace bundle's form.template
 * holds. Only reading: objects are decoded when asked for, by index.
 */
#ifndef PV_IMPORT_INSTRUMENTS_BPLIST_H
#define PV_IMPORT_INSTRUMENTS_BPLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum bp_kind {
	BP_NULL,
	BP_BOOL,
	BP_INT,
	BP_REAL,
	BP_DATE,
	BP_DATA,
	BP_ASCII,
	BP_UTF16,
	BP_UID,
	BP_ARRAY,
	BP_DICT,
};

/* One object: its kind, its value (int, bool, uid: u; real, date: f), its bytes (data,
 * strings: p, n bytes or UTF-16 units; arrays and dicts: p at their n references) and its byte. */
struct bp_obj {
	enum bp_kind kind;
	uint64_t u;
	double f;
	const unsigned char *p;
	uint64_t n;
	uint64_t at;
};

struct bplist {
	const unsigned char *d;
	size_t len;
	unsigned off_size, ref_size;
	uint64_t nobj, top, table;
	/* the first error: its byte and what was expected (bad is set) */
	bool bad;
	uint64_t bad_at;
	char why[160];
};

/* Checks the header and the trailer; false with bad set when it is no binary plist. */
bool bp_open(struct bplist *bp, const void *data, size_t len);
/* Object number ix; false (bad set) when it is out of range or damaged. */
bool bp_get(struct bplist *bp, uint64_t ix, struct bp_obj *o);
/* The object number of element i of an array (dict: key i; value i is at n + i). */
bool bp_ref(struct bplist *bp, const struct bp_obj *o, uint64_t i, uint64_t *ix);

/*
 * An NSKeyedArchiver archive: $objects and $top of the root dict. Values (keyed objects'
 * fields) are bp_objs: a UID refers to $objects, others are the value itself.
 */
struct karchive {
	struct bplist bp;
	struct bp_obj objects, top;
};

bool ka_open(struct karchive *ka, const void *data, size_t len);
/* The value of dict d's string key (false: no such key). */
bool ka_field(struct karchive *ka, const struct bp_obj *d, const char *key, struct bp_obj *v);
/* v itself, or the object of $objects it refers to when a UID ($null: BP_NULL). */
bool ka_deref(struct karchive *ka, const struct bp_obj *v, struct bp_obj *o);
/* Whether object o is a keyed object of class name ($class's $classname). */
bool ka_is(struct karchive *ka, const struct bp_obj *o, const char *name);
/* o's class name into buf ("" when o is no keyed object). */
void ka_class(struct karchive *ka, const struct bp_obj *o, char *buf, size_t size);
/* Element i of an array (dereferenced). */
bool ka_elem(struct karchive *ka, const struct bp_obj *a, uint64_t i, struct bp_obj *o);
/* The items of an NSArray / NSMutableArray object as a plist array (false: not one). */
bool ka_array(struct karchive *ka, const struct bp_obj *o, struct bp_obj *items);
/* The keys and values of an NSDictionary / NSMutableDictionary object. */
bool ka_dict(struct karchive *ka, const struct bp_obj *o, struct bp_obj *keys,
	     struct bp_obj *values);
/* An integer value (inline or referred to). */
bool ka_int(struct karchive *ka, const struct bp_obj *v, uint64_t *out);
/* A string value (a plist string, an NSString's NS.string or NS.bytes) as UTF-8 into a new
 * buffer (pv_free); NULL for $null and values of other kinds, *nomem on allocation failure. */
char *ka_string(struct karchive *ka, const struct bp_obj *v, bool *nomem);
/* Whether value v is the string s. */
bool ka_string_is(struct karchive *ka, const struct bp_obj *v, const char *s);

#endif
