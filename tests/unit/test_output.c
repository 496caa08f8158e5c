/*
 * test_output.c - where profview writes (pv/output.h): a snapshot, an export or a cache entry
 * goes only to a regular file or a new name. A FIFO, a socket, a folder, a device and a symbolic
 * link (to a file or to nothing) are refused with one line naming the path, and are still there
 * afterwards, untouched; new files get 0666 less the umask; a write that fails names the output
 * path and the system's reason; the --cache folder and its entries are used only when they are
 * the user's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "pv/import.h"
#include "pv/output.h"
#include "pv/snapshot.h"
#include "t.h"
#include "tbin.h"
#include "tp.h"

/* A private folder /tmp/pv-output-XXXXXX (dir: 64 bytes) with a small profile in it. */
static struct pv_profile *out_setup(char *dir)
{
	snprintf(dir, 64, "/tmp/pv-output-XXXXXX");
	if (!mkdtemp(dir)) {
		t_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		dir[0] = 0;
		return NULL;
	}
	static const char text[] = "main;work 3\nmain;rest 1\n";
	return t_load_mem("prof.txt", text, sizeof(text) - 1);
}

static const char *at(const char *dir, const char *name)
{
	static char buf[4][256];
	static int i;
	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* A snapshot of p written at snap, an export opened at text: both succeed. */
static void write_both(const struct pv_profile *p, const char *snap, const char *text)
{
	struct pv_error err;
	T_EQ_INT(pv_snapshot_write(p, snap, NULL, &err), 0);
	FILE *out = pv_output_open(text, &err);
	T_TRUE(out != NULL);
	if (out)
		fclose(out);
}

/* path holding text */
static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	T_TRUE(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* How many names of dir start with prefix */
static int count_names(const char *dir, const char *prefix)
{
	char cmd[640], path[256];
	snprintf(path, sizeof(path), "%s/count", dir);
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^%s' > '%s'", dir, prefix, path);
	if (system(cmd) < 0)
		return -1;
	char *t = t_read_file(path, NULL);
	int n = t ? atoi(t) : -1;
	free(t);
	unlink(path);
	return n;
}

/* Every kind of path that is not a regular file: refused by the check, by the snapshot writer
 * and by the export's open, with the same line; each is still what it was. */
T_TEST(output_not_a_file)
{
	char dir[64];
	struct pv_profile *p = out_setup(dir);
	if (!p)
		return;
	/* a FIFO, a socket, a folder, a link to a file, a dangling link, a device */
	T_EQ_INT(mkfifo(at(dir, "fifo"), 0644), 0);
	int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at(dir, "sock"));
	T_EQ_INT(bind(sfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	T_EQ_INT(mkdir(at(dir, "folder"), 0755), 0);
	put(at(dir, "target"), "keep me\n");
	T_EQ_INT(symlink(at(dir, "target"), at(dir, "link")), 0);
	T_EQ_INT(symlink(at(dir, "nowhere"), at(dir, "dangling")), 0);
	static const struct {
		const char *name, *kind;
		mode_t type;
	} cases[] = {
	    {"fifo", "a FIFO", S_IFIFO},
	    {"sock", "a socket", S_IFSOCK},
	    {"folder", "a folder", S_IFDIR},
	    {"link", "a symbolic link", S_IFLNK},
	    {"dangling", "a symbolic link", S_IFLNK},
	    {"/dev/null", "a character device", S_IFCHR},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = cases[i].name[0] == '/' ? cases[i].name : at(dir, cases[i].name);
		char want[512];
		snprintf(want, sizeof(want), "%s: %s, not a regular file: not written", path,
			 cases[i].kind);
		struct pv_error err;
		pv_error_clear(&err);
		T_EQ_INT(pv_output_check(path, &err), PV_EIO);
		T_EQ_STR(err.msg, want);
		pv_error_clear(&err);
		T_EQ_INT(pv_snapshot_write(p, path, NULL, &err), PV_EIO);
		T_EQ_STR(err.msg, want);
		pv_error_clear(&err);
		FILE *out = pv_output_open(path, &err);
		T_TRUE(out == NULL);
		if (out)
			fclose(out);
		T_EQ_STR(err.msg, want);
		struct stat st;
		T_EQ_INT(lstat(path, &st), 0);
		T_EQ_INT(st.st_mode & S_IFMT, cases[i].type);
	}
	char *t = t_read_file(at(dir, "target"), NULL);
	T_EQ_STR(t, "keep me\n");
	free(t);
	T_EQ_INT(access(at(dir, "nowhere"), F_OK), -1);
	T_EQ_INT(count_names(dir, ".*tmp-"), 0);
	/* a new name is checked against its folder, before any work: missing, not a folder */
	static const struct {
		const char *name;
		int why;
	} folders[] = {{"no/such.pvs", ENOENT}, {"target/x.pvs", ENOTDIR}};
	for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++) {
		char want[512];
		snprintf(want, sizeof(want), "%s: cannot write: %s", at(dir, folders[i].name),
			 strerror(folders[i].why));
		struct pv_error err;
		pv_error_clear(&err);
		T_EQ_INT(pv_output_check(at(dir, folders[i].name), &err), PV_EIO);
		T_EQ_STR(err.msg, want);
	}
	struct pv_error ok;
	T_EQ_INT(pv_output_check(at(dir, "new-name.pvs"), &ok), 0);
	/* a regular file and a new name: written */
	write_both(p, at(dir, "target"), at(dir, "new.txt"));
	/* new files get 0666 less the umask, set by the kernel (no umask(0) window for other
	 * threads): a snapshot through its temporary file as an export */
	mode_t old = umask(027);
	write_both(p, at(dir, "new.pvs"), at(dir, "new2.txt"));
	umask(old);
	struct stat st;
	T_EQ_INT(stat(at(dir, "new.pvs"), &st), 0);
	T_EQ_INT(st.st_mode & 0777, 0640);
	T_EQ_INT(stat(at(dir, "new2.txt"), &st), 0);
	T_EQ_INT(st.st_mode & 0777, 0640);
	close(sfd);
	pv_profile_free(p);
	tb_remove(dir);
}

/* A write that fails (past the file size limit: EFBIG) names the output and the reason; the
 * file that was there is left whole and no temporary file stays. */
T_TEST(output_write_error)
{
	char dir[64];
	struct pv_profile *p = out_setup(dir);
	if (!p)
		return;
	const char *path = at(dir, "out.pvs");
	put(path, "old\n");
	struct rlimit old, lim;
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 512;
	void (*h)(int) = signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &lim);
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_snapshot_write(p, path, NULL, &err);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, h);
	T_EQ_INT(rc, PV_EIO);
	char want[512];
	snprintf(want, sizeof(want), "%s: cannot write: %s", path, strerror(EFBIG));
	T_EQ_STR(err.msg, want);
	char *t = t_read_file(path, NULL);
	T_EQ_STR(t, "old\n");
	free(t);
	T_EQ_INT(count_names(dir, ".*tmp-"), 0);
	/* a folder that does not exist: ENOENT, naming the output */
	pv_error_clear(&err);
	T_EQ_INT(pv_snapshot_write(p, at(dir, "no/such.pvs"), NULL, &err), PV_EIO);
	snprintf(want, sizeof(want), "%s: cannot write: %s", at(dir, "no/such.pvs"),
		 strerror(ENOENT));
	T_EQ_STR(err.msg, want);
	pv_profile_free(p);
	tb_remove(dir);
}

