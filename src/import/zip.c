/*
 * zip.c - zip archives as containers of profiles (zip.h), read with libzip. The end record and
 * the central directory are also walked here, only to place damage at its byte.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zip.h>
#include <zlib.h>

#include "base/alloc.h"
#include "import/zip.h"

struct zipc {
	const struct pv_input *in;
	zip_t *za;
	size_t n;
	uint64_t cd_at;	 /* the central directory's byte */
	uint64_t *local; /* each member's local header byte (NULL: not known, zip64) */
};

static uint32_t le16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
	return le16(p) | le16(p + 2) << 16;
}

bool zipc_is(const struct pv_input *in)
{
	return in->len >= 4 && memcmp(in->data, "PK", 2) == 0 &&
	       ((in->data[2] == 3 && in->data[3] == 4) || (in->data[2] == 5 && in->data[3] == 6));
}

/* The end-of-central-directory record's byte, or -1 (it is within the last 64 KiB + 22). */
static int64_t end_record(const struct pv_input *in)
{
	const unsigned char *d = (const unsigned char *)in->data;
	if (in->len < 22)
		return -1;
	size_t lo = in->len > 65557 ? in->len - 65557 : 0;
	for (size_t i = in->len - 22 + 1; i-- > lo;)
		if (d[i] == 'P' && d[i + 1] == 'K' && d[i + 2] == 5 && d[i + 3] == 6)
			return (int64_t)i;
	return -1;
}

/* Walks the central directory for each member's local header byte (z->local; left NULL when
 * its records are not as the end record says: libzip then says what is wrong). */
static void walk_directory(struct zipc *z, uint64_t cd_size)
{
	const unsigned char *d = (const unsigned char *)z->in->data;
	uint64_t p = z->cd_at, end = z->cd_at + cd_size;
	uint64_t *local = pv_calloc(z->n ? z->n : 1, sizeof(*local));
	if (!local)
		return;
	for (size_t i = 0; i < z->n; i++) {
		if (p + 46 > end || le32(d + p) != 0x02014b50) {
			pv_free(local);
			return;
		}
		local[i] = le32(d + p + 42);
		p += 46 + (uint64_t)le16(d + p + 28) + le16(d + p + 30) + le16(d + p + 32);
	}
	z->local = local;
}

static int fail_byte(const struct pv_input *in, struct pv_error *err, int code, uint64_t at,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail_byte(const struct pv_input *in, struct pv_error *err, int code, uint64_t at,
		     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = input_vfail_byte(in, err, code, at, fmt, ap);
	va_end(ap);
	return rc;
}

/* The end record's checks: 0 with z->cd_at and the member count, else the error at its byte. */
static int check_end(struct zipc *z, uint64_t *cd_size, struct pv_error *err)
{
	const struct pv_input *in = z->in;
	int64_t e = end_record(in);
	if (e < 0)
		return fail_byte(in, err, PV_EPARSE, in->len,
				 "a zip archive without its end-of-central-directory record (the "
				 "file is cut short or damaged)");
	const unsigned char *d = (const unsigned char *)in->data + e;
	z->n = le16(d + 10);
	*cd_size = le32(d + 12);
	z->cd_at = le32(d + 16);
	if (z->cd_at != 0xffffffff && z->cd_at + *cd_size > (uint64_t)e)
		return fail_byte(in, err, PV_EPARSE, (uint64_t)e + 16,
				 "the zip's central directory (%" PRIu64 " bytes at byte %" PRIu64
				 ") runs past its end record at byte %" PRId64
				 " (the file is cut short or damaged)",
				 *cd_size, z->cd_at, e);
	return 0;
}

int zipc_open(const struct pv_input *in, struct zipc **out, struct pv_error *err)
{
	struct zipc *z = pv_calloc(1, sizeof(*z));
	if (!z)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	z->in = in;
	uint64_t cd_size = 0;
	int rc = check_end(z, &cd_size, err);
	if (rc) {
		pv_free(z);
		return rc;
	}
	zip_error_t ze;
	zip_error_init(&ze);
	zip_source_t *src = zip_source_buffer_create(in->data, in->len, 0, &ze);
	if (src && !(z->za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze)))
		zip_source_free(src);
	if (!z->za) {
		rc = fail_byte(in, err, PV_EPARSE, z->cd_at, "the zip's central directory: %s",
			       zip_error_strerror(&ze));
		zip_error_fini(&ze);
		pv_free(z);
		return rc;
	}
	zip_error_fini(&ze);
	z->n = (size_t)zip_get_num_entries(z->za, 0);
	if (z->cd_at != 0xffffffff)
		walk_directory(z, cd_size);
	*out = z;
	return 0;
}

