/*
 * cmd_serve.c - `profview serve FILE...`: the local web UI (doc/api.md).
 *
 * The server starts first and its URL is printed at once; the files then load one after the
 * other in a background thread (pv_import_file_progress), the page showing each one's progress
 * through /api/status and the terminal on standard error. A file that fails to load is reported
 * in one line and its slot answers 500; the server stays up until SIGINT or SIGTERM.
 */
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pv/serve.h"
#include "say.h"

int cmd_serve(int argc, char **argv);

extern char **environ;

struct loader {
	struct pv_api *a;
	char **files;
	uint32_t nr;
	uint32_t *slots;
	struct pv_import_opts imp; /* --format, --cache */
	int quiet;
	_Atomic uint32_t current; /* the file being loaded; nr when all are done */
	_Atomic int done;
	pthread_mutex_t out_lock; /* one writer of stderr at a time */
};

static void serve_usage(FILE *out)
{
	fputs(
	    "usage: profview serve FILE... [OPTIONS]\n"
	    "\n"
	    "Serves a local web page of the profiles (timeline, call trees, flame graph, markers,\n"
	    "source) and prints its URL; runs until interrupted (Ctrl-C).\n"
	    "\n"
	    "  --port N           the port to listen on (default: a free one)\n"
	    "  --host H           the address to bind (default 127.0.0.1)\n"
	    "  --open             open the page in a browser (xdg-open)\n"
	    "  --source-root DIR  a folder where the profiles' relative source paths are looked "
	    "up\n"
	    "  --format NAME      read every FILE as this format instead of probing it\n"
	    "  --cache DIR        keep a snapshot of each file in DIR and open it from there\n"
	    "                     next time (profview snapshot --help)\n"
	    "  --symbols DIR      perf.data and others with addresses: look for the binaries\n"
	    "                     in DIR first (repeatable); --no-symbols: name no address\n"
	    "  --vmlinux FILE     perf.data: the kernel's symbols from FILE (perf's -k)\n"
	    "  --base BASE        compare every FILE with the profile BASE: the Diff tab and\n"
	    "                     the red/blue flame graph (profview diff BASE FILE)\n"
	    "  --token T          the URL's token instead of a random one (for tests)\n"
	    "  --quiet            no loading progress on standard error\n"
	    "  -h, --help         this text\n"
	    "\n"
	    "The URL holds a random token; the server answers only requests that carry it and\n"
	    "name this machine's loopback address in their Host header.\n",
	    out);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void human_bytes(char *buf, size_t n, uint64_t b)
{
	if (b >= 1000ull * 1000 * 1000)
		snprintf(buf, n, "%.2f GB", (double)b / 1e9);
	else if (b >= 1000 * 1000)
		snprintf(buf, n, "%.1f MB", (double)b / 1e6);
	else if (b >= 1000)
		snprintf(buf, n, "%.1f kB", (double)b / 1e3);
	else
		snprintf(buf, n, "%llu B", (unsigned long long)b);
}

static void *load_all(void *arg)
{
	struct loader *l = arg;
	for (uint32_t i = 0; i < l->nr; i++) {
		atomic_store(&l->current, i);
		struct pv_profile *p = NULL;
		struct pv_error err;
		pv_error_clear(&err);
		double t0 = now_s();
		struct pv_import_opts imp = l->imp;
		imp.progress = pv_api_progress(l->a, l->slots[i]);
		struct pv_error note;
		int rc = pv_import_open(l->files[i], &imp, &p, &err, &note);
		if (!rc && (rc = pv_profile_check(p, &err))) { /* a snapshot's checksums */
			pv_profile_free(p);
			p = NULL;
		}
		pthread_mutex_lock(&l->out_lock);
		if (isatty(2) && !l->quiet)
			fputs("\r\033[K", stderr);
		if (note.msg[0])
			cli_say("warning", "%s", note.msg);
		if (rc) {
			cli_say("error", "%s", err.msg);
		} else if (!l->quiet) {
			const char *ver = pv_str(p, p->meta.format_version);
			char file[1024];
			pv_escape_controls(file, sizeof(file), l->files[i]);
			fprintf(stderr,
				"profview: loaded %s (%s%s%s, %u thread%s, %u samples, %u "
				"markers%s) in %.1f s\n",
				file, pv_str(p, p->meta.format), *ver ? " " : "", ver,
				p->threads.len, p->threads.len == 1 ? "" : "s", p->samples.len,
				p->markers.len, p->diags.len ? ", lossy: see 'profview info'" : "",
				now_s() - t0);
		}
		fflush(stderr);
		pthread_mutex_unlock(&l->out_lock);
		pv_api_set_loaded(l->a, l->slots[i], rc ? NULL : p, &err);
	}
	atomic_store(&l->current, l->nr);
	atomic_store(&l->done, 1);
	return NULL;
}

/* One progress report of the file being loaded: a line rewritten in place on a terminal,
 * else a plain line when the phase changes or every 10 s. */
static void show_progress(struct loader *l, bool tty, int *last_phase, uint32_t *last_file,
			  double *last_t)
{
	uint32_t i = atomic_load(&l->current);
	if (l->quiet || i >= l->nr)
		return;
	struct pv_progress *pr = pv_api_progress(l->a, l->slots[i]);
	if (!pr)
		return;
	int ph = atomic_load(&pr->phase);
	uint64_t done = atomic_load(&pr->done), total = atomic_load(&pr->total);
	static const char *const names[] = {"reading", "parsing", "finishing", "done"};
	const char *name = ph >= 0 && ph <= PV_PROGRESS_DONE ? names[ph] : "loading";
	if (ph == PV_PROGRESS_DONE)
		return;
	double t = now_s();
	if (!tty && i == *last_file && ph == *last_phase && t - *last_t < 10)
		return;
	*last_file = i;
	*last_phase = ph;
	*last_t = t;
	char db[32], tb[32];
	human_bytes(db, sizeof(db), done);
	human_bytes(tb, sizeof(tb), total);
	char file[1024];
	pv_escape_controls(file, sizeof(file), l->files[i]);
	pthread_mutex_lock(&l->out_lock);
	if (atomic_load(&l->current) == i) {
		if (total)
			fprintf(stderr, "%sprofview: %s %s: %s of %s (%.0f%%)%s",
				tty ? "\r\033[K" : "", name, file, db, tb,
				100.0 * (double)done / (double)total, tty ? "" : "\n");
		else
			fprintf(stderr, "%sprofview: %s %s: %s%s", tty ? "\r\033[K" : "", name,
				file, db, tty ? "" : "\n");
		fflush(stderr);
	}
	pthread_mutex_unlock(&l->out_lock);
}

/* Ctrl-C stops the server within this many seconds, even while a request still computes */
#define STOP_WAIT_S 2

/* Ends the process when the server's threads are not done STOP_WAIT_S after Ctrl-C (a long
 * answer that cannot be cut short, as a disassembly is: pv_api_stop). */
static void *stop_watchdog(void *arg)
{
	(void)arg;
	struct timespec ts = {STOP_WAIT_S, 0};
	while (nanosleep(&ts, &ts) != 0)
		;
	cli_say("note", "a request was still being answered after %d s: stopped without it",
		STOP_WAIT_S);
	fflush(stdout);
	_exit(0);
	return NULL;
}

static void open_browser(const char *url)
{
	const char *path = getenv("PATH");
	bool found = false;
	char buf[4096];
	for (const char *p = path ? path : "/usr/bin:/bin"; p && *p && !found;) {
		size_t n = strcspn(p, ":");
		snprintf(buf, sizeof(buf), "%.*s/xdg-open", (int)n, p);
		found = access(buf, X_OK) == 0;
		p += n + (p[n] == ':');
	}
	if (!found) {
		fputs("profview: note: xdg-open is not installed: open the URL yourself\n", stderr);
		return;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	char *args[] = {(char *)"xdg-open", (char *)url, NULL};
	pid_t pid;
	if (posix_spawn(&pid, buf, &fa, NULL, args, environ) != 0)
		fputs("profview: note: could not run xdg-open: open the URL yourself\n", stderr);
	posix_spawn_file_actions_destroy(&fa);
}

struct serve_args {
	struct pv_serve_opts o;
	const char *source_root, *base;
	struct pv_import_opts imp;
};

/* The options (optind at the first file after them): -1 when they are good, else the exit
 * code (2 for a usage error, 0 after --help). */
static int serve_options(int argc, char **argv, struct serve_args *sa)
{
	struct pv_serve_opts *o = &sa->o;
	struct pv_error opt_err;
	enum { O_PORT = 256, O_HOST, O_OPEN, O_ROOT, O_TOKEN, O_QUIET, O_FORMAT, O_CACHE, O_BASE };
	enum { O_SYMBOLS = O_BASE + 1, O_NO_SYMBOLS, O_VMLINUX };
	static const struct option longopts[] = {
	    {"port", required_argument, NULL, O_PORT},
	    {"host", required_argument, NULL, O_HOST},
	    {"open", no_argument, NULL, O_OPEN},
	    {"source-root", required_argument, NULL, O_ROOT},
	    {"token", required_argument, NULL, O_TOKEN},
	    {"quiet", no_argument, NULL, O_QUIET},
	    {"format", required_argument, NULL, O_FORMAT},
	    {"cache", required_argument, NULL, O_CACHE},
	    {"symbols", required_argument, NULL, O_SYMBOLS},
	    {"no-symbols", no_argument, NULL, O_NO_SYMBOLS},
	    {"vmlinux", required_argument, NULL, O_VMLINUX},
	    {"base", required_argument, NULL, O_BASE},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case O_PORT: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (!*optarg || *end || v > 65535) {
				cli_say("error",
					"--port takes 0 to 65535, not '%s' (see "
					"'profview serve --help')",
					optarg);
				return 2;
			}
			o->port = (uint16_t)v;
			break;
		}
		case O_HOST: o->host = optarg; break;
		case O_OPEN: o->open_browser = 1; break;
		case O_ROOT: sa->source_root = optarg; break;
		case O_TOKEN: o->token = optarg; break;
		case O_QUIET: o->quiet = 1; break;
		case O_FORMAT:
		case O_CACHE:
		case O_SYMBOLS:
		case O_VMLINUX:
		case O_NO_SYMBOLS:
			if (pv_import_set_option(&sa->imp,
						 ch == O_FORMAT	   ? "format"
						 : ch == O_CACHE   ? "cache"
						 : ch == O_SYMBOLS ? "symbols"
						 : ch == O_VMLINUX ? "vmlinux"
								   : "no-symbols",
						 optarg, &opt_err)) {
				cli_say("error", "%s (see 'profview serve --help')", opt_err.msg);
				return 2;
			}
			break;
		case O_BASE: sa->base = optarg; break;
		case 'h': serve_usage(stdout); return 0;
		case ':':
			cli_say("error",
				"option '%s' needs a value (see 'profview serve "
				"--help')",
				argv[optind - 1]);
			return 2;
		default:
			cli_say("error",
				"unknown option '%s' (see 'profview serve "
				"--help')",
				argv[optind - 1]);
			return 2;
		}
	}
	return -1;
}

