#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/text.h"
#include "import/importer.h"
#include "import/json.h"
#include "import/symbols.h"
#include "import/zip.h"
#include "pv/import.h"

/* one importer a line (clang-format would pack them into columns that every new row reflows) */
// clang-format off
static const struct importer *const importers[] = {
	&importer_firefox_processed,
	&importer_firefox_gecko,
	&importer_chrome,
	&importer_speedscope,
	&importer_pprof,
	&importer_pprof_legacy,
	&importer_callgrind,
	&importer_hpctoolkit_v4,
	&importer_hpctoolkit_summary,
	&importer_hpctoolkit_xml,
	&importer_perf_data,
	&importer_perf_script,
	&importer_instruments,
	&importer_instruments_trace,
	&importer_jfr,
	&importer_collapsed,
	/* the Firefox Profiler's other formats */
	&importer_dhat,
	&importer_art_trace,
	/* speedscope's other formats */
	&importer_stackprof,
	&importer_pmcstat,
	&importer_ghc,
	&importer_papyrus,
	&importer_safari,
	&importer_v8log,
	&importer_simpleperf,
	&importer_v8raw,
	&importer_snapshot, /* its magic is like no other format's: last in the lists */
};
// clang-format on

#define NR_IMPORTERS (sizeof(importers) / sizeof(importers[0]))

size_t pv_importer_count(void)
{
	return NR_IMPORTERS;
}

const char *pv_importer_name(size_t i)
{
	return i < NR_IMPORTERS ? importers[i]->name : NULL;
}

const char *pv_importer_description(size_t i)
{
	return i < NR_IMPORTERS ? importers[i]->description : NULL;
}

bool pv_profile_one_program(const struct pv_profile *p)
{
	if (p->meta.one_program)
		return true;
	const char *f = pv_str(p, p->meta.format);
	if (strcmp(f, "merged") == 0) /* a merge of several formats (pv/merge.h) */
		return true;
	for (size_t i = 0; i < NR_IMPORTERS; i++)
		if (strcmp(importers[i]->name, f) == 0)
			return importers[i]->one_program;
	return false;
}

/*
 * Reads in as JSON to its end: 1 with err naming the position of the first syntax error (the
 * message says the file is not valid JSON, so damaged), 0 when it is well-formed.
 */
static int json_damage(struct pv_input *in, struct pv_error *err)
{
	struct pv_error jerr;
	struct json j;
	struct json_tok t;
	pv_error_clear(&jerr);
	json_init(&j, in, &jerr);
	int rc;
	while (!(rc = json_next(&j, &t)) && t.kind != JSON_EOF)
		;
	json_release(&j);
	if (!rc)
		return 0;
	pv_error_set(err, PV_EPARSE, "%s (not valid JSON: the file is damaged or cut short)",
		     jerr.msg);
	if (err) {
		err->line = jerr.line;
		err->column = jerr.column;
		err->offset = jerr.offset;
		err->has_pos = jerr.has_pos;
	}
	return 1;
}

/* What a caller asks of an import besides its format (pv_import_opts); NULL: the defaults. */
struct want {
	const struct symz_opts *sym;
	bool no_contexts;
};

static int run_input(struct pv_input *in, const char *format, const struct want *w,
		     struct pv_profile **out, struct pv_error *err);

/* A zip of one profile opens as that profile; a zip of an Instruments .trace bundle goes to its
 * importer (zip.h). */
static int run(struct pv_input *in, const char *format, const struct want *w,
	       struct pv_profile **out, struct pv_error *err)
{
	struct pv_input *inner = NULL;
	bool bundle = format && strcasecmp(format, importer_instruments_trace.name) == 0;
	int rc = bundle || !zipc_is(in) ? 1 : zipc_unwrap(in, &inner, err);
	if (rc < 0)
		return rc;
	if (rc == 1)
		return run_input(in, format, w, out, err);
	rc = run_input(inner, format, w, out, err);
	input_close(inner);
	pv_free(inner);
	return rc;
}

