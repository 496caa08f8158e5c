/*
 * cmd_record.c - profview record [-o FILE] [--serve] [--dwarf] [-F HZ] -- COMMAND ARGS...:
 * runs `perf record` on the command (call graphs by frame pointers, or --call-graph dwarf),
 * then opens what it wrote: prints its `top`, or serves the page with --serve (samply record's
 * one step; doc/perf-data.md). perf's own output and the command's go to the terminal as they
 * would; a missing perf, or a kernel setting that forbids it, is one line naming what to do.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "say.h"

extern char **environ;

static void usage(FILE *out)
{
	fputs("usage: profview record [-o FILE] [--serve] [--dwarf] [-F HZ] -- COMMAND ARGS...\n"
	      "\n"
	      "Runs COMMAND under `perf record -g` (Debian package linux-perf), then prints the\n"
	      "profile's top functions, or serves its page with --serve.\n"
	      "\n"
	      "  -o, --output FILE   the perf.data to write (default perf.data)\n"
	      "  --serve             serve the page of the profile instead of printing its top\n"
	      "  --dwarf             call graphs from DWARF (perf record --call-graph dwarf)\n"
	      "                      instead of frame pointers\n"
	      "  -F, --freq HZ       samples per second (default 999)\n"
	      "  -h, --help          this text\n",
	      out);
}

/* The value of /proc/sys/kernel/perf_event_paranoid, or -100 when unreadable. */
static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = -100;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -100;
		fclose(f);
	}
	return v;
}

/* Whether a program is on the PATH. */
static int on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n && n + strlen(prog) + 2 < sizeof(buf)) {
			memcpy(buf, p, n);
			buf[n] = '/';
			memcpy(buf + n + 1, prog, strlen(prog) + 1);
			if (access(buf, X_OK) == 0)
				return 1;
		}
		p += n + (e != NULL);
	}
	return 0;
}

struct rec_opts {
	const char *out, *freq;
	int serve, dwarf;
};

/* The options before the command: -1 when they are good (optind at the command), else the
 * exit code (the usage error, or 0 after --help). */
static int record_options(int argc, char **argv, struct rec_opts *o)
{
	static const struct option longs[] = {
	    {"output", required_argument, NULL, 'o'}, {"serve", no_argument, NULL, 's'},
	    {"dwarf", no_argument, NULL, 'd'},	      {"freq", required_argument, NULL, 'F'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	*o = (struct rec_opts){"perf.data", "999", 0, 0};
	int ch;
	opterr = 0;
	optind = 1;
	/* '+': options stop at the command (its own options are its own) */
	while ((ch = getopt_long(argc, argv, "+o:F:h", longs, NULL)) != -1) {
		switch (ch) {
		case 'o': o->out = optarg; break;
		case 's': o->serve = 1; break;
		case 'd': o->dwarf = 1; break;
		case 'F': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 100000)
				return cli_fail_usage_of("record",
							 "-F takes 1 to 100000 samples per second, "
							 "not '%s'",
							 optarg);
			o->freq = optarg;
			break;
		}
		case 'h': usage(stdout); return 0;
		default:
			return cli_fail_usage_of("record", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_fail_usage_of("record",
					 "no command to run: profview record [-o FILE] -- "
					 "COMMAND ARGS...");
	return -1;
}

/* Runs perf record -g -F HZ -o OUT [--all-user] -- COMMAND ARGS... and waits for it: 0 with
 * its wait status in *status, else the exit code. */
static int run_perf(const struct rec_opts *o, int argc, char **argv, int level, int root,
		    int *status)
{
	char **av = calloc((size_t)argc + 16, sizeof(*av));
	if (!av)
		return EXIT_RUNTIME;
	int n = 0;
	av[n++] = (char *)"perf";
	av[n++] = (char *)"record";
	if (o->dwarf) {
		av[n++] = (char *)"--call-graph";
		av[n++] = (char *)"dwarf";
	} else {
		av[n++] = (char *)"-g";
	}
	av[n++] = (char *)"-F";
	av[n++] = (char *)o->freq;
	av[n++] = (char *)"-o";
	av[n++] = (char *)o->out;
	if (!root && level == 2) {
		cli_say("note", "kernel.perf_event_paranoid is 2: user space only (root, or "
				"sysctl kernel.perf_event_paranoid=1, records the kernel too)");
		av[n++] = (char *)"--all-user";
	}
	av[n++] = (char *)"--";
	for (int i = optind; i < argc; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	pid_t pid;
	int rc = posix_spawnp(&pid, "perf", NULL, NULL, av, environ);
	free(av);
	if (rc) {
		cli_say("error", "record: perf could not run: %s", strerror(rc));
		return EXIT_INPUT;
	}
	/* ^C goes to perf and the command (one process group): perf writes its file and ends */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	*status = 0;
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct rec_opts o;
	int rc = record_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (!on_path("perf")) {
		cli_say("error",
			"record: perf not found (Debian package linux-perf): profview record "
			"runs `perf record`");
		return EXIT_INPUT;
	}
	int level = paranoid(), root = geteuid() == 0;
	if (!root && level > 2) {
		cli_say(
		    "error",
		    "record: perf may not record here: kernel.perf_event_paranoid is %d (run as "
		    "root, or allow it: sysctl kernel.perf_event_paranoid=2 for your own "
		    "processes' user space, 1 with the kernel)",
		    level);
		return EXIT_INPUT;
	}
	int status;
	if ((rc = run_perf(&o, argc, argv, level, root, &status)))
		return rc;
	struct stat st;
	if (stat(o.out, &st) != 0 || st.st_size == 0) {
		cli_say(
		    "error",
		    "record: perf record wrote no %s (exit %d): perf may not be permitted here "
		    "(kernel.perf_event_paranoid is %d; run as root or lower it), or the command "
		    "did not start",
		    o.out, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), level);
		return EXIT_INPUT;
	}
	/* the profile: profview top OUT, or profview serve OUT */
	fflush(NULL);
	char *next[] = {(char *)"profview", (char *)(o.serve ? "serve" : "top"), (char *)o.out,
			NULL};
	execv("/proc/self/exe", next);
	cli_say("error", "record: cannot run profview again to open %s: %s", o.out,
		strerror(errno));
	return EXIT_RUNTIME;
}