/* The loader of the files, then the base (--base: the last slot, the one the others are
 * compared with): false when out of memory. */
static bool serve_files(struct pv_api *a, int argc, char **argv, const struct serve_args *sa,
			struct loader *l)
{
	const char *base = sa->base;
	uint32_t nfiles = (uint32_t)(argc - optind);
	char **files = calloc(nfiles + 1, sizeof(*files));
	for (uint32_t i = 0; files && i < nfiles; i++)
		files[i] = argv[optind + (int)i];
	if (files && base)
		files[nfiles] = (char *)base;
	*l = (struct loader){.a = a,
			     .files = files,
			     .nr = nfiles + (base != NULL),
			     .imp = sa->imp,
			     .quiet = sa->o.quiet};
	pthread_mutex_init(&l->out_lock, NULL);
	l->slots = files ? calloc(l->nr, sizeof(*l->slots)) : NULL;
	for (uint32_t i = 0; l->slots && i < l->nr; i++)
		if ((l->slots[i] = pv_api_add_file(a, l->files[i])) == UINT32_MAX) {
			free(l->slots);
			l->slots = NULL;
		}
	if (!l->slots) {
		free(files);
		return false;
	}
	if (base)
		pv_api_set_base(a, l->slots[nfiles]);
	return true;
}