static int run_input(struct pv_input *in, const char *format, const struct want *w,
		     struct pv_profile **out, struct pv_error *err)
{
	const struct importer *imp = NULL;
	if (format) {
		for (size_t i = 0; i < NR_IMPORTERS; i++)
			if (strcasecmp(importers[i]->name, format) == 0)
				imp = importers[i];
		if (!imp) {
			char names[1024] = ""; /* every importer's name, with room for more */
			for (size_t i = 0; i < NR_IMPORTERS; i++) {
				text_append(names, sizeof(names), i ? ", " : "");
				text_append(names, sizeof(names), importers[i]->name);
			}
			return pv_error_set(err, PV_EINVAL, "unknown format '%s' (known: %s)",
					    format, names);
		}
	} else {
		if (in->len == 0)
			return pv_error_set(err, PV_EPARSE, "%s: is empty (a profile was expected)",
					    in->name);
		int best = 0;
		/* a snapshot's magic is certain (100), and the text probes are not free (a perf
		 * script probe reads lines): a snapshot is recognised before any other is tried */
		if (importer_snapshot.probe(in) == 100) {
			best = 100;
			imp = &importer_snapshot;
		}
		for (size_t i = 0; i < NR_IMPORTERS && best < 100; i++) {
			int s = importers[i]->probe ? importers[i]->probe(in) : 0;
			if (s > best) {
				best = s;
				imp = importers[i];
			}
		}
		if (!imp || best == PROBE_DAMAGED) {
			/* JSON that no probe knows, or only a damaged claim of a text format's:
			 * damaged JSON says where, as a reader would */
			char c = probe_first_char(in);
			if ((c == '{' || c == '[') && json_damage(in, err))
				return PV_EPARSE;
		}
		if (!imp) {
			char names[1024] = ""; /* every importer's name, with room for more */
			for (size_t i = 0; i < NR_IMPORTERS; i++) {
				if (!importers[i]->probe) /* chosen by name only: not tried */
					continue;
				text_append(names, sizeof(names), *names ? ", " : "");
				text_append(names, sizeof(names), importers[i]->name);
			}
			return pv_error_set(err, PV_EFORMAT,
					    "%s: not a profile format profview reads (tried %s)",
					    in->name, names);
		}
	}
	if (imp->open)
		return imp->open(in, out, err);
	struct pv_builder b;
	if (builder_init(&b))
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	b.p->meta.format = builder_cstr(&b, imp->name);
	b.sym = w ? w->sym : NULL;
	b.no_contexts = w && w->no_contexts;
	int rc = imp->import(in, &b, err);
	if (rc) {
		builder_release(&b);
		return rc;
	}
	/* damage that leaves a readable file is reported, never silent */
	if (imp->cut_short && imp->cut_short(in))
		builder_lossy(&b, 1,
			      "the last line has no newline and its record may be cut short (read "
			      "as it is)");
	if (in->odd_utf16)
		builder_lossy(
		    &b, 1,
		    "UTF-16 text of an odd number of bytes: its last byte was dropped (the "
		    "file may be cut short)");
	if (in->len && !b.p->samples.len && !b.p->markers.len && !b.p->callgraph.nr_nodes)
		builder_lossy(&b, 1,
			      "no sample and no marker in %zu bytes: the file may be cut short or "
			      "hold no profile",
			      in->len);
	if (b.status) {
		rc = b.status;
		builder_release(&b);
		return pv_error_set(err, rc, "%s: %s while importing", in->name, pv_strerror(rc));
	}
	struct pv_profile *p;
	rc = builder_finish(&b, &p);
	if (rc)
		return pv_error_set(err, rc, "%s: %s while importing", in->name, pv_strerror(rc));
	/* every front end gets a profile whose invariants hold, or this line */
	struct pv_error verr;
	if (pv_profile_validate(p, &verr)) {
		pv_profile_free(p);
		return pv_error_set(err, PV_EPARSE,
				    "%s: the %s importer broke an invariant of the model (a bug: "
				    "please report it with the file): %s",
				    in->name, imp->name, verr.msg);
	}
	*out = p;
	return 0;
}

