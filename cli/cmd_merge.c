/*
 * cmd_merge.c - `profview merge -o OUT.pvs FILE|DIR|@LIST...`: many profiles as one snapshot,
 * each of their threads an execution context (pv/merge.h, doc/merge.md).
 *
 * Built with MPI (meson -Dmpi=enabled, PV_MPI 1) and started by mpirun, the ranks merge
 * consecutive shares of the inputs and reduce their partial merges in a binomial tree: at step
 * s = 1, 2, 4, ... rank r with r % 2s == s sends its partial merge (as snapshot bytes) to rank
 * r - s, which adds it after its own; rank 0 writes the result. The merge's tables are ordered
 * unions, so the file is byte for byte the one a single process writes. Not started by mpirun
 * (no MPI launcher in the environment), it merges alone without MPI.
 *
 * This file is built twice. In profview (PV_MPI 0) it merges alone, and under a launcher it
 * hands the command to profview-mpi, the program beside it (PV_MPI_HELPER 1: built when
 * OpenMPI is), by exec: so profview itself does not link OpenMPI, whose seven libraries every
 * run would load before main. In profview-mpi (PV_MPI 1) it is the whole program: the MPI merge.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pv/import.h"
#include "pv/merge.h"
#include "pv/output.h"
#include "pv/snapshot.h"
#include "say.h"

#if PV_MPI
#include <mpi.h>
#elif PV_MPI_HELPER
#include <errno.h>
#include <unistd.h>
#endif
#ifndef PV_MPI_HELPER
#define PV_MPI_HELPER 0
#endif

int cmd_merge(int argc, char **argv);

static void merge_usage(FILE *out)
{
	fputs(
	    "usage: profview merge -o OUT.pvs [options] FILE|DIR|@LIST...\n"
	    "       mpirun -np N profview merge -o OUT.pvs [options] FILE|DIR|@LIST...\n"
	    "\n"
	    "Merges many profiles (any formats, mixed) into one snapshot: their functions,\n"
	    "frames and stacks unified, each thread of each input an execution context of its\n"
	    "own (the per-context plots, 'profview contexts', read them). Inputs: a file; a\n"
	    "folder (its files, recursively, in name order; an HPCToolkit database is one\n"
	    "input); @LIST, a file naming one input a line.\n"
	    "\n"
	    "  -o, --output OUT          the snapshot to write (required; a regular file or a\n"
	    "                            new name)\n"
	    "  --format NAME             read every input as this format instead of probing\n"
	    "  --context-regex RE        an extended regular expression matched against each\n"
	    "                            input's file name; its groups are {1}..{9}\n"
	    "  --context-regex-path RE   the same, matched against the whole path as given\n"
	    "                            (per-rank folders holding files of one name)\n"
	    "  --context-name PATTERN    each context's name: {0}..{9}, {file}, {dir} (the\n"
	    "                            folder holding the file), {path}, {thread},\n"
	    "                            {process}, {pid}, {tid}, {input} (default '{file}',\n"
	    "                            '{file} {thread}' for an input of several threads);\n"
	    "                            a name taken before is numbered: 'x #2', 'x #3'\n"
	    "  --skip-bad                leave out the inputs that cannot be read, each named\n"
	    "                            with its error; exit code 3 when any was left out\n"
	    "  --stats                   print each rank's inputs, bytes sent, times and peak\n"
	    "                            memory on standard error\n"
	    "  -h, --help                this text\n"
	    "\n"
	    "Under mpirun (a build with MPI: meson -Dmpi=enabled) the ranks read disjoint shares\n"
	    "of the inputs and reduce their merges in a tree; rank 0 writes OUT.pvs, the same\n"
	    "bytes whatever the number of ranks.\n"
	    "\n"
	    "  profview merge -o all.pvs --context-regex 'rank-([0-9]+)' \\\n"
	    "      --context-name 'rank {1}' out/\n"
	    "  profview merge -o all.pvs --context-name 'rank {dir}' out/*/profile.json\n"
	    "\n",
	    out);
	fputs(PV_MPI || PV_MPI_HELPER
		  ? "this profview is built with MPI\n"
		  : "this profview is built without MPI (meson -Dmpi=enabled builds it in)\n",
	      out);
}