/* Shows the loading's progress until SIGINT or SIGTERM (sigs, blocked), then says so. */
static void serve_until_stopped(struct loader *l, const sigset_t *sigs, int quiet)
{
	bool tty = isatty(2);
	int last_phase = -1;
	uint32_t last_file = UINT32_MAX;
	double last_t = 0;
	struct timespec tick = {.tv_sec = 0, .tv_nsec = 200 * 1000 * 1000};
	for (;;) {
		int sig = sigtimedwait(sigs, NULL, &tick);
		if (sig == SIGINT || sig == SIGTERM)
			break;
		if (!atomic_load(&l->done))
			show_progress(l, tty, &last_phase, &last_file, &last_t);
	}
	pthread_mutex_lock(&l->out_lock);
	if (tty && !quiet && !atomic_load(&l->done))
		fputs("\r\033[K", stderr);
	if (!quiet)
		fputs("profview: stopping\n", stderr);
	fflush(stderr);
	pthread_mutex_unlock(&l->out_lock);
}

/* Descriptors for a burst of connections (the gate queues what the library has no room for):
 * the soft limit, 1,024 by default on many systems, raised towards the hard one. */
static void raise_fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rlim_t want = rl.rlim_max < 65536 ? rl.rlim_max : 65536;
		if (rl.rlim_cur < want) {
			rl.rlim_cur = want;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
}