int pv_import_file(const char *path, const char *format, struct pv_profile **out,
		   struct pv_error *err)
{
	return pv_import_file_progress(path, format, NULL, out, err);
}

/* dir/entry (to free) when it is a regular file, else NULL (*nomem set when out of memory). */
static char *folder_entry(const char *dir, size_t n, const char *entry, bool *nomem)
{
	struct stat st;
	char *f = pv_malloc(n + strlen(entry) + 2);
	if (!f) {
		*nomem = true;
		return NULL;
	}
	memcpy(f, dir, n);
	f[n] = '/';
	memcpy(f + n + 1, entry, strlen(entry) + 1);
	if (stat(f, &st) == 0 && S_ISREG(st.st_mode))
		return f;
	pv_free(f);
	return NULL;
}

/*
 * A regular file that is one of a folder format's other files (an HPCToolkit database's
 * profile.db, its metrics/default.yaml), told by its name and its first n bytes (head, up to
 * 16): its folder's entry file (to free) and that importer, else NULL.
 */
static char *member_folder(const char *path, const char **format, const unsigned char *head,
			   size_t n, bool *nomem)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t dlen = (size_t)(base - path);
	while (dlen > 1 && path[dlen - 1] == '/')
		dlen--;
	/* the name of the folder the file is in: its path's last component, or the working
	 * folder's */
	size_t name_at = dlen;
	while (name_at && path[name_at - 1] != '/')
		name_at--;
	char folder[256] = "", cwd[4096];
	bool here = !dlen || (dlen - name_at == 1 && path[name_at] == '.');
	if (!here && dlen > name_at)
		snprintf(folder, sizeof(folder), "%.*s", (int)(dlen - name_at), path + name_at);
	else if (here && getcwd(cwd, sizeof(cwd)))
		snprintf(folder, sizeof(folder), "%.255s",
			 strrchr(cwd, '/') ? strrchr(cwd, '/') + 1 : cwd);
	for (size_t i = 0; i < NR_IMPORTERS; i++) {
		const struct importer *imp = importers[i];
		int level = !imp->dir_member || (*format && strcasecmp(*format, imp->name) != 0)
				? 0
				: imp->dir_member(folder, base, head, n);
		char *e = NULL;
		if (level == 1) {
			e = folder_entry(base == path ? "." : path, base == path ? 1 : dlen,
					 imp->dir_entry, nomem);
		} else if (level == 2 && here) {
			e = folder_entry("..", 2, imp->dir_entry, nomem);
		} else if (level == 2) {
			/* the folder above: the path less its last component */
			size_t up = name_at;
			while (up > 1 && path[up - 1] == '/')
				up--;
			e = up ? folder_entry(path, up, imp->dir_entry, nomem)
			       : folder_entry(".", 1, imp->dir_entry, nomem);
		}
		if (e) {
			*format = imp->name;
			return e;
		}
	}
	return NULL;
}

/*
 * A folder is a profile when a format keeps its profiles in folders (HPCToolkit's databases):
 * *file (to free) is the path of the file the importer opens for it, *format that importer (the
 * folder says what it is, so a corrupt file there gets that importer's message rather than "not
 * a profile format"; so does a file named as the importer's, meta.db). 1: not a folder; then
 * *member when it is a regular file that may be one of the folder's other files (profile.db),
 * which stands for its folder (member_folder, on its first bytes once it is open).
 */
