/*
 * cmd_merge.c - `profview merge -o OUT.pvs FILE|DIR|@LIST...`: many profiles as one snapshot,
 * each of their threads an execution context (pv/merge.h, doc/merge.md).
 *
 * Built with MPI (meson -Dmpi=enabled, PV_MPI 1) and started by mpirun, the ranks merge
 * consecutive shares of the inputs and reduce the dictionaries of their partial merges (every
 * table but the sample rows) in a binomial tree: at step s = 1, 2, 4, ... rank r with
 * r % 2s == s sends its subtree's dictionaries (as snapshot bytes) to rank r - s, which adds
 * them after its own and sends back where their stacks, metrics and label sets went. Rank 0
 * lays out the file with holes for the sample columns and every rank writes its own rows,
 * remapped, into them (merge_parts). The merge's tables are ordered unions, so the file is
 * byte for byte the one a single process writes. Under OpenMPI's mpirun each rank lists and
 * reads its share while MPI starts in a thread of its own (mpi_start, share_read), and MPI ends
 * there while rank 0 finishes the file (mpi_release). Not started by mpirun
 * (no MPI launcher in the environment), it merges alone without MPI.
 *
 * This file is built twice. In profview (PV_MPI 0) it merges alone, and under a launcher it
 * hands the command to profview-mpi, the program beside it (PV_MPI_HELPER 1: built when
 * OpenMPI is), by exec: so profview itself does not link OpenMPI, whose seven libraries every
 * run would load before main. In profview-mpi (PV_MPI 1) it is the whole program: the MPI merge.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "heap.h"
#include "pv/import.h"
#include "pv/merge.h"
#include "pv/output.h"
#include "pv/snapshot.h"
#include "say.h"

#if PV_MPI
#include <mpi.h>
#include <pthread.h>
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
	    "of the inputs, reduce their dictionaries in a tree and each write their own rows\n"
	    "into OUT.pvs: the same bytes whatever the number of ranks.\n"
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

/* --stats: this rank's figures, printed by rank 0 in rank order. */
struct stats {
	double inputs, sent, t_start, t_read, t_reduce, t_write, c_start, c_read, c_reduce, c_write,
	    peak_kb, cpu;
};
#define NR_STATS 12

/* when cmd_merge started (wall seconds): the start phase runs from there to the first input */
static double t_begin;

enum { RANK_STARTING, RANK_UP, RANK_CLOSING };

