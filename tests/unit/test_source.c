/*
 * pv_source_open / pv_source_read (include/pv/source.h): a name from a profile reaches only regular
 * files beneath the allowed folders — never through "..", a symbolic link (of a file or of a
 * folder), the working directory, /proc, a FIFO or past the size limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pv/source.h"
#include "t.h"

static char root[64], other[64];

static void put(const char *dir, const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	if (!f) {
		t_fail(__FILE__, __LINE__, "cannot write %s: %s", path, strerror(errno));
		return;
	}
	fputs(text, f);
	fclose(f);
}

static void sub(const char *dir, const char *rel)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	T_TRUE(mkdir(path, 0700) == 0);
}

/* root/: a.c, src/b.c, src/deep/c.c, link.c -> other/secret.c, linkdir -> other, fifo;
 * other/: secret.c (outside every root) */
static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/pv-src-XXXXXX");
	snprintf(other, sizeof(other), "/tmp/pv-out-XXXXXX");
	T_TRUE(mkdtemp(root) != NULL);
	T_TRUE(mkdtemp(other) != NULL);
	put(root, "a.c", "int a;\n");
	sub(root, "src");
	put(root, "src/b.c", "int b;\n");
	sub(root, "src/deep");
	put(root, "src/deep/c.c", "int c;\n");
	put(other, "secret.c", "secret\n");
	char path[256], target[256];
	snprintf(path, sizeof(path), "%s/link.c", root);
	snprintf(target, sizeof(target), "%s/secret.c", other);
	T_TRUE(symlink(target, path) == 0);
	snprintf(path, sizeof(path), "%s/linkdir", root);
	T_TRUE(symlink(other, path) == 0);
	snprintf(path, sizeof(path), "%s/fifo", root);
	T_TRUE(mkfifo(path, 0600) == 0);
}

static void teardown(void)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", root, other);
	T_EQ_INT(system(cmd), 0);
}

/* The text pv_source_read gives for name, or "(none)". */
static const char *read_text(const char *name, const char *const *roots, uint32_t n, size_t max)
{
	static char buf[256];
	char *data;
	size_t len;
	if (pv_source_read(name, roots, n, max, &data, &len))
		return "(none)";
	snprintf(buf, sizeof(buf), "%.*s", (int)len, data);
	free(data);
	return buf;
}

T_TEST(source_found_beneath_the_roots)
{
	setup();
	const char *roots[] = {root};
	char name[256];
	T_EQ_STR(read_text("a.c", roots, 1, 1 << 20), "int a;\n");
	T_EQ_STR(read_text("./src/b.c", roots, 1, 1 << 20), "int b;\n");
	/* an absolute path beneath the root is that file */
	snprintf(name, sizeof(name), "%s/src/deep/c.c", root);
	T_EQ_STR(read_text(name, roots, 1, 1 << 20), "int c;\n");
	snprintf(name, sizeof(name), "file://%s/src/b.c", root);
	T_EQ_STR(read_text(name, roots, 1, 1 << 20), "int b;\n");
	/* recorded elsewhere: the longest trailing part found beneath the root */
	T_EQ_STR(read_text("/build/machine/proj/src/deep/c.c", roots, 1, 1 << 20), "int c;\n");
	T_EQ_STR(read_text("/home/u/proj/a.c", roots, 1, 1 << 20), "int a;\n");
	/* the second root when the first has nothing */
	const char *two[] = {other, root};
	T_EQ_STR(read_text("/x/src/b.c", two, 2, 1 << 20), "int b;\n");
	/* the size limit */
	T_EQ_STR(read_text("a.c", roots, 1, 3), "(none)");
	teardown();
}

T_TEST(source_never_leaves_the_roots)
{
	setup();
	const char *roots[] = {root};
	char name[256];
	const char *base = strrchr(other, '/') + 1;
	/* ".." out of the root, in a relative and in an absolute name */
	snprintf(name, sizeof(name), "../%s/secret.c", base);
	T_EQ_STR(read_text(name, roots, 1, 1 << 20), "(none)");
	snprintf(name, sizeof(name), "%s/../%s/secret.c", root, base);
	T_EQ_STR(read_text(name, roots, 1, 1 << 20), "(none)");
	snprintf(name, sizeof(name), "src/../../%s/secret.c", base);
	T_EQ_STR(read_text(name, roots, 1, 1 << 20), "(none)");
	/* after a "..", only what follows it, still beneath the root */
	T_EQ_STR(read_text("../../src/b.c", roots, 1, 1 << 20), "int b;\n");
	/* a symbolic link to a file, and through a linked folder */
	T_EQ_STR(read_text("link.c", roots, 1, 1 << 20), "(none)");
	T_EQ_STR(read_text("linkdir/secret.c", roots, 1, 1 << 20), "(none)");
	snprintf(name, sizeof(name), "%s/linkdir/secret.c", root);
	T_EQ_STR(read_text(name, roots, 1, 1 << 20), "(none)");
	/* an absolute path outside every root: its trailing parts only, none of them here */
	snprintf(name, sizeof(name), "%s/secret.c", other);
	T_EQ_STR(read_text(name, roots, 1, 1 << 20), "(none)");
	/* not a regular file: a FIFO (no hang), a folder */
	T_EQ_STR(read_text("fifo", roots, 1, 1 << 20), "(none)");
	T_EQ_STR(read_text("src", roots, 1, 1 << 20), "(none)");
	/* never from the working directory */
	char cwd[4096];
	T_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	T_TRUE(chdir(other) == 0);
	T_EQ_STR(read_text("secret.c", roots, 1, 1 << 20), "(none)");
	T_EQ_STR(read_text("secret.c", NULL, 0, 1 << 20), "(none)");
	T_TRUE(chdir(cwd) == 0);
	teardown();
}

T_TEST(source_proc_is_not_served)
{
	/* even with "/" allowed: /proc/self is a symbolic link, and a /proc file's size is 0 */
	const char *slash[] = {"/"};
	T_EQ_STR(read_text("/proc/self/environ", slash, 1, 1 << 20), "(none)");
	char name[64];
	snprintf(name, sizeof(name), "/proc/%d/environ", (int)getpid());
	T_EQ_STR(read_text(name, slash, 1, 1 << 20), "");
	const char *proc[] = {"/proc"};
	T_EQ_STR(read_text("self/environ", proc, 1, 1 << 20), "(none)");
}