static int dir_entry(const char *path, const char **format, char **file, bool *member,
		     struct pv_error *err)
{
	struct stat st;
	bool nomem = false;
	*file = NULL;
	*member = false;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		for (size_t i = 0; i < NR_IMPORTERS && !*format; i++)
			if (importers[i]->dir_entry && strcmp(base, importers[i]->dir_entry) == 0)
				*format = importers[i]->name;
		*member = !*format && S_ISREG(st.st_mode);
		return 1;
	}
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	for (size_t i = 0; i < NR_IMPORTERS; i++) {
		const char *e = importers[i]->dir_entry;
		if (!e || (*format && strcasecmp(*format, importers[i]->name) != 0))
			continue;
		if ((*file = folder_entry(path, n, e, &nomem))) {
			if (!*format)
				*format = importers[i]->name;
			return 0;
		}
		if (nomem)
			return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	if (*format)
		return pv_error_set(err, PV_EIO,
				    "%s: is a directory that holds no database of format %s", path,
				    *format);
	return pv_error_set(err, PV_EIO,
			    "%s: is a directory, not a profile database (an HPCToolkit database "
			    "holds meta.db or experiment.xml)",
			    path);
}

bool import_folder_is_profile(const char *path)
{
	const char *format = NULL;
	char *file = NULL;
	bool member;
	int rc = dir_entry(path, &format, &file, &member, NULL);
	pv_free(file);
	return rc == 0;
}

static int import_file(const char *path, const char *format, struct pv_progress *prog,
		       const struct want *w, struct pv_profile **out, struct pv_error *err);

int pv_import_file_progress(const char *path, const char *format, struct pv_progress *prog,
			    struct pv_profile **out, struct pv_error *err)
{
	return import_file(path, format, prog, NULL, out, err);
}

int import_path(const char *path, const struct pv_import_opts *o, struct pv_profile **out,
		struct pv_error *err)
{
	struct symz_opts sym = {.dirs = o->symbol_dirs,
				.nr_dirs = o->nr_symbol_dirs,
				.off = o->no_symbols,
				.vmlinux = o->vmlinux};
	struct want w = {.sym = &sym, .no_contexts = o->no_contexts};
	return import_file(path, o->format, o->progress, &w, out, err);
}

static int import_file(const char *path, const char *format, struct pv_progress *prog,
		       const struct want *w, struct pv_profile **out, struct pv_error *err)
{
	struct pv_input in;
	char *entry = NULL;
	bool member = false, nomem = false;
	int rc = strcmp(path, "-") ? dir_entry(path, &format, &entry, &member, err) : 1;
	if (rc < 0)
		return rc;
	if (entry)
		path = entry;
	if (prog)
		atomic_store(&prog->phase, PV_PROGRESS_READING);
	rc = input_open(&in, path, err);
	/* told by its name and first bytes as read (the file is opened once); an inflated file's
	 * are not its own: by its name alone */
	if (!rc && member &&
	    (entry = member_folder(path, &format, (const unsigned char *)in.data,
				   in.gzip	 ? 0
				   : in.len < 16 ? in.len
						 : 16,
				   &nomem))) {
		input_close(&in);
		path = entry;
		rc = input_open(&in, path, err);
	} else if (!rc && nomem) {
		input_close(&in);
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	if (rc) {
		pv_free(entry);
		return rc;
	}
	if (prog) {
		atomic_store(&prog->total, (uint64_t)in.len);
		atomic_store(&prog->done, 0);
		atomic_store(&prog->phase, PV_PROGRESS_PARSING);
		in.progress = prog;
	}
	rc = run(&in, format, w, out, err);
	if (input_changed(&in, err)) {
		/* what was read is not the file: neither its profile nor its parse error stands */
		if (!rc) {
			pv_profile_free(*out);
			*out = NULL;
		}
		rc = PV_EIO;
	}
	input_close(&in);
	pv_free(entry);
	if (prog) {
		atomic_store(&prog->done, atomic_load(&prog->total));
		atomic_store(&prog->phase, PV_PROGRESS_DONE);
	}
	return rc;
}

int pv_import_memory(const char *name, const void *buf, size_t len, const char *format,
		     struct pv_profile **out, struct pv_error *err)
{
	struct pv_input in;
	int rc = input_from_memory(&in, name, buf, len, err);
	if (rc)
		return rc;
	rc = run(&in, format, NULL, out, err);
	input_close(&in);
	return rc;
}