/* The one entry (NAME.pvs) of cache folder dir, into buf; false when there is not exactly one. */
static bool cache_entry(const char *dir, char *buf, size_t n)
{
	DIR *d = opendir(dir);
	int found = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l > 4 && strcmp(e->d_name + l - 4, ".pvs") == 0) {
			snprintf(buf, n, "%s/%s", dir, e->d_name);
			found++;
		}
	}
	if (d)
		closedir(d);
	return found == 1;
}

/* pv_import_open of path with --cache dir: the note, and whether it came from the cache. */
static struct pv_profile *cached_open(const char *path, const char *dir, struct pv_error *note)
{
	struct pv_import_opts o = {.cache_dir = dir};
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_open(path, &o, &p, &err, note), 0);
	return p;
}

#define FOREIGN 4321 /* a uid that is not this process's (the tests may run as root) */

/*
 * Another user's entry in the cache folder, made to look like this file's (same source path,
 * size and time: another profile inside): never opened; the file is imported, a note says why,
 * and the entry is left as it is. The same for a link in place of an entry.
 */
T_TEST(output_cache_foreign_entry)
{
	char dir[64];
	struct pv_profile *p = out_setup(dir);
	if (!p)
		return;
	pv_profile_free(p);
	const char *src = at(dir, "mine.txt"), *cache = at(dir, "cache");
	put(src, "mine 5\n");
	struct pv_error note;
	p = cached_open(src, cache, &note);
	T_EQ_STR(note.msg, "");
	pv_profile_free(p);
	struct stat st;
	T_EQ_INT(stat(cache, &st), 0);
	T_EQ_INT(st.st_mode & 0777, 0700); /* made private */
	char entry[256];
	T_TRUE(cache_entry(cache, entry, sizeof(entry)));
	/* the other user's: a profile of theirs, recorded as made from mine.txt */
	static const char theirs[] = "theirs 7\n";
	struct pv_profile *q = t_load_mem("theirs.txt", theirs, sizeof(theirs) - 1);
	char real[4096];
	T_TRUE(realpath(src, real) != NULL);
	T_EQ_INT(stat(src, &st), 0);
	struct pv_snapshot_source s = {.path = real,
				       .format = "",
				       .size = (uint64_t)st.st_size,
				       .mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
						   st.st_mtim.tv_nsec};
	struct pv_error err;
	T_EQ_INT(q ? pv_snapshot_write(q, entry, &s, &err) : -1, 0);
	pv_profile_free(q);
	/* while it is this user's it is used (what the ownership rule guards) ... */
	p = cached_open(src, cache, &note);
	T_TRUE(p && p->storage.base != NULL);
	T_TRUE(p && t_find_func(p, "theirs") != PV_NONE);
	pv_profile_free(p);
	/* ... once another user's, never */
	T_EQ_INT(chown(entry, FOREIGN, FOREIGN), 0);
	p = cached_open(src, cache, &note);
	T_TRUE(p && p->storage.base == NULL);
	T_TRUE(p && t_find_func(p, "mine") != PV_NONE && t_find_func(p, "theirs") == PV_NONE);
	pv_profile_free(p);
	char want[512];
	snprintf(want, sizeof(want),
		 "cache: %s: owned by uid %u, not by this user (uid %u): not used", entry,
		 (unsigned)FOREIGN, (unsigned)geteuid());
	T_EQ_STR(note.msg, want);
	T_EQ_INT(lstat(entry, &st), 0);
	T_EQ_INT(st.st_uid, FOREIGN);
	/* a link in the entry's place: neither followed nor replaced */
	T_EQ_INT(unlink(entry), 0);
	T_EQ_INT(symlink(at(dir, "elsewhere.pvs"), entry), 0);
	p = cached_open(src, cache, &note);
	T_TRUE(p && p->storage.base == NULL);
	pv_profile_free(p);
	snprintf(want, sizeof(want), "cache: %s: a symbolic link, not a regular file: not written",
		 entry);
	T_EQ_STR(note.msg, want);
	T_EQ_INT(lstat(entry, &st), 0);
	T_TRUE(S_ISLNK(st.st_mode));
	T_EQ_INT(access(at(dir, "elsewhere.pvs"), F_OK), -1);
	tb_remove(dir);
}