int cmd_serve(int argc, char **argv)
{
	struct serve_args sa = {.o = {.host = NULL, .port = 0}};
	int rc = serve_options(argc, argv, &sa);
	if (rc >= 0)
		return rc;
	const struct pv_serve_opts o = sa.o;
	if (optind >= argc) {
		serve_usage(stderr);
		return 2;
	}
	struct pv_api *a;
	if (pv_api_new(&a, sa.source_root)) {
		fputs("profview: error: out of memory\n", stderr);
		return 1;
	}
	struct loader l;
	if (!serve_files(a, argc, argv, &sa, &l)) {
		fputs("profview: error: out of memory\n", stderr);
		pv_api_free(a);
		return 1;
	}
	char **files = l.files;
	/* SIGINT and SIGTERM are waited for by this thread only: block them before any thread */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	raise_fd_limit();
	struct pv_server *srv;
	char *url = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (pv_server_start(a, &o, &srv, &url, &err)) {
		cli_say("error", "%s", err.msg);
		free(l.slots);
		free(files);
		pv_api_free(a);
		return err.code == PV_ENOMEM ? 1 : 2;
	}
	if (pv_server_public(srv))
		cli_say("warning",
			"--host %s makes the page reachable from other machines "
			"(the token in the URL is still required; anyone who sees the URL can read "
			"the profiles and their sources)",
			o.host);
	printf("profview: serving on %s\n", url);
	fflush(stdout);
	if (o.open_browser)
		open_browser(url);
	else if (!o.quiet)
		fputs("profview: open that URL in a browser (--open starts one); Ctrl-C stops the "
		      "server\n",
		      stderr);

	pthread_t th;
	bool loading = pthread_create(&th, NULL, load_all, &l) == 0;
	if (!loading) {
		fputs("profview: error: cannot start the loader thread\n", stderr);
		for (uint32_t i = 0; i < l.nr; i++)
			pv_api_set_loaded(a, l.slots[i], NULL, NULL);
		atomic_store(&l.done, 1);
	}
	serve_until_stopped(&l, &sigs, o.quiet);
	/* a second Ctrl-C while the server stops ends the process at once, and so does the
	 * watchdog after STOP_WAIT_S */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
	pthread_t watchdog;
	if (pthread_create(&watchdog, NULL, stop_watchdog, NULL) == 0)
		pthread_detach(watchdog);
	pv_server_stop(srv);
	free(url);
	if (loading && !atomic_load(&l.done)) {
		/* an import still runs and cannot be interrupted: leave without waiting for it */
		fflush(stdout);
		_exit(0);
	}
	if (loading)
		pthread_join(th, NULL);
	free(l.slots);
	free(files);
	pv_api_free(a);
	pthread_mutex_destroy(&l.out_lock);
	return 0;
}