struct mpi {
	int rank, size;
	bool on;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void say_note(void *ctx, const char *msg)
{
	(void)ctx;
	cli_say("note", "merge: %s", msg);
}

/* Every rank leaves with the same code: the worst one (2 over 1 over 0). */
static int agree(const struct mpi *w, int rc)
{
#if PV_MPI
	if (w->on) {
		int worst = 0;
		MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		return worst;
	}
#else
	(void)w;
#endif
	return rc;
}

static int exit_code(int rc)
{
	return rc == PV_ENOMEM ? 1 : rc ? 2 : 0;
}

#if PV_MPI
#define CHUNK ((uint64_t)1 << 30)

/* The inputs as rank 0 listed them, on every rank: one message of their NUL-ended paths. */
static int share_list(const struct mpi *w, char ***paths, uint64_t *n, int rc)
{
	uint64_t head[2] = {(uint64_t)rc, 0};
	char *buf = NULL;
	if (w->rank == 0 && !rc) {
		for (uint64_t i = 0; i < *n; i++)
			head[1] += strlen((*paths)[i]) + 1;
		buf = malloc(head[1] ? head[1] : 1);
		if (!buf)
			head[0] = 1;
		for (uint64_t i = 0, at = 0; buf && i < *n; i++) {
			size_t l = strlen((*paths)[i]) + 1;
			memcpy(buf + at, (*paths)[i], l);
			at += l;
		}
	}
	MPI_Bcast(head, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if (head[0]) {
		free(buf);
		return (int)head[0];
	}
	if (w->rank != 0 && !(buf = malloc(head[1] ? head[1] : 1)))
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (uint64_t at = 0; at < head[1]; at += CHUNK) {
		uint64_t len = head[1] - at < CHUNK ? head[1] - at : CHUNK;
		MPI_Bcast(buf + at, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
	}
	if (w->rank != 0) {
		uint64_t count = 0;
		for (uint64_t at = 0; at < head[1]; at += strlen(buf + at) + 1)
			count++;
		char **v = calloc(count ? count : 1, sizeof(*v));
		if (!v)
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (uint64_t at = 0, i = 0; at < head[1]; at += strlen(buf + at) + 1)
			v[i++] = buf + at; /* pointing into buf: freed by free_list */
		*paths = v;
		*n = count;
		return 0;
	}
	free(buf);
	return 0;
}

static void send_bytes(const void *buf, uint64_t len, int to)
{
	MPI_Send(&len, 1, MPI_UINT64_T, to, 0, MPI_COMM_WORLD);
	for (uint64_t at = 0; at < len; at += CHUNK) {
		uint64_t n = len - at < CHUNK ? len - at : CHUNK;
		MPI_Send((const char *)buf + at, (int)n, MPI_BYTE, to, 1, MPI_COMM_WORLD);
	}
}

static void *recv_bytes(uint64_t *len, int from)
{
	MPI_Recv(len, 1, MPI_UINT64_T, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	char *buf = *len ? malloc(*len) : NULL;
	if (*len && !buf) {
		cli_say("error", "merge: rank %d: out of memory receiving %llu bytes", from,
			(unsigned long long)*len);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (uint64_t at = 0; at < *len; at += CHUNK) {
		uint64_t n = *len - at < CHUNK ? *len - at : CHUNK;
		MPI_Recv(buf + at, (int)n, MPI_BYTE, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	return buf;
}

/* A failure past the point where ranks wait for each other: every rank stops. */
static void fail_all(const struct pv_error *err)
{
	cli_say("error", "%s", err->msg);
	MPI_Abort(MPI_COMM_WORLD, 2);
}

/*
 * The binomial tree: returns true on the rank that ends with the whole merge (rank 0); the
 * others have sent theirs. *sent: the bytes this rank sent.
 */
static bool reduce(const struct mpi *w, struct pv_merge *m, uint64_t *sent)
{
	struct pv_error err;
	pv_error_clear(&err);
	for (int s = 1; s < w->size; s *= 2) {
		if (w->rank % (2 * s) == s) {
			void *buf = NULL;
			size_t len = 0;
			if (pv_merge_count(m)) {
				struct pv_profile *part = NULL;
				if (pv_merge_finish_partial(m, &part, &err) ||
				    pv_snapshot_write_memory(part, &buf, &len, &err))
					fail_all(&err);
				pv_profile_free(part);
			}
			send_bytes(buf, len, w->rank - s);
			*sent = len;
			free(buf);
			return false;
		}
		if (w->rank % (2 * s) == 0 && w->rank + s < w->size) {
			uint64_t len = 0;
			void *buf = recv_bytes(&len, w->rank + s);
			if (!len)
				continue;
			char name[64];
			snprintf(name, sizeof(name), "the partial merge of rank %d", w->rank + s);
			struct pv_profile *part = NULL;
			int rc = pv_import_memory(name, buf, (size_t)len, "snapshot", &part, &err);
			free(buf);
			if (!rc)
				rc = pv_profile_check(part, &err);
			if (!rc)
				rc = pv_merge_add_partial(m, part, &err);
			pv_profile_free(part);
			if (rc)
				fail_all(&err);
		}
	}
	return true;
}
#endif

static void free_list(const struct mpi *w, char **paths, uint64_t n)
{
	if (w->rank == 0) {
		pv_merge_inputs_free(paths, n);
		return;
	}
	if (n)
		free(paths[0]); /* the one buffer every path points into */
	free(paths);
}

/*
 * Sums v over the ranks, on every rank (without MPI: v itself).
 */
static uint64_t sum_all(const struct mpi *w, uint64_t v)
{
#if PV_MPI
	if (w->on) {
		uint64_t all = 0;
		MPI_Allreduce(&v, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
		return all;
	}
#else
	(void)w;
#endif
	return v;
}

/* An input's error that --skip-bad leaves out: the input's own, not the merge's (memory, limits).
 */
static bool skippable(int e)
{
	return e && e != PV_ENOMEM && e != PV_ELIMIT;
}

/* --stats: this rank's figures, printed by rank 0 in rank order. */
struct stats {
	double inputs, sent, t_read, t_reduce, t_write, peak_kb, cpu;
};

static void print_stats(const struct mpi *w, struct stats *st)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	st->peak_kb = (double)ru.ru_maxrss;
	st->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		  (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	struct stats *all = st;
#if PV_MPI
	if (w->on) {
		all = w->rank == 0 ? malloc((size_t)w->size * sizeof(*all)) : NULL;
		MPI_Gather(st, 7, MPI_DOUBLE, all, 7, MPI_DOUBLE, 0, MPI_COMM_WORLD);
		if (w->rank != 0 || !all)
			return;
	}
#endif
	for (int r = 0; r < w->size; r++)
		fprintf(stderr,
			"merge: rank %d of %d: %.0f inputs, read and merged in %.3f s, reduce %.3f "
			"s, write %.3f s, CPU %.3f s, sent %.0f bytes, peak RSS %.1f MB\n",
			r, w->size, all[r].inputs, all[r].t_read, all[r].t_reduce, all[r].t_write,
			all[r].cpu, all[r].sent, all[r].peak_kb / 1024.0);
	if (all != st)
		free(all);
}

static int merge_run(const struct mpi *w, int nargs, char **args, const char *outpath,
		     const struct pv_merge_opts *o, bool stats, bool skip_bad)
{
	struct pv_error err;
	pv_error_clear(&err);
	char **paths = NULL;
	uint64_t n = 0;
	int rc = 0;
	if (w->rank == 0) {
		rc = pv_merge_inputs_keep(args, nargs, skip_bad, &paths, &n, &err);
		if (!rc && n == 0)
			rc = pv_error_set(&err, PV_EINVAL, "merge: the arguments name no input");
		if (rc)
			cli_say("error", "%s", err.msg);
		rc = exit_code(rc);
	}
#if PV_MPI
	if (w->on)
		rc = share_list(w, &paths, &n, rc);
#endif
	if (rc)
		return rc;
	struct stats st = {0};
	double t0 = now();
	struct pv_merge *m = NULL;
	uint64_t lo = n * (uint64_t)w->rank / (uint64_t)w->size;
	uint64_t hi = n * (uint64_t)(w->rank + 1) / (uint64_t)w->size;
	uint64_t skipped = 0;
	int e = pv_merge_new(o, &m, &err);
	for (uint64_t i = lo; !e && i < hi; i++) {
		e = pv_merge_add_file(m, paths[i], i, &err);
		if (skip_bad && skippable(e)) {
			cli_say("skipped", "%s", err.msg);
			skipped++;
			e = 0;
		}
	}
	if (e)
		cli_say("error", "%s", err.msg);
	free_list(w, paths, n);
	st.inputs = (double)(hi - lo);
	st.t_read = now() - t0;
	if ((rc = agree(w, exit_code(e)))) {
		pv_merge_free(m);
		return rc;
	}
	skipped = sum_all(w, skipped);
	if (skipped && skipped == n) {
		if (w->rank == 0)
			cli_say("error",
				"merge: every one of the %llu inputs was skipped: %s not written",
				(unsigned long long)n, outpath);
		pv_merge_free(m);
		return 2;
	}
	bool root = true;
	double t1 = now();
#if PV_MPI
	uint64_t sent = 0;
	if (w->on)
		root = reduce(w, m, &sent);
	st.sent = (double)sent;
#endif
	st.t_reduce = now() - t1;
	if (root) {
		double t2 = now();
		struct pv_profile *p = NULL;
		pv_merge_skipped(m, skipped);
		e = pv_merge_finish(m, &p, &err);
		if (!e)
			e = pv_snapshot_write(p, outpath, NULL, &err);
		if (e)
			cli_say("error", "%s", err.msg);
		pv_profile_free(p);
		st.t_write = now() - t2;
	}
	pv_merge_free(m);
	rc = agree(w, exit_code(e));
	if (stats)
		print_stats(w, &st);
	if (!rc && skipped && w->rank == 0)
		cli_say(
		    "note",
		    "merge: %llu of the %llu inputs skipped (--skip-bad): %s holds the other %llu",
		    (unsigned long long)skipped, (unsigned long long)n, outpath,
		    (unsigned long long)(n - skipped));
	return rc ? rc : skipped ? 3 : 0;
}

/* Started by an MPI launcher (mpirun sets these), else alone without MPI. */
static bool under_launcher(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

#if PV_MPI_HELPER
/* Runs the command again as profview-mpi, the program beside this one: an exit code if not. */
static int run_helper(char **argv)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *name = "profview-mpi";
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		size_t dir = slash ? (size_t)(slash - self) + 1 : 0;
		if (dir + strlen(name) < sizeof(self)) {
			memcpy(self + dir, name, strlen(name) + 1);
			argv[0] = self;
			execv(self, argv);
		} else {
			errno = ENAMETOOLONG;
		}
	}
	cli_say("error", "merge: cannot start %s, the MPI part of profview merge: %s",
		n > 0 ? self : name, n > 0 ? strerror(errno) : "the program's own path is unknown");
	return 2;
}
#endif

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"format", required_argument, NULL, 'f'},
	    {"context-regex", required_argument, NULL, 'r'},
	    {"context-regex-path", required_argument, NULL, 'R'},
	    {"context-name", required_argument, NULL, 'n'},
	    {"skip-bad", no_argument, NULL, 'k'},
	    {"stats", no_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct pv_import_opts io = {0};
	struct pv_merge_opts o = {.note = say_note};
	struct pv_error err;
	pv_error_clear(&err);
	const char *outpath = NULL;
	bool stats = false, skip_bad = false;
	const char *re_name = NULL, *re_path = NULL;
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o': outpath = optarg; break;
		case 'f':
			if (pv_import_set_option(&io, "format", optarg, &err)) {
				cli_say("error", "%s (see 'profview merge --help')", err.msg);
				return 2;
			}
			o.format = io.format;
			break;
		case 'r': re_name = optarg; break;
		case 'R': re_path = optarg; break;
		case 'n': o.context_name = optarg; break;
		case 'k': skip_bad = true; break;
		case 's': stats = true; break;
		case 'h': merge_usage(stdout); return 0;
		case ':':
			cli_say("error", "option '%s' needs a value (see 'profview merge --help')",
				argv[optind - 1]);
			return 2;
		default:
			cli_say("error", "unknown option '%s' (see 'profview merge --help')",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind >= argc || !outpath) {
		cli_say("error", "%s (see 'profview merge --help')",
			optind >= argc ? "merge takes the profiles to merge"
				       : "merge needs -o OUT.pvs, the file to write");
		return 2;
	}
	if (re_name && re_path) {
		cli_say("error", "--context-regex and --context-regex-path: one of the two "
				 "(see 'profview merge --help')");
		return 2;
	}
	o.context_regex = re_path ? re_path : re_name;
	o.regex_on_path = re_path != NULL;
	/* the options and the output checked once, before any rank reads anything */
	struct pv_merge *probe = NULL;
	if (pv_merge_new(&o, &probe, &err)) {
		cli_say("error", "%s (see 'profview merge --help')", err.msg);
		return 2;
	}
	pv_merge_free(probe);
	if (pv_output_check(outpath, &err)) {
		cli_say("error", "%s", err.msg);
		return 2;
	}

	struct mpi w = {.rank = 0, .size = 1, .on = false};
#if PV_MPI_HELPER
	if (under_launcher())
		return run_helper(argv);
#elif !PV_MPI
	const char *ranks = getenv("OMPI_COMM_WORLD_SIZE");
	if (under_launcher() && ranks && strcmp(ranks, "1") != 0) {
		cli_say("error",
			"merge: this profview is built without MPI (meson -Dmpi=enabled): "
			"each of the %s ranks would merge everything; run it without mpirun",
			ranks);
		return 2;
	}
#else
	if (under_launcher()) {
		MPI_Init(&argc, &argv);
		MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
		MPI_Comm_size(MPI_COMM_WORLD, &w.size);
		w.on = true;
	}
#endif
	int rc = merge_run(&w, argc - optind, argv + optind, outpath, &o, stats, skip_bad);
#if PV_MPI
	if (w.on)
		MPI_Finalize();
#endif
	return rc;
}

#if PV_MPI
/* profview-mpi: `profview merge` under mpirun execs it with the command's arguments */
int main(int argc, char **argv)
{
	return cmd_merge(argc, argv);
}
#endif