/* A cache folder of another user's, one others may write, or a file: no cache, a note, nothing
 * written there. */
T_TEST(output_cache_foreign_folder)
{
	char dir[64];
	struct pv_profile *p = out_setup(dir);
	if (!p)
		return;
	pv_profile_free(p);
	const char *src = at(dir, "mine.txt"), *cache = at(dir, "cache");
	put(src, "mine 5\n");
	T_EQ_INT(mkdir(cache, 0755), 0);
	T_EQ_INT(chown(cache, FOREIGN, FOREIGN), 0);
	struct pv_error note;
	char want[512], entry[256];
	p = cached_open(src, cache, &note);
	T_TRUE(p != NULL);
	pv_profile_free(p);
	snprintf(want, sizeof(want),
		 "cache: %s: owned by uid %u, not by this user (uid %u): no cache", cache,
		 (unsigned)FOREIGN, (unsigned)geteuid());
	T_EQ_STR(note.msg, want);
	T_TRUE(!cache_entry(cache, entry, sizeof(entry)));
	/* this user's, but anyone may write it (a shared /tmp-like folder) */
	T_EQ_INT(chown(cache, geteuid(), getegid()), 0);
	T_EQ_INT(chmod(cache, 01777), 0);
	p = cached_open(src, cache, &note);
	pv_profile_free(p);
	snprintf(want, sizeof(want), "cache: %s: others may write it (mode 777): no cache", cache);
	T_EQ_STR(note.msg, want);
	T_TRUE(!cache_entry(cache, entry, sizeof(entry)));
	T_EQ_INT(chmod(cache, 0775), 0);
	p = cached_open(src, cache, &note);
	pv_profile_free(p);
	snprintf(want, sizeof(want), "cache: %s: others may write it (mode 775): no cache", cache);
	T_EQ_STR(note.msg, want);
	/* a file */
	p = cached_open(src, src, &note);
	pv_profile_free(p);
	snprintf(want, sizeof(want), "cache: %s: not a folder: no cache", src);
	T_EQ_STR(note.msg, want);
	/* made private again: used */
	T_EQ_INT(chmod(cache, 0755), 0);
	p = cached_open(src, cache, &note);
	pv_profile_free(p);
	T_EQ_STR(note.msg, "");
	T_TRUE(cache_entry(cache, entry, sizeof(entry)));
	tb_remove(dir);
}

