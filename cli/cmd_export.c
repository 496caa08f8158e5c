/*
 * cmd_export.c - `profview export FILE --to FORMAT -o OUT [query options]`: the part of a
 * profile the query selects, written in a format other tools open (doc/export.md). The library
 * does the work (pv/export.h); this file parses the command line and reports what the target
 * format could not carry, one line per kind.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pv/export.h"
#include "pv/import.h"
#include "pv/output.h"
#include "pv/query.h"
#include "say.h"

static void export_usage(FILE *out)
{
	fputs("usage: profview export FILE --to FORMAT -o OUT [OPTIONS] [QUERY OPTIONS]\n"
	      "\n"
	      "Writes the part of FILE the query selects (threads, range, filters; with --center,\n"
	      "the center's subtree) in another tool's format; what the format cannot carry is\n"
	      "listed on standard error, one line per kind.\n"
	      "\n"
	      "formats (--to):\n"
	      "  firefox      the Firefox Profiler's processed format (profiler.firefox.com)\n"
	      "  speedscope   speedscope's JSON format, one sampled profile per thread\n"
	      "  pprof        profile.proto, gzip (pprof, go tool pprof)\n"
	      "  collapsed    folded stacks 'a;b;c N' (FlameGraph, inferno)\n"
	      "  svg          an interactive flame graph (hover, click to zoom, search)\n"
	      "\n"
	      "  -o, --output OUT        the file to write ('-': standard output; else a regular\n"
	      "                          file or a new name)\n"
	      "  --icicle                svg: a bottom-up icicle (the callers of each leaf)\n"
	      "  --title T               svg: the title\n"
	      "  --thread-frames auto|none|comm|pid|tid   collapsed: a first frame per thread\n"
	      "                          ('comm', 'comm-PID', 'comm-PID/TID'; auto: tid with\n"
	      "                          several threads)\n"
	      "  --plain                 collapsed: no _[k] _[j] _[i] suffixes\n"
	      "  --tidy                  collapsed: names tidied as stackcollapse-perf.pl does\n"
	      "                          (C++ arguments, quotes, Java's L prefix removed)\n"
	      "  --format NAME           read FILE as this format instead of probing it\n"
	      "  --cache DIR             keep a snapshot of FILE in DIR, open it next time\n"
	      "  --symbols DIR           perf.data: look for its binaries in DIR first\n"
	      "  --vmlinux FILE          perf.data: the kernel's symbols from FILE (perf's -k)\n"
	      "  --query Q               a whole query as a URL query string or JSON\n"
	      "  the query options of 'profview --help' (--center, --merge, --thread, --range,\n"
	      "  --metric A[,B]: the metrics to write, the first for one-metric formats, ...)\n",
	      out);
}

static int usage_error(const char *msg, const char *arg)
{
	cli_say("error", "export: %s%s%s (see 'profview export --help')", msg, arg ? " " : "",
		arg ? arg : "");
	return 2;
}

/* The command line: the file, the format, the output, the import, export and query options. */
struct export_args {
	const char *file, *to, *outpath;
	struct pv_import_opts imp; /* --format, --cache */
	struct pv_export_opts o;
	struct pv_query q;
};

/* Option name (--name, -o) with its value: 0, or the usage error's exit code. */
static int export_option(struct export_args *e, const char *name, const char *val,
			 struct pv_error *err)
{
	if (strcmp(name, "--to") == 0) {
		e->to = val;
	} else if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0) {
		e->outpath = val;
	} else if (strcmp(name, "--title") == 0) {
		e->o.title = val;
	} else if (strcmp(name, "--format") == 0 || strcmp(name, "--cache") == 0 ||
		   strcmp(name, "--symbols") == 0 || strcmp(name, "--vmlinux") == 0) {
		if (pv_import_set_option(&e->imp, name + 2, val, err))
			return usage_error("%s", err->msg);
	} else if (strcmp(name, "--thread-frames") == 0) {
		if (pv_collapsed_threads_parse(val, &e->o.collapsed_threads))
			return usage_error("--thread-frames takes auto, none, comm, pid or tid, "
					   "not",
					   val);
	} else if (strcmp(name, "--query") == 0) {
		int r = val[0] == '{' ? pv_query_from_json(&e->q, val, strlen(val), err)
				      : pv_query_from_url(&e->q, val, err);
		if (r)
			return usage_error(err->msg, NULL);
	} else if (strncmp(name, "--", 2) == 0) {
		int r = pv_query_set_option(&e->q, name + 2, val, err);
		if (r == 1)
			return usage_error("unknown option", name);
		else if (r)
			return usage_error(err->msg, NULL);
	} else {
		return usage_error("unknown option", name);
	}
	return 0;
}

