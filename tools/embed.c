/*
 * embed.c - build-time generator: every file under a folder (web/assets/) becomes one entry of
 * pv_assets[] (struct pv_asset, web/api.h) in a generated C file.
 *
 *   embed ASSETS_DIR OUT.c DEPFILE
 *
 * The folder is walked (no hand-kept list), in sorted order so the output is deterministic;
 * hidden files and editor backups (".*", "*~", "#*") are skipped. The depfile names every file and
 * every folder (a new file changes its folder's mtime), so ninja reruns the generator when the
 * assets change; OUT.c is rewritten only when its text changed, so nothing recompiles otherwise.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct buf {
	char *p;
	size_t len, cap;
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("embed: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (b->len + n + 1 > cap)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			die("out of memory");
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void putf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct buf *b, const char *fmt, ...)
{
	char tmp[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		die("line too long");
	put(b, tmp, (size_t)n);
}

/* the list of files (paths relative to the root) and folders (full paths, for the depfile) */
struct list {
	char **v;
	size_t len, cap;
};

static void list_add(struct list *l, char *s)
{
	if (l->len == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			die("out of memory");
	}
	l->v[l->len++] = s;
}

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);
	if (!s)
		die("out of memory");
	memcpy(s, a, la);
	size_t n = la;
	if (la && lb)
		s[n++] = '/';
	memcpy(s + n, b, lb + 1);
	return s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(const char *root, const char *rel, struct list *files, struct list *dirs)
{
	char *full = join(root, rel);
	DIR *d = opendir(full);
	if (!d && errno == ENOENT && !*rel) { /* no assets yet: an empty table */
		free(full);
		return;
	}
	if (!d)
		die("cannot open folder '%s': %s", full, strerror(errno));
	list_add(dirs, full);
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		size_t ln = strlen(n);
		if (n[0] == '.' || n[0] == '#' || (ln && n[ln - 1] == '~'))
			continue;
		char *r = join(rel, n);
		char *f = join(root, r);
		struct stat st;
		if (stat(f, &st) != 0)
			die("cannot stat '%s': %s", f, strerror(errno));
		free(f);
		if (S_ISDIR(st.st_mode)) {
			walk(root, r, files, dirs);
			free(r);
		} else if (S_ISREG(st.st_mode)) {
			list_add(files, r);
		} else {
			free(r);
		}
	}
	closedir(d);
}

static const char *content_type(const char *path)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
	    {".html", "text/html; charset=utf-8"},
	    {".js", "text/javascript; charset=utf-8"},
	    {".mjs", "text/javascript; charset=utf-8"},
	    {".css", "text/css; charset=utf-8"},
	    {".svg", "image/svg+xml"},
	    {".png", "image/png"},
	    {".json", "application/json; charset=utf-8"},
	    {".ico", "image/x-icon"},
	    {".txt", "text/plain; charset=utf-8"},
	};
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	if (dot && (!slash || dot > slash))
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (strcmp(dot, types[i].ext) == 0)
				return types[i].type;
	return "application/octet-stream";
}

/* a C string literal of s (paths only: printable ASCII is kept, the rest escaped) */
static void put_cstr(struct buf *b, const char *s)
{
	put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			putf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f || c == '?')
			putf(b, "\\%03o", c);
		else
			put(b, (const char *)&c, 1);
	}
	put(b, "\"", 1);
}

/* a depfile path: spaces, '#', '$' and ':' escaped the way ninja reads them */
static void put_dep(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '#' || *s == '\\')
			put(b, "\\", 1);
		if (*s == '$')
			put(b, "$", 1);
		put(b, s, 1);
	}
}

static void read_file(const char *path, struct buf *out)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("cannot open '%s': %s", path, strerror(errno));
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		put(out, tmp, n);
	if (ferror(f))
		die("cannot read '%s'", path);
	fclose(f);
}

/* writes path only when its content differs from b (keeps the mtime otherwise) */
static void write_if_changed(const char *path, const struct buf *b)
{
	FILE *f = fopen(path, "rb");
	if (f) {
		struct buf old = {0};
		fclose(f);
		read_file(path, &old);
		int same = old.len == b->len && (b->len == 0 || memcmp(old.p, b->p, b->len) == 0);
		free(old.p);
		if (same)
			return;
	}
	size_t lp = strlen(path);
	char *tmp = malloc(lp + 5);
	if (!tmp)
		die("out of memory");
	memcpy(tmp, path, lp);
	memcpy(tmp + lp, ".tmp", 5);
	f = fopen(tmp, "wb");
	if (!f)
		die("cannot write '%s': %s", tmp, strerror(errno));
	if (fwrite(b->p ? b->p : "", 1, b->len, f) != b->len || fclose(f) != 0)
		die("cannot write '%s'", tmp);
	if (rename(tmp, path) != 0)
		die("cannot rename '%s': %s", tmp, strerror(errno));
	free(tmp);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		die("usage: embed ASSETS_DIR OUT.c DEPFILE");
	const char *root = argv[1], *out_path = argv[2], *dep_path = argv[3];
	struct list files = {0}, dirs = {0};
	walk(root, "", &files, &dirs);
	if (files.len)
		qsort(files.v, files.len, sizeof(*files.v), cmp_str);

	struct buf c = {0};
	putf(&c, "/* generated by tools/embed.c from %s: do not edit */\n", "web/assets");
	put(&c, "#include \"api.h\"\n\n", 18);
	for (size_t i = 0; i < files.len; i++) {
		char *full = join(root, files.v[i]);
		struct buf data = {0};
		read_file(full, &data);
		free(full);
		putf(&c, "static const unsigned char asset_%zu[%zu] = {", i,
		     data.len ? data.len : 1);
		for (size_t j = 0; j < data.len; j++)
			putf(&c, "%s%u,", j % 20 == 0 ? "\n\t" : "", (unsigned char)data.p[j]);
		if (!data.len)
			put(&c, "0", 1);
		put(&c, "\n};\n", 4);
		free(data.p);
		putf(&c, "#define ASSET_%zu_LEN %zu\n\n", i, data.len);
	}
	put(&c, "const struct pv_asset pv_assets[] = {\n", 38);
	for (size_t i = 0; i < files.len; i++) {
		put(&c, "\t{", 2);
		put_cstr(&c, files.v[i]);
		putf(&c, ", \"%s\", asset_%zu, ASSET_%zu_LEN},\n", content_type(files.v[i]), i, i);
	}
	if (!files.len)
		put(&c, "\t{\"\", \"\", 0, 0},\n", 17);
	putf(&c, "};\nconst size_t pv_nr_assets = %zu;\n", files.len);
	write_if_changed(out_path, &c);

	struct buf d = {0};
	put_dep(&d, out_path);
	put(&d, ":", 1);
	for (size_t i = 0; i < dirs.len; i++) {
		put(&d, " \\\n ", 4);
		put_dep(&d, dirs.v[i]);
	}
	for (size_t i = 0; i < files.len; i++) {
		char *full = join(root, files.v[i]);
		put(&d, " \\\n ", 4);
		put_dep(&d, full);
		free(full);
	}
	put(&d, "\n", 1);
	write_if_changed(dep_path, &d);

	for (size_t i = 0; i < files.len; i++)
		free(files.v[i]);
	for (size_t i = 0; i < dirs.len; i++)
		free(dirs.v[i]);
	free(files.v);
	free(dirs.v);
	free(c.p);
	free(d.p);
	return 0;
}
