/*
 * cache.c - the import options and the snapshot cache (--cache DIR, pv/import.h).
 *
 * An entry is DIR/<16 hex digits>.pvs, the digits a hash of the file's resolved path and the
 * forced format; the snapshot's source section holds the path, size, modification time and
 * format it was made from, and an entry whose source differs is a miss (the file changed, or two
 * paths share a hash) and is written over. Entries are written through a renamed temporary
 * file, so processes that share a cache folder see whole entries only.
 *
 * The folder and its entries must be the user's, as ssh and gpg want theirs: a folder owned by
 * this user that no one else may write (made 0700 when missing), an entry that is a regular file
 * owned by this user (pv/output.h's rule: no link, no FIFO). Else a note says why and the file is
 * imported without the cache: an entry another user put there is never opened.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "import/importer.h"
#include "pv/import.h"
#include "pv/output.h"
#include "pv/snapshot.h"

int pv_import_set_option(struct pv_import_opts *o, const char *name, const char *value,
			 struct pv_error *err)
{
	if (strcmp(name, "no-symbols") == 0) {
		o->no_symbols = true;
		return 0;
	}
	if (strcmp(name, "symbols") == 0) {
		if (!value || !*value)
			return pv_error_set(err, PV_EINVAL, "--symbols takes a folder");
		if (o->nr_symbol_dirs == PV_SYMBOL_DIRS)
			return pv_error_set(err, PV_EINVAL, "--symbols: at most %d folders",
					    PV_SYMBOL_DIRS);
		o->symbol_dirs[o->nr_symbol_dirs++] = value;
		return 0;
	}
	if (strcmp(name, "vmlinux") == 0) {
		/* a file the user named must be there (perf's symbol__validate_sym_arguments) */
		if (!value || !*value)
			return pv_error_set(err, PV_EINVAL, "--vmlinux takes a file");
		if (access(value, R_OK) != 0)
			return pv_error_set(err, PV_EINVAL, "--vmlinux %s: %s", value,
					    strerror(errno));
		o->vmlinux = value;
		return 0;
	}
	if (strcmp(name, "format") != 0 && strcmp(name, "cache") != 0)
		return 1;
	if (!value || !*value)
		return pv_error_set(err, PV_EINVAL, "--%s takes %s, not an empty value", name,
				    *name == 'f' ? "a format name (see 'profview formats')"
						 : "a folder");
	if (*name == 'f')
		o->format = value;
	else
		o->cache_dir = value;
	return 0;
}

/* A hit: the entry's snapshot, when it was made from src and opens. */
static int cache_hit(const char *entry, const struct pv_snapshot_source *src,
		     const struct pv_import_opts *o, struct pv_profile **out, struct pv_error *note)
{
	struct pv_input in;
	struct pv_error e;
	if (input_open(&in, entry, &e))
		return 0; /* no entry yet (or unreadable: written over below) */
	int match = snapshot_source_matches(&in, src, &e);
	input_close(&in);
	if (match < 0)
		pv_error_set(note, e.code, "cache: %s (imported again)", e.msg);
	if (match <= 0)
		return 0;
	/* its checksums all verified now: a damaged entry is one to import again */
	if (pv_import_file_progress(entry, "snapshot", o->progress, out, &e) == 0) {
		if (pv_profile_check(*out, &e) == 0)
			return 1;
		pv_profile_free(*out);
		*out = NULL;
	}
	pv_error_set(note, e.code, "cache: %s (imported again)", e.msg);
	return 0;
}

/*
 * 0 when the cache folder dir (made when missing) and its entry may be used, else PV_EIO with a
 * note saying why not.
 */
static int cache_refused(const char *dir, const char *entry, struct pv_error *note)
{
	struct stat st;
	if (stat(dir, &st) != 0) {
		if (errno != ENOENT || (mkdir(dir, 0700) != 0 && errno != EEXIST) ||
		    stat(dir, &st) != 0)
			return pv_error_set(note, PV_EIO, "cache: %s: cannot make the folder: %s",
					    dir, strerror(errno));
	}
	uid_t me = geteuid();
	if (!S_ISDIR(st.st_mode))
		return pv_error_set(note, PV_EIO, "cache: %s: not a folder: no cache", dir);
	if (st.st_uid != me)
		return pv_error_set(
		    note, PV_EIO, "cache: %s: owned by uid %u, not by this user (uid %u): no cache",
		    dir, (unsigned)st.st_uid, (unsigned)me);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return pv_error_set(note, PV_EIO,
				    "cache: %s: others may write it (mode %03o): no cache", dir,
				    (unsigned)(st.st_mode & 0777));
	struct pv_error e;
	if (pv_output_check(entry, &e))
		return pv_error_set(note, PV_EIO, "cache: %s", e.msg);
	if (lstat(entry, &st) == 0 && st.st_uid != me)
		return pv_error_set(
		    note, PV_EIO, "cache: %s: owned by uid %u, not by this user (uid %u): not used",
		    entry, (unsigned)st.st_uid, (unsigned)me);
	return 0;
}

int pv_import_open(const char *path, const struct pv_import_opts *o, struct pv_profile **out,
		   struct pv_error *err, struct pv_error *note)
{
	pv_error_clear(note);
	struct stat st;
	char real[PATH_MAX];
	if (o->nr_symbol_dirs || o->no_symbols || o->vmlinux || (o->no_contexts && !o->cache_dir))
		return import_path(path, o, out, err);
	if (!o->cache_dir || strcmp(path, "-") == 0 || stat(path, &st) != 0 ||
	    !S_ISREG(st.st_mode) || !realpath(path, real))
		return pv_import_file_progress(path, o->format, o->progress, out, err);
	struct pv_snapshot_source src = {
	    .path = real,
	    .format = o->format ? o->format : "",
	    .size = (uint64_t)st.st_size,
	    .mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
	};
	size_t rl = strlen(real), fl = strlen(src.format);
	size_t el = strlen(o->cache_dir) + 24;
	char *key = pv_malloc(rl + fl + 2), *entry = pv_malloc(el);
	if (!key || !entry) {
		pv_free(key);
		pv_free(entry);
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", path);
	}
	memcpy(key, real, rl + 1);
	memcpy(key + rl + 1, src.format, fl + 1);
	snprintf(entry, el, "%s/%016llx.pvs", o->cache_dir,
		 (unsigned long long)hash_bytes(key, rl + fl + 2));
	pv_free(key);
	int rc = 0;
	if (cache_refused(o->cache_dir, entry, note)) {
		rc = pv_import_file_progress(path, o->format, o->progress, out, err);
	} else if (!cache_hit(entry, &src, o, out, note)) {
		rc = pv_import_file_progress(path, o->format, o->progress, out, err);
		struct pv_error e;
		if (!rc && !(*out)->storage.base && /* a snapshot itself is not copied */
		    pv_snapshot_write(*out, entry, &src, &e))
			pv_error_set(note, e.code, "cache: %s", e.msg);
	}
	pv_free(entry);
	return rc;
}
