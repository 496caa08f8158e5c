/*
 * cli.h - what the command families of the command line share (cli/main.c parses the options
 * and dispatches through its command table; cli/cmd_*.c run one family each).
 */
#ifndef PV_CLI_H
#define PV_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "pv/import.h"
#include "pv/marker.h"
#include "pv/profile.h"
#include "pv/query.h"

#define EXIT_RUNTIME 1
#define EXIT_INPUT   2

/* The options of one run, as the command's options left them. */
struct cli {
	const char *cmd;
	struct pv_import_opts imp; /* --format, --cache */
	int json;
	struct pv_query q;
	/* markers and marker */
	const char *search;
	int summary;
	enum pv_marker_order order;
	const char *marker_arg; /* marker: N */
	/* views: resolved against each profile */
	const char *range_marker, *center_marker;
	double hot_path; /* tree, callers: print the hot path only, of this share (0: off) */
	/* flame: --max-nodes, --width; activity: --buckets, --start, --end (the page's) */
	uint32_t max_nodes, width, buckets;
	bool has_start, has_end;
	int64_t start_ns, end_ns;
	/* tui: a key script and the screen's size (no terminal), the page's state from --query,
	 * a folder of source files */
	const char *tui_keys, *tui_size;
	char *tui_tab, *tui_sel, *tui_search;
	int64_t tui_marker;
	uint32_t tui_file; /* the page's p: the file to show first */
	const char *source_root;
	/* diff: --normalize, --flame */
	bool normalize, flame;
};

/* "message (see 'profview --help')"; returns EXIT_INPUT. */
__attribute__((format(printf, 1, 2))) int cli_fail_usage(const char *fmt, ...);
/* "message (see 'profview CMD --help')" for a command with options of its own; EXIT_INPUT. */
__attribute__((format(printf, 2, 3))) int cli_fail_usage_of(const char *cmd, const char *fmt, ...);
/* "profview: error: PATH: message" for a library error; returns the exit code of rc. */
int cli_lib_error(const char *path, int rc, const char *msg);

/* cmd_markers.c: derives the markers of p and checks that option's N names one; 0 or an exit
 * code (after saying why). */
int cli_marker_of(const char *path, const struct pv_profile *p, const char *option, const char *arg,
		  struct pv_markers **ms, uint32_t *n);
/* cmd_view.c: the query of c for p: --range-from-marker and --center-from-marker resolved.
 * 0 or an exit code; q to release either way. */
int cli_view_query(const char *path, const struct pv_profile *p, const struct cli *c,
		   struct pv_query *q);

/* The commands: a file command runs once per file (path and its profile), the others once
 * (path NULL). Each returns 0 or an exit code. */
int cmd_info(const struct cli *c, const char *path, const struct pv_profile *p);
int cmd_formats(const struct cli *c, const char *path, const struct pv_profile *p);
int cmd_query(const struct cli *c, const char *path, const struct pv_profile *p);
int cmd_view(const struct cli *c, const char *path, const struct pv_profile *p);
int cmd_flame(const struct cli *c, const char *path, const struct pv_profile *p);
int cmd_activity(const struct cli *c, const char *path, const struct pv_profile *p);
int cmd_annotate(const struct cli *c, const char *path, const struct pv_profile *p);
int cmd_markers(const struct cli *c, const char *path, const struct pv_profile *p);
int cmd_marker(const struct cli *c, const char *path, const struct pv_profile *p);
/* cmd_tui.c: profview tui FILE... (the files open, ']' and '[' switch between them). */
int cmd_tui(const struct cli *c, int nfiles, const char *const *paths,
	    const struct pv_profile *const *ps);
/* cmd_tui.c: --query for tui: a page's URL (or its query string), whose tab, sel, mk and search
 * open the TUI where the page was; 0 or an exit code. */
int cli_tui_url(struct cli *c, const char *arg);
/* cmd_diff.c: profview diff BASE NEW (paths and profiles: base, new). */
int cmd_diff(const struct cli *c, const char *const paths[2], const struct pv_profile *ps[2]);
/* The commands with options of their own (profview COMMAND --help): argv[0] is the command. */
int cmd_serve(int argc, char **argv);	 /* cmd_serve.c */
int cmd_contexts(int argc, char **argv); /* cmd_contexts.c */
int cmd_export(int argc, char **argv);	 /* cmd_export.c */
int cmd_trace(int argc, char **argv);	 /* cmd_trace.c */
int cmd_snapshot(int argc, char **argv); /* cmd_snapshot.c */
int cmd_merge(int argc, char **argv);	 /* cmd_merge.c */
int cmd_record(int argc, char **argv);	 /* cmd_record.c */

#endif