void zipc_close(struct zipc *z)
{
	if (!z)
		return;
	zip_discard(z->za);
	pv_free(z->local);
	pv_free(z);
}

size_t zipc_count(const struct zipc *z)
{
	return z->n;
}

const char *zipc_name(const struct zipc *z, size_t i)
{
	const char *s = zip_get_name(z->za, i, ZIP_FL_ENC_RAW);
	return s ? s : "";
}

bool zipc_is_content(const struct zipc *z, size_t i)
{
	const char *s = zipc_name(z, i);
	size_t n = strlen(s);
	const char *base = strrchr(s, '/');
	base = base ? base + 1 : s;
	return n && s[n - 1] != '/' && strncmp(s, "__MACOSX/", 9) != 0 &&
	       strncmp(base, "._", 2) != 0 && strcmp(base, ".DS_Store") != 0;
}

int64_t zipc_find(const struct zipc *z, const char *name)
{
	return zip_name_locate(z->za, name, ZIP_FL_ENC_RAW);
}

int zipc_fail(const struct zipc *z, size_t i, struct pv_error *err, int code, const char *fmt, ...)
{
	char what[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	uint64_t at = z->local && i < z->n ? z->local[i] : z->cd_at;
	return fail_byte(z->in, err, code, at, "%s: %s", zipc_name(z, i), what);
}

int zipc_read(struct zipc *z, size_t i, char **data, size_t *len, struct pv_error *err)
{
	zip_stat_t st;
	zip_stat_init(&st);
	if (zip_stat_index(z->za, i, 0, &st) || !(st.valid & ZIP_STAT_SIZE))
		return zipc_fail(z, i, err, PV_EPARSE, "no size in the zip's directory");
	if (st.size > PV_MAX_INPUT)
		return zipc_fail(z, i, err, PV_ELIMIT, "%" PRIu64 " bytes, over the %zu accepted",
				 (uint64_t)st.size, PV_MAX_INPUT);
	char *buf = pv_malloc((size_t)st.size + 1);
	if (!buf)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", z->in->name);
	zip_file_t *f = zip_fopen_index(z->za, i, 0);
	if (!f) {
		pv_free(buf);
		return zipc_fail(z, i, err, PV_EPARSE, "%s", zip_strerror(z->za));
	}
	zip_int64_t got = zip_fread(f, buf, st.size);
	/* a member longer than its directory says is damage as well */
	char extra;
	if (got != (zip_int64_t)st.size || zip_fread(f, &extra, 1) != 0) {
		int rc = zipc_fail(z, i, err, PV_EPARSE, "%s (the member is damaged or cut short)",
				   got < 0 ? zip_file_strerror(f) : "not of its directory's size");
		zip_fclose(f);
		pv_free(buf);
		return rc;
	}
	zip_fclose(f);
	buf[st.size] = 0;
	*data = buf;
	*len = (size_t)st.size;
	return 0;
}

char *zipc_trace_bundle(const struct zipc *z)
{
	for (size_t i = 0; i < z->n; i++) {
		if (!zipc_is_content(z, i))
			continue;
		const char *s = zipc_name(z, i);
		const char *t = strstr(s, ".trace/form.template");
		if (t && strcmp(t, ".trace/form.template") == 0) {
			size_t n = (size_t)(t - s) + strlen(".trace/");
			char *out = pv_malloc(n + 1);
			if (out) {
				memcpy(out, s, n);
				out[n] = 0;
			}
			return out;
		}
	}
	return NULL;
}

/* "a.json, b.json, ..." of the zip's content members, in buf. */
static void content_list(const struct zipc *z, char *buf, size_t size)
{
	size_t n = 0, k = 0;
	buf[0] = 0;
	for (size_t i = 0; i < z->n && n + 8 < size; i++) {
		if (!zipc_is_content(z, i))
			continue;
		int w = snprintf(buf + n, size - n, "%s%s", k++ ? ", " : "", zipc_name(z, i));
		n = w < 0 || (size_t)w >= size - n ? size - 1 : n + (size_t)w;
	}
}

/* The zip's one content member (its index), or an error saying what it holds. */
static int one_member(struct zipc *z, size_t *member, struct pv_error *err)
{
	size_t k = 0;
	for (size_t i = 0; i < z->n; i++)
		if (zipc_is_content(z, i)) {
			*member = i;
			k++;
		}
	if (k == 1)
		return 0;
	char list[200];
	content_list(z, list, sizeof(list));
	return fail_byte(z->in, err, PV_EFORMAT, z->cd_at,
			 "a zip of %zu files (%s): profview opens a zip that holds one profile "
			 "or an Instruments .trace bundle",
			 k, k ? list : "none");
}

int zipc_unwrap(struct pv_input *in, struct pv_input **inner, struct pv_error *err)
{
	struct zipc *z;
	int rc = zipc_open(in, &z, err);
	if (rc)
		return rc;
	char *bundle = zipc_trace_bundle(z);
	if (bundle) {
		pv_free(bundle);
		zipc_close(z);
		return 1;
	}
	size_t m = 0, len = 0;
	char *data = NULL;
	struct pv_input *out = NULL;
	rc = one_member(z, &m, err);
	if (!rc)
		rc = zipc_read(z, m, &data, &len, err);
	if (!rc) {
		/* the input and its name in one block: pv_free(out) frees both */
		size_t nl = strlen(in->name) + strlen(zipc_name(z, m)) + 2;
		out = pv_calloc(1, sizeof(*out) + nl);
		char *name = out ? (char *)(out + 1) : NULL;
		if (name)
			snprintf(name, nl, "%s:%s", in->name, zipc_name(z, m));
		rc = out ? input_from_memory(out, name, data, len, err)
			 : pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	}
	pv_free(data);
	zipc_close(z);
	if (rc) {
		pv_free(out);
		return rc;
	}
	*inner = out;
	return 0;
}

int zipc_maybe_inflate(char **data, size_t *len)
{
	const unsigned char *d = (const unsigned char *)*data;
	if (*len < 2 || d[0] != 0x78 || ((unsigned)d[0] << 8 | d[1]) % 31)
		return 0;
	size_t cap = *len * 4 + 64, n = 0;
	char *out = pv_malloc(cap + 1);
	if (!out)
		return PV_ENOMEM;
	z_stream s;
	memset(&s, 0, sizeof(s));
	if (inflateInit(&s) != Z_OK) {
		pv_free(out);
		return PV_ENOMEM;
	}
	s.next_in = (Bytef *)*data;
	s.avail_in = (uInt)*len;
	int zr = Z_OK;
	while (zr == Z_OK) {
		if (n == cap) {
			char *g = cap < PV_MAX_INPUT ? pv_realloc(out, cap * 2 + 1) : NULL;
			if (!g)
				break;
			out = g;
			cap *= 2;
		}
		s.next_out = (Bytef *)out + n;
		s.avail_out = (uInt)(cap - n);
		zr = inflate(&s, Z_NO_FLUSH);
		n = cap - s.avail_out;
	}
	inflateEnd(&s);
	if (zr != Z_STREAM_END || s.avail_in) { /* not a zlib stream: the bytes as they are */
		pv_free(out);
		return 0;
	}
	out[n] = 0;
	pv_free(*data);
	*data = out;
	*len = n;
	return 0;
}