/* The arguments into e (its query initialized by the caller): 0, -1 after --help, or the usage
 * error's exit code. */
static int export_args(int argc, char **argv, struct export_args *e, struct pv_error *err)
{
	int rc = 0;
	for (int i = 1; i < argc && !rc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			export_usage(stdout);
			return -1;
		}
		if (a[0] != '-' || strcmp(a, "-") == 0) {
			if (e->file)
				rc = usage_error("takes one file, and another was given:", a);
			e->file = a;
			continue;
		}
		if (strcmp(a, "--icicle") == 0) {
			e->o.icicle = true;
			continue;
		}
		if (strcmp(a, "--plain") == 0) {
			e->o.plain = true;
			continue;
		}
		if (strcmp(a, "--tidy") == 0) {
			e->o.tidy = true;
			continue;
		}
		/* --name value, --name=value, -o value */
		char name[64];
		const char *val = NULL;
		const char *eq = strchr(a, '=');
		size_t nl = eq ? (size_t)(eq - a) : strlen(a);
		snprintf(name, sizeof(name), "%.*s", (int)nl, a);
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		if (!val)
			return usage_error("this option needs a value:", name);
		rc = export_option(e, name, val, err);
	}
	return rc;
}

int cmd_export(int argc, char **argv)
{
	struct export_args e = {.o = {.metric = PV_NONE}};
	struct pv_error err;
	pv_query_init(&e.q);
	pv_error_clear(&err);
	int rc = export_args(argc, argv, &e, &err);
	if (rc < 0) {
		pv_query_release(&e.q);
		return 0;
	}
	const char *file = e.file, *to = e.to, *outpath = e.outpath;
	struct pv_export_opts o = e.o;
	enum pv_export_format f = PV_EXPORT_FIREFOX;
	if (!rc && (!file || !to || !outpath))
		rc = usage_error(!file ? "needs a file"
				 : !to ? "needs --to FORMAT"
				       : "needs -o OUT",
				 NULL);
	if (!rc && pv_export_format_parse(to, &f))
		rc =
		    usage_error("--to takes firefox, speedscope, pprof, collapsed or svg, not", to);
	if (rc) {
		pv_query_release(&e.q);
		return rc;
	}
	/* where it goes checked first (pv/output.h): a device or a link is refused at once */
	bool to_stdout = strcmp(outpath, "-") == 0;
	if (!to_stdout && pv_output_check(outpath, &err)) {
		pv_query_release(&e.q);
		cli_say("error", "%s", err.msg);
		return 2;
	}
	struct pv_profile *p = NULL, *sel = NULL;
	struct pv_lossy lossy = {0};
	rc = cli_open(file, &e.imp, 1, &p, &err);
	if (!rc)
		rc = pv_profile_select(p, &e.q, &sel, &lossy, &err);
	pv_query_release(&e.q);
	pv_profile_free(p);
	FILE *out = NULL;
	bool out_err = false; /* err names the output, not the input */
	if (!rc) {
		out = to_stdout ? stdout : pv_output_open(outpath, &err);
		if (!out)
			rc = err.code, out_err = true;
	}
	if (!rc && (rc = pv_export_write(out, sel, f, &o, &lossy, &err)) == PV_EIO) {
		char why[sizeof(err.msg)];
		snprintf(why, sizeof(why), "%s", err.msg[0] ? err.msg : "cannot write the export");
		pv_error_set(&err, PV_EIO, "%s: %s", outpath, why);
		out_err = true;
	}
	if (out && (out == stdout ? fflush(out) : fclose(out)) && !rc) {
		rc = pv_error_set(&err, PV_EIO, "%s: cannot write: %s", outpath, strerror(errno));
		out_err = true;
	}
	pv_profile_free(sel);
	if (rc) {
		if (out && out != stdout)
			remove(outpath);
		if (out_err)
			cli_say("error", "%s", err.msg);
		else
			cli_say("error", "%s: %s", file, err.msg);
		return rc == PV_ENOMEM ? 1 : 2;
	}
	for (uint32_t i = 0; i < lossy.len; i++)
		cli_say("note", "lossy: %s: %" PRIu64, lossy.item[i].msg, lossy.item[i].count);
	return 0;
}
