/*
 * cmd_snapshot.c - `profview snapshot FILE -o OUT.pvs`: the profile as a snapshot, a file every
 * command and the server open without parsing (doc/snapshot.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "pv/import.h"
#include "pv/output.h"
#include "pv/snapshot.h"
#include "say.h"

int cmd_snapshot(int argc, char **argv);

static void snapshot_usage(FILE *out)
{
	fputs("usage: profview snapshot FILE -o OUT.pvs [--format NAME]\n"
	      "\n"
	      "Writes the profile of FILE (every table, the markers and their schemas, what the\n"
	      "import lost, the metadata) as a snapshot: a file that every command and 'serve'\n"
	      "open at once, without parsing, by mapping it. The snapshot is written through a\n"
	      "temporary file renamed to OUT.pvs; OUT.pvs must be a regular file or a new name\n"
	      "(a device, a FIFO, a folder or a symbolic link is refused).\n"
	      "\n"
	      "  -o, --output OUT   the snapshot to write (required)\n"
	      "  --format NAME      read FILE as this format instead of probing it\n"
	      "  -h, --help         this text\n"
	      "\n"
	      "Every command also takes --cache DIR: snapshots kept in DIR, keyed by the file's\n"
	      "path, size and modification time, used instead of parsing the file again.\n",
	      out);
}

int cmd_snapshot(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct pv_import_opts o = {0};
	struct pv_error err;
	pv_error_clear(&err);
	const char *outpath = NULL;
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o': outpath = optarg; break;
		case 'f':
			if (pv_import_set_option(&o, "format", optarg, &err)) {
				cli_say("error", "%s (see 'profview snapshot --help')", err.msg);
				return 2;
			}
			break;
		case 'h': snapshot_usage(stdout); return 0;
		case ':':
			cli_say("error",
				"option '%s' needs a value (see 'profview snapshot --help')",
				argv[optind - 1]);
			return 2;
		default:
			cli_say("error", "unknown option '%s' (see 'profview snapshot --help')",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind != argc - 1 || !outpath) {
		cli_say("error", "%s (see 'profview snapshot --help')",
			optind >= argc	    ? "snapshot takes the file to read"
			: optind < argc - 1 ? "snapshot takes one file"
					    : "snapshot needs -o OUT.pvs, the file to write");
		return 2;
	}
	/* where it goes checked first (pv/output.h): a device or a link is refused at once */
	if (pv_output_check(outpath, &err)) {
		cli_say("error", "%s", err.msg);
		return 2;
	}
	struct pv_profile *p = NULL;
	int rc = pv_import_open(argv[optind], &o, &p, &err, NULL);
	if (!rc)
		rc = pv_profile_check(p, &err); /* a snapshot of a snapshot: copy no damage */
	if (!rc)
		rc = pv_snapshot_write(p, outpath, NULL, &err);
	pv_profile_free(p);
	if (rc) {
		cli_say("error", "%s", err.msg);
		return rc == PV_ENOMEM ? 1 : 2;
	}
	return 0;
}