/*
 * The one escaping rule (pv/error.h) every text printer and the TUI use: C0, DEL and C1 (as
 * UTF-8) escaped, other text (UTF-8 letters, a lone byte of broken UTF-8) as it is; pv_escaped
 * hands back the name itself when there is nothing to escape, whatever its length.
 */
T_TEST(output_escape_rule)
{
	char buf[64], esc[8];
	pv_escape_controls(buf, sizeof(buf),
			   "a\x1b]0;t\x07"
			   "b\x1b[2J\n\t\r\x7f"
			   "c\xc2\x9b"
			   "d");
	T_EQ_STR(buf, "a\\x1b]0;t\\x07b\\x1b[2J\\n\\t\\r\\x7fc\\u009bd");
	/* é (c3 a9), Ā (c4 80), a lone 0x9b: not control characters */
	pv_escape_controls(buf, sizeof(buf), "\xc3\xa9\xc4\x80\x9b");
	T_EQ_STR(buf, "\xc3\xa9\xc4\x80\x9b");
	size_t len = 0;
	T_EQ_INT(pv_control_escape("\xc2\x85x", 3, esc, &len), 6);
	T_EQ_STR(esc, "\\u0085");
	T_EQ_INT(len, 2);
	T_EQ_INT(pv_control_escape("\xc2\xa0", 2, esc, &len), 0);
	T_EQ_INT(pv_control_escape("\xc2", 1, esc, &len), 0);
	/* cut short when full: never half an escape */
	char small[6];
	pv_escape_controls(small, sizeof(small),
			   "ab\x1b"
			   "c");
	T_EQ_STR(small, "ab");
	/* a clean name of any length: itself, not copied or cut */
	static char big[10000];
	memset(big, 'x', sizeof(big) - 1);
	T_TRUE(pv_escaped(buf, sizeof(buf), big) == big);
	T_EQ_STR(pv_escaped(buf, sizeof(buf), "f\x1b"), "f\\x1b");
	T_EQ_STR(pv_escaped(buf, sizeof(buf), NULL), "");
}