struct mpi {
	int rank, size;
	bool on;
#if PV_MPI
	/* early: MPI starting in a thread of its own (mpi_start) while this one reads the share the
	 * launcher's numbers give (guess_rank of guess_size); state under mu: RANK_STARTING,
	 * RANK_UP, RANK_CLOSING */
	bool early;
	int guess_rank, guess_size, state;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
#endif
};

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* This process's CPU time (user and system, every thread): what a loaded machine moves least. */
static double cpu_now(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static void say_note(void *ctx, const char *msg)
{
	(void)ctx;
	cli_say("note", "merge: %s", msg);
}

/* Every rank leaves with the same code: the worst one (2 over 1 over 0). A rank done with its
 * share waits here for the slowest one; OpenMPI's blocking collectives spin while they wait,
 * taking a core from the ranks still reading, so this one polls and sleeps 1 ms between tests. */
static int agree(const struct mpi *w, int rc)
{
#if PV_MPI
	if (w->on) {
		int worst = 0, done = 0;
		MPI_Request req;
		MPI_Iallreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
		for (;;) {
			MPI_Test(&req, &done, MPI_STATUS_IGNORE);
			if (done)
				break;
			nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
		}
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

/* st's peak RSS and CPU time so far. */
static void stats_now(struct stats *st)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	st->peak_kb = (double)ru.ru_maxrss;
	st->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		  (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* Every rank's stats at rank 0 (a new array; NULL on the other ranks and when none is kept). */
static struct stats *gather_stats(const struct mpi *w, struct stats *st)
{
	stats_now(st);
	struct stats *all = malloc((size_t)w->size * sizeof(*all));
#if PV_MPI
	if (w->on) {
		if (w->rank != 0)
			free(all), all = NULL;
		MPI_Gather(st, NR_STATS, MPI_DOUBLE, all, NR_STATS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
		return all;
	}
#endif
	if (all)
		*all = *st;
	return all;
}

/* The stats gathered (rank 0's own made current: st), a line a rank; all freed. */
static void print_stats(const struct mpi *w, struct stats *all, struct stats *st)
{
	if (!all)
		return;
	stats_now(st);
	all[0] = *st;
	for (int r = 0; r < w->size; r++)
		fprintf(
		    stderr,
		    "merge: rank %d of %d: start %.3f s (CPU %.3f), %.0f inputs, read and merged "
		    "in %.3f s (CPU %.3f), reduce %.3f s (CPU %.3f), write %.3f s (CPU %.3f), CPU "
		    "%.3f s, sent %.0f bytes, peak RSS %.1f MB\n",
		    r, w->size, all[r].t_start, all[r].c_start, all[r].inputs, all[r].t_read,
		    all[r].c_read, all[r].t_reduce, all[r].c_reduce, all[r].t_write, all[r].c_write,
		    all[r].cpu, all[r].sent, all[r].peak_kb / 1024.0);
	free(all);
}

#if PV_MPI
#define CHUNK ((uint64_t)1 << 30)

static void mpi_release(struct mpi *w);

/* The inputs as rank 0 listed them, on every rank: one message of their NUL-ended paths. Rank 0
 * keeps its own list; another rank gets rank 0's in *paths and *n (one buffer every path points
 * into: free_shared). */
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
			v[i++] = buf + at; /* pointing into buf: freed by free_shared */
		if (!count)
			free(buf);
		*paths = v;
		*n = count;
		return 0;
	}
	free(buf);
	return 0;
}

/* A list share_list received. */
static void free_shared(char **paths, uint64_t n)
{
	if (n)
		free(paths[0]); /* the one buffer every path points into */
	free(paths);
}

/* Whether two lists of inputs are the same paths in the same order. */
static bool same_list(char *const *a, uint64_t na, char *const *b, uint64_t nb)
{
	if (na != nb)
		return false;
	for (uint64_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
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

/* The maps of a rank's rows (or of a child's dictionary) sent to it: n values each. */
static void send_map(const struct pv_merge_map *mp, int to)
{
	send_bytes(mp->stack, (uint64_t)mp->nstack * 4, to);
	send_bytes(mp->metric, (uint64_t)mp->nmetric * 4, to);
	send_bytes(mp->lset, (uint64_t)mp->nlset * 4, to);
}

static void recv_map(struct pv_merge_map *mp, int from)
{
	uint64_t len;
	mp->stack = recv_bytes(&len, from);
	mp->nstack = (uint32_t)(len / 4);
	mp->metric = recv_bytes(&len, from);
	mp->nmetric = (uint32_t)(len / 4);
	mp->lset = recv_bytes(&len, from);
	mp->nlset = (uint32_t)(len / 4);
}

/* *mp's values through the final map f: where its rows go in the file. */
static void compose(struct pv_merge_map *mp, const struct pv_merge_map *f)
{
	for (uint32_t i = 0; i < mp->nstack; i++)
		mp->stack[i] = mp->stack[i] == PV_NONE ? PV_NONE : f->stack[mp->stack[i]];
	for (uint32_t i = 0; i < mp->nmetric; i++)
		mp->metric[i] = f->metric[mp->metric[i]];
	for (uint32_t i = 0; i < mp->nlset; i++)
		mp->lset[i] = f->lset[mp->lset[i]];
}

/* Receives rank `from`'s dictionary and adds it to d; *mp: where its rows go in d. */
static void recv_dictionary(struct pv_merge *d, int from, struct pv_merge_map *mp)
{
	struct pv_error err;
	pv_error_clear(&err);
	uint64_t len = 0;
	void *buf = recv_bytes(&len, from);
	if (!len) /* a subtree without inputs */
		return;
	char name[64];
	snprintf(name, sizeof(name), "the dictionaries of rank %d", from);
	struct pv_profile *part = NULL;
	int rc = pv_import_memory(name, buf, (size_t)len, "snapshot", &part, &err);
	free(buf);
	if (!rc)
		rc = pv_profile_check(part, &err);
	if (!rc)
		rc = pv_merge_add_dictionary(d, part, mp, &err);
	pv_profile_free(part);
	if (rc)
		fail_all(&err);
}

/*
 * The binomial tree of the dictionaries (d holds this rank's own; the rows stay where they
 * are): at step s, rank r with r % 2s == s sends d's tables to r - s and gets back where they
 * are in the final tables; then tells its children where theirs are. On rank 0, *fin is the
 * finished result (with no rows); on every rank, *own is made final. *sent: the bytes sent.
 */
static void reduce_dictionaries(const struct mpi *w, struct pv_merge *d, struct pv_merge_map *own,
				struct pv_profile **fin, uint64_t *sent)
{
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_merge_map kids[64] = {{0}}, f = {0};
	int nkids = 0, parent = -1;
	for (int s = 1; s < w->size; s *= 2) {
		if (w->rank % (2 * s) == s) {
			parent = w->rank - s;
			break;
		}
		if (w->rank + s < w->size)
			recv_dictionary(d, w->rank + s, &kids[nkids++]);
	}
	struct pv_profile *p = NULL;
	if (parent < 0 ? pv_merge_finish(d, &p, &err)
		       : pv_merge_count(d) && pv_merge_finish_partial(d, &p, &err))
		fail_all(&err);
	if (parent >= 0) {
		void *buf = NULL;
		size_t len = 0;
		if (p && pv_snapshot_write_memory(p, &buf, &len, &err))
			fail_all(&err);
		send_bytes(buf, len, parent);
		*sent = len;
		free(buf);
		recv_map(&f, parent);
		pv_profile_free(p);
	} else { /* the final tables: every row where it is */
		f.nstack = p->stacks.len, f.nmetric = p->metrics.len, f.nlset = p->label_sets.len;
		f.stack = malloc(((size_t)f.nstack + 1) * 4);
		f.metric = malloc(((size_t)f.nmetric + 1) * 4);
		f.lset = malloc(((size_t)f.nlset + 1) * 4);
		if (!f.stack || !f.metric || !f.lset)
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (uint32_t i = 0; i < f.nstack; i++)
			f.stack[i] = i;
		for (uint32_t i = 0; i < f.nmetric; i++)
			f.metric[i] = i;
		for (uint32_t i = 0; i < f.nlset; i++)
			f.lset[i] = i;
		*fin = p;
	}
	compose(own, &f);
	for (int k = 0; k < nkids; k++) {
		compose(&kids[k], &f);
		send_map(&kids[k], w->rank + (1 << k));
		pv_merge_map_free(&kids[k]);
	}
	free(f.stack);
	free(f.metric);
	free(f.lset);
}

/* The flags of the sample columns: which the file has (an OR over every rank's rows). */
enum { C_TIME, C_LSET, C_DELAY, C_ADDR, C_WEIGHT };

static void column_flags(const struct pv_profile *p, const struct pv_merge_map *own, uint32_t nfile,
			 uint8_t *flag)
{
	const struct pv_samples *s = &p->samples;
	for (uint32_t i = 0; i < s->len; i++) {
		flag[C_TIME] |= pv_sample_time(p, i) != PV_TIME_NONE;
		flag[C_LSET] |= s->label_set && own->lset[s->label_set[i]] != 0;
		flag[C_DELAY] |= s->event_delay_ns && s->event_delay_ns[i] != PV_TIME_NONE;
		flag[C_ADDR] |= s->addr && s->addr[i] != PV_ADDR_NONE;
	}
	for (uint32_t j = 0; j < p->metrics.len; j++) {
		const int64_t *wt = s->weight ? s->weight[j] : NULL;
		for (uint32_t i = 0; wt && i < s->len; i++)
			flag[C_WEIGHT + own->metric[j]] |= wt[i] != 1;
	}
	/* a metric of the file that these rows do not have weighs 0 on them */
	for (uint32_t k = 0; s->len && k < nfile; k++) {
		bool has = false;
		for (uint32_t j = 0; j < p->metrics.len; j++)
			has |= own->metric[j] == k;
		flag[C_WEIGHT + k] |= !has;
	}
}

static void pwrite_all(int fd, const void *buf, size_t n, uint64_t off, const char *path)
{
	const char *b = buf;
	while (n) {
		ssize_t r = pwrite(fd, b, n, (off_t)off);
		if (r <= 0) {
			cli_say("error", "%s: cannot write: %s", path, strerror(errno));
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		b += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
}

/* value i of the sample column `col` (C_WEIGHT + k: metric k of the file) of this rank's rows */
static uint64_t row_value(const struct pv_profile *p, const struct pv_merge_map *own, int col,
			  uint32_t i, const uint32_t *mine)
{
	const struct pv_samples *s = &p->samples;
	switch (col) {
	case -1: return s->stack[i] == PV_NONE ? PV_NONE : own->stack[s->stack[i]];
	case C_TIME: return (uint64_t)pv_sample_time(p, i);
	case C_LSET: return s->label_set ? own->lset[s->label_set[i]] : 0;
	case C_DELAY:
		return s->event_delay_ns ? (uint64_t)s->event_delay_ns[i] : (uint64_t)PV_TIME_NONE;
	case C_ADDR: return s->addr ? s->addr[i] : PV_ADDR_NONE;
	default: /* *mine: this rows' metric that is the file's, PV_NONE: none (weight 0) */
		if (*mine == PV_NONE)
			return 0;
		return s->weight && s->weight[*mine] ? (uint64_t)s->weight[*mine][i] : 1;
	}
}

/* Writes this rank's rows of column col (elements of elt bytes) at off + row0 * elt. */
static void write_column(const struct pv_profile *p, const struct pv_merge_map *own, int col,
			 size_t elt, int fd, uint64_t off, uint64_t row0, const char *path)
{
	uint32_t n = p->samples.len, mine = PV_NONE;
	for (uint32_t j = 0; col >= C_WEIGHT && j < p->metrics.len; j++)
		if (own->metric[j] == (uint32_t)(col - C_WEIGHT))
			mine = j;
	char *buf = malloc((size_t)(n ? n : 1) * elt);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = row_value(p, own, col, i, &mine);
		if (elt == 4) {
			uint32_t u = (uint32_t)v;
			memcpy(buf + (size_t)i * 4, &u, 4);
		} else {
			memcpy(buf + (size_t)i * 8, &v, 8);
		}
	}
	pwrite_all(fd, buf, (size_t)n * elt, off + row0 * elt, path);
	free(buf);
}

/* Rank 0's result gets each context's rows: one count a thread from every rank, in order. */
static void gather_ranges(const struct mpi *w, const struct pv_profile *rows,
			  struct pv_profile *fin)
{
	int n = rows ? (int)rows->threads.len : 0, *counts = NULL, *displs = NULL;
	uint32_t *mine = malloc(((size_t)n + 1) * 4), *all = NULL;
	if (!mine)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int t = 0; t < n; t++)
		mine[t] = rows->threads.sample_end[t] - rows->threads.sample_begin[t];
	if (w->rank == 0 && (!(counts = malloc((size_t)w->size * sizeof(int))) ||
			     !(displs = malloc((size_t)w->size * sizeof(int)))))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	uint64_t nt = 0;
	for (int r = 0; w->rank == 0 && r < w->size; r++) {
		displs[r] = (int)nt;
		nt += (uint64_t)counts[r];
	}
	if (w->rank == 0 && (nt != fin->threads.len || !(all = malloc((nt + 1) * 4)))) {
		cli_say("error", "merge: %llu contexts' rows for %u contexts",
			(unsigned long long)nt, fin->threads.len);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Gatherv(mine, n, MPI_UINT32_T, all, counts, displs, MPI_UINT32_T, 0, MPI_COMM_WORLD);
	uint32_t at = 0;
	for (uint64_t t = 0; w->rank == 0 && t < nt; t++) { /* as the builder groups them */
		fin->threads.sample_begin[t] = all[t] ? at : 0;
		fin->threads.sample_end[t] = all[t] ? at + all[t] : 0;
		at += all[t];
	}
	free(mine);
	free(all);
	free(counts);
	free(displs);
}

static const uint32_t section_id[] = {51, 52, 53, 54, 90, 128}; /* stack, then C_* */
static const size_t section_elt[] = {4, 8, 4, 8, 8, 8};

/* Rank 0 lays the file out with holes for the rows; every rank learns where (off[1 + col]). */
static int begin_file(const struct mpi *w, struct pv_profile *fin, const uint8_t *flag,
		      uint32_t nmet, uint64_t total, const char *outpath,
		      struct pv_snapshot_parts **sp, char *tmp, uint64_t *off)
{
	struct pv_error err;
	pv_error_clear(&err);
	int rc = 0;
	if (w->rank == 0) {
		struct pv_snapshot_rows r = {.rows = (uint32_t)total,
					     .cols = (flag[C_TIME] ? PV_SNAP_TIME : 0u) |
						     (flag[C_LSET] ? PV_SNAP_LABEL_SET : 0u) |
						     (flag[C_DELAY] ? PV_SNAP_EVENT_DELAY : 0u) |
						     (flag[C_ADDR] ? PV_SNAP_ADDR : 0u),
					     .weight = flag + C_WEIGHT};
		if (total > UINT32_MAX - 1u) /* the model's row limit */
			rc = pv_error_set(&err, PV_ELIMIT,
					  "merge: %llu sample rows: past the "
					  "limit of 2^32 - 2",
					  (unsigned long long)total);
		else
			rc = pv_snapshot_parts_begin(fin, &r, outpath, sp, &err);
		if (rc)
			cli_say("error", "%s", err.msg);
		else
			snprintf(tmp, PATH_MAX, "%s", pv_snapshot_parts_file(*sp));
		for (uint32_t c = 0; !rc && c < C_WEIGHT + 1 + nmet; c++)
			off[c] = pv_snapshot_parts_offset(*sp, section_id[c < 5 ? c : 5],
							  c < 5 ? 0 : c - 5);
	}
	if ((rc = agree(w, exit_code(rc))))
		return rc;
	MPI_Bcast(tmp, PATH_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_Bcast(off, (int)(C_WEIGHT + 1 + nmet), MPI_UINT64_T, 0, MPI_COMM_WORLD);
	return 0;
}

/*
 * The merge in which every rank writes its rows: the dictionaries go up the tree, where each
 * rank's rows go comes down, rank 0 lays out the file and every rank writes its rows into it.
 */
static int merge_parts(struct mpi *w, const struct pv_merge_opts *o, struct pv_merge *m,
		       const char *outpath, uint64_t skipped, struct stats *st, struct stats **all)
{
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_profile *rows = NULL, *fin = NULL;
	struct pv_merge *d = NULL;
	struct pv_merge_map own = {0};
	uint64_t sent = 0;
	double t1 = now(), c1 = cpu_now();
	if (pv_merge_new(o, &d, &err) ||
	    (pv_merge_count(m) && (pv_merge_finish_partial(m, &rows, &err) ||
				   pv_merge_add_dictionary(d, rows, &own, &err))))
		fail_all(&err);
	if (w->rank == 0)
		pv_merge_skipped(d, skipped);
	reduce_dictionaries(w, d, &own, &fin, &sent);
	pv_merge_free(d);
	st->sent = (double)sent;
	uint32_t nmet = fin ? fin->metrics.len : 0;
	MPI_Bcast(&nmet, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
	uint8_t *flag = calloc(C_WEIGHT + 1 + (size_t)nmet, 1);
	uint64_t *off = calloc(C_WEIGHT + 1 + (size_t)nmet, 8);
	uint8_t *any = calloc(C_WEIGHT + 1 + (size_t)nmet, 1);
	if (!flag || !off || !any)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rows)
		column_flags(rows, &own, nmet, flag);
	MPI_Allreduce(flag, any, (int)(C_WEIGHT + nmet), MPI_UINT8_T, MPI_BOR, MPI_COMM_WORLD);
	uint64_t n = rows ? rows->samples.len : 0, row0 = 0, total = 0;
	MPI_Exscan(&n, &row0, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(&n, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	row0 = w->rank == 0 ? 0 : row0;
	gather_ranges(w, rows, fin);
	st->t_reduce = now() - t1;
	st->c_reduce = cpu_now() - c1;
	double t2 = now(), c2 = cpu_now();
	char tmp[PATH_MAX];
	struct pv_snapshot_parts *sp = NULL;
	int rc = begin_file(w, fin, any, nmet, total, outpath, &sp, tmp, off);
	int fd = rc ? -1 : open(tmp, O_WRONLY | O_CLOEXEC);
	if (!rc && fd < 0) {
		cli_say("error", "%s: cannot open it to write: %s", tmp, strerror(errno));
		rc = 2;
	}
	for (int c = -1; rows && fd >= 0 && c < (int)(C_WEIGHT + nmet); c++)
		if (c < 0 || any[c])
			write_column(rows, &own, c, section_elt[c < C_WEIGHT ? c + 1 : 5], fd,
				     off[c + 1], row0, tmp);
	if (fd >= 0 && close(fd)) {
		cli_say("error", "%s: cannot write: %s", tmp, strerror(errno));
		rc = 2;
	}
	rc = agree(w, rc);
	st->t_write = now() - t2;
	st->c_write = cpu_now() - c2;
	if (all)
		*all = gather_stats(w, st);
	/* the last call of MPI: it ends while rank 0 checksums and renames the file, which only
	 * rank 0's exit code reports (mpirun's is the first rank's that is not 0) */
	mpi_release(w);
	if (!rc && w->rank == 0 && (rc = pv_snapshot_parts_finish(sp, &err)))
		cli_say("error", "%s", err.msg);
	pv_snapshot_parts_free(sp);
	st->t_write = now() - t2;
	st->c_write = cpu_now() - c2;
	pv_merge_map_free(&own);
	pv_profile_free(rows);
	pv_profile_free(fin);
	free(flag);
	free(off);
	free(any);
	return exit_code(rc);
}
#endif

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

/* The merge alone: rank 0 holds every row and writes the file. */
static int merge_write(struct pv_merge *m, const char *outpath, uint64_t skipped, struct stats *st)
{
	struct pv_error err;
	pv_error_clear(&err);
	double t2 = now(), c2 = cpu_now();
	struct pv_profile *p = NULL;
	pv_merge_skipped(m, skipped);
	int e = pv_merge_finish(m, &p, &err);
	if (!e)
		e = pv_snapshot_write(p, outpath, NULL, &err);
	if (e)
		cli_say("error", "%s", err.msg);
	pv_profile_free(p);
	st->t_write = now() - t2;
	st->c_write = cpu_now() - c2;
	return e;
}

/* The inputs [lo, hi) of n that rank r of size merges: a consecutive share. */
static void share_of(uint64_t n, int r, int size, uint64_t *lo, uint64_t *hi)
{
	*lo = n * (uint64_t)r / (uint64_t)size;
	*hi = n * (uint64_t)(r + 1) / (uint64_t)size;
}

/* paths[lo, hi) merged into a new *m: an exit code, each bad input said (skipped and counted in
 * *skipped with --skip-bad). */
static int read_share(const struct pv_merge_opts *o, char *const *paths, uint64_t lo, uint64_t hi,
		      bool skip_bad, struct pv_merge **m, uint64_t *skipped)
{
	struct pv_error err;
	pv_error_clear(&err);
	*skipped = 0;
	int e = pv_merge_new(o, m, &err);
	for (uint64_t i = lo; !e && i < hi; i++) {
		e = pv_merge_add_file(*m, paths[i], i, &err);
		if (skip_bad && skippable(e)) {
			cli_say("skipped", "%s", err.msg);
			(*skipped)++;
			e = 0;
		}
	}
	if (e)
		cli_say("error", "%s", err.msg);
	return exit_code(e);
}

#if PV_MPI
static void mpi_up(struct mpi *w);

/*
 * MPI up, and this rank's share merged from rank 0's list. A rank that read before MPI was up
 * (early) keeps what it read when rank 0's list is its own and MPI numbers it as the launcher
 * did; else (a folder that changed between the ranks' listings) it reads its share again from
 * rank 0's list, said in a note.
 */
static int share_read(struct mpi *w, char ***paths, uint64_t *n, int rc, int *e,
		      const struct pv_merge_opts *o, bool skip_bad, struct pv_merge **m,
		      uint64_t *skipped)
{
	mpi_up(w);
	char **list = *paths;
	uint64_t count = *n;
	if ((rc = share_list(w, &list, &count, rc))) {
		pv_merge_inputs_free(*paths, *n);
		*paths = NULL, *n = 0;
		return rc;
	}
	bool kept = w->early && w->rank == w->guess_rank && w->size == w->guess_size &&
		    (w->rank == 0 || same_list(*paths, *n, list, count));
	if (w->rank != 0) {
		if (w->early)
			pv_merge_inputs_free(*paths, *n);
		*paths = list, *n = count;
	}
	if (!kept) {
		if (w->early)
			cli_say("note", "merge: rank %d read its inputs again: %s", w->rank,
				w->rank != w->guess_rank || w->size != w->guess_size
				    ? "MPI numbered the ranks otherwise than the launcher"
				    : "its listing of the arguments was not rank 0's");
		pv_merge_free(*m);
		uint64_t lo, hi;
		share_of(*n, w->rank, w->size, &lo, &hi);
		*e = read_share(o, *paths, lo, hi, skip_bad, m, skipped);
	}
	return 0;
}
#endif

static int merge_run(struct mpi *w, int nargs, char **args, const char *outpath,
		     const struct pv_merge_opts *o, bool stats, bool skip_bad)
{
	struct pv_error err;
	pv_error_clear(&err);
	char **paths = NULL;
	uint64_t n = 0;
	int rc = 0;
	bool early = false;
#if PV_MPI
	early = w->early;
#endif
	/* rank 0 lists the inputs; with MPI still starting, every rank (rank 0's list is the one
	 * kept: share_read) */
	if (w->rank == 0 || early) {
		rc = pv_merge_inputs_keep(args, nargs, skip_bad, &paths, &n, &err);
		if (!rc && n == 0)
			rc = pv_error_set(&err, PV_EINVAL, "merge: the arguments name no input");
		if (rc && w->rank == 0)
			cli_say("error", "%s", err.msg);
		rc = exit_code(rc);
	}
	struct stats st = {0};
	double t0 = now(), c0 = cpu_now();
	/* the process's CPU time so far: its start, MPI_Init's, the list's (exec keeps it) */
	st.t_start = t0 - t_begin;
	st.c_start = c0;
	struct pv_merge *m = NULL;
	uint64_t lo, hi, skipped = 0;
	int e = 0;
	if (!rc && (!w->on || early)) {
		share_of(n, w->rank, w->size, &lo, &hi);
		e = read_share(o, paths, lo, hi, skip_bad, &m, &skipped);
	}
#if PV_MPI
	if (w->on)
		rc = share_read(w, &paths, &n, rc, &e, o, skip_bad, &m, &skipped);
#endif
	if (rc) {
		pv_merge_free(m);
		return rc;
	}
	share_of(n, w->rank, w->size, &lo, &hi);
#if PV_MPI
	if (w->rank != 0)
		free_shared(paths, n);
	else
#endif
		pv_merge_inputs_free(paths, n);
	st.inputs = (double)(hi - lo);
	st.t_read = now() - t0;
	st.c_read = cpu_now() - c0;
	if ((rc = agree(w, e))) {
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
	struct stats *all = NULL;
	if (w->on) {
#if PV_MPI
		e = merge_parts(w, o, m, outpath, skipped, &st, stats ? &all : NULL);
#endif
	} else {
		e = exit_code(merge_write(m, outpath, skipped, &st));
		if (stats)
			all = gather_stats(w, &st);
	}
	pv_merge_free(m);
	rc = e;
	if (stats)
		print_stats(w, all, &st);
	if (!rc && skipped && w->rank == 0)
		cli_say(
		    "note",
		    "merge: %llu of the %llu inputs skipped (--skip-bad): %s holds the other %llu",
		    (unsigned long long)skipped, (unsigned long long)n, outpath,
		    (unsigned long long)(n - skipped));
	return rc ? rc : skipped ? 3 : 0;
}

#if PV_MPI
/* MPI_Init's thread, which ends MPI too (the thread that starts MPI ends it): MPI up, it waits
 * until mpi_stop asks. */
static void *mpi_thread(void *arg)
{
	struct mpi *w = arg;
	int provided = MPI_THREAD_SINGLE;
	MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
	pthread_mutex_lock(&w->mu);
	w->state = RANK_UP;
	pthread_cond_broadcast(&w->cv);
	while (w->state != RANK_CLOSING)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	MPI_Finalize();
	return NULL;
}

/*
 * MPI started. When every rank is on this node, OpenMPI's ob1 point-to-point layer (over shared
 * memory), unless one was chosen (OMPI_MCA_pml: the environment, or mpirun --mca pml, which sets
 * it). By default each rank first tries the cm layer and its network libraries (psm, psm2): 0.3 s
 * of each rank's start on a machine without that network, for a merge that sends a few MB. Across
 * nodes the site's choice stands (ob1 may have no network layer there).
 *
 * Under OpenMPI's launcher, which says each rank's number and the job's size, MPI starts in a
 * thread while this one lists and reads the share those numbers give: MPI_Init's 0.09-0.15 s
 * (35-40 ms of it CPU, the rest waiting on the launcher) is the time of ~1,000 inputs. Only this
 * thread calls MPI once
 * it is up (MPI_THREAD_SERIALIZED, the two threads ordered by mu). Elsewhere MPI starts first.
 */
static void mpi_start(struct mpi *w)
{
	const char *size = getenv("OMPI_COMM_WORLD_SIZE");
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	const char *rank = getenv("OMPI_COMM_WORLD_RANK");
	if (size && local && strcmp(size, local) == 0)
		setenv("OMPI_MCA_pml", "ob1", 0);
	w->on = true;
	char *end1 = NULL, *end2 = NULL;
	long r = rank ? strtol(rank, &end1, 10) : -1, n = size ? strtol(size, &end2, 10) : 0;
	if (r >= 0 && n > r && n <= INT_MAX && !*end1 && !*end2) {
		w->guess_rank = w->rank = (int)r;
		w->guess_size = w->size = (int)n;
		w->state = RANK_STARTING;
		pthread_mutex_init(&w->mu, NULL);
		pthread_cond_init(&w->cv, NULL);
		if (pthread_create(&w->thread, NULL, mpi_thread, w) == 0) {
			w->early = true;
			return;
		}
	}
	MPI_Init(NULL, NULL);
	MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &w->size);
}

/* MPI up: its own numbers for this rank and the job. */
static void mpi_up(struct mpi *w)
{
	if (w->early) {
		pthread_mutex_lock(&w->mu);
		while (w->state != RANK_UP)
			pthread_cond_wait(&w->cv, &w->mu);
		pthread_mutex_unlock(&w->mu);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &w->size);
}

/* No more MPI calls from this thread: MPI's own thread ends it (early), meanwhile. */
static void mpi_release(struct mpi *w)
{
	if (!w->early)
		return;
	pthread_mutex_lock(&w->mu);
	w->state = RANK_CLOSING;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

/* MPI ended, by the thread that started it. */
static void mpi_stop(struct mpi *w)
{
	if (!w->early) {
		MPI_Finalize();
		return;
	}
	mpi_release(w);
	pthread_join(w->thread, NULL);
}
#endif

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
	t_begin = now();
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
	if (under_launcher())
		mpi_start(&w);
#endif
	int rc = merge_run(&w, argc - optind, argv + optind, outpath, &o, stats, skip_bad);
#if PV_MPI
	if (w.on)
		mpi_stop(&w);
#endif
	return rc;
}

#if PV_MPI
/* profview-mpi: `profview merge` under mpirun execs it with the command's arguments */
int main(int argc, char **argv)
{
	cli_heap(true); /* as profview's main, which exec'd this program, set it */
	return cmd_merge(argc, argv);
}
#endif
