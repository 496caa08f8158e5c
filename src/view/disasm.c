/*
 * disasm.c - the instructions of sampled functions with their costs (pv/disasm.h): the ELF
 * program headers for the address convention, objdump run with a bounded output and time, its
 * text parsed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/vec.h"
#include "import/symbols.h"
#include "pv/disasm.h"
#include "view/internal.h"

extern char **environ;

#define RANGE_MAX (1u << 20) /* bytes of code per function */
#define SEGS_MAX  16

void pv_disasm_free(struct pv_disasm *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->n; i++) {
		pv_free(d->insn[i].text);
		pv_free(d->insn[i].file);
	}
	pv_free(d->insn);
	for (uint32_t i = 0; i < d->nr_notes; i++)
		pv_free(d->notes[i]);
	pv_free(d->notes);
	pv_free(d);
}

__attribute__((format(printf, 2, 3))) static int note(struct pv_disasm *d, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (uint32_t i = 0; i < d->nr_notes; i++) /* one note per cause */
		if (!strcmp(d->notes[i], buf))
			return 0;
	char **n = pv_realloc(d->notes, ((size_t)d->nr_notes + 1) * sizeof(*n));
	if (!n)
		return PV_ENOMEM;
	d->notes = n;
	if (!(n[d->nr_notes] = pv_strdup(buf)))
		return PV_ENOMEM;
	d->nr_notes++;
	return 0;
}

/* ---- the binary's executable segments ---- */

struct seg {
	uint64_t off, filesz, vaddr, memsz;
};

static uint64_t rd(const unsigned char *b, int n)
{
	uint64_t v = 0;
	for (int i = n; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

/*
 * The executable PT_LOAD segments of the ELF file at path (little-endian, 32 or 64 bits) into
 * segs; returns how many (0: none known, addresses used as they are), or -1 with a note when the
 * file is missing or not ELF.
 */
static int elf_segs(struct pv_disasm *d, const char *path, struct seg *segs, int *oom)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		*oom = note(d, "binary %s not found: no disassembly", path);
		return -1;
	}
	unsigned char h[64];
	ssize_t got = pread(fd, h, sizeof(h), 0);
	if (got < 52 || memcmp(h, "\177ELF", 4)) {
		close(fd);
		*oom = note(d, "%s is not an ELF file: no disassembly", path);
		return -1;
	}
	int n = 0, is64 = h[4] == 2;
	if (h[5] != 1 || (!is64 && h[4] != 1)) { /* big-endian: addresses used as they are */
		close(fd);
		return 0;
	}
	uint64_t phoff = is64 ? rd(h + 32, 8) : rd(h + 28, 4);
	unsigned phentsize = (unsigned)rd(h + (is64 ? 54 : 42), 2),
		 phnum = (unsigned)rd(h + (is64 ? 56 : 44), 2);
	for (unsigned i = 0; i < phnum && i < 256 && n < SEGS_MAX; i++) {
		unsigned char ph[56];
		if (phentsize > sizeof(ph) || phentsize < (is64 ? 56u : 32u) ||
		    pread(fd, ph, phentsize, (off_t)(phoff + (uint64_t)i * phentsize)) !=
			(ssize_t)phentsize)
			break;
		uint32_t type = (uint32_t)rd(ph, 4),
			 flags = (uint32_t)(is64 ? rd(ph + 4, 4) : rd(ph + 24, 4));
		if (type != 1 || !(flags & 1)) /* PT_LOAD, PF_X */
			continue;
		segs[n++] = is64 ? (struct seg){rd(ph + 8, 8), rd(ph + 32, 8), rd(ph + 16, 8),
						rd(ph + 40, 8)}
				 : (struct seg){rd(ph + 4, 4), rd(ph + 16, 4), rd(ph + 8, 4),
						rd(ph + 20, 4)};
	}
	close(fd);
	return n;
}

/* The file address of model address a (PV_ADDR_NONE: in no executable segment). */
static uint64_t file_addr(const struct seg *s, int n, uint64_t a)
{
	if (n == 0)
		return a;
	for (int i = 0; i < n; i++)
		if (a >= s[i].vaddr && a - s[i].vaddr < s[i].memsz)
			return a;
	for (int i = 0; i < n; i++)
		if (a >= s[i].off && a - s[i].off < s[i].filesz)
			return a - s[i].off + s[i].vaddr;
	return PV_ADDR_NONE;
}

/* ---- objdump ---- */

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* What ended a function's disassembly short (pv/disasm.h's bounds). */
enum cut { CUT_NONE, CUT_TIME, CUT_BYTES, CUT_INSNS, CUT_STOP };

/* What is left of the answer's bounds. */
struct budget {
	const atomic_int *stop;
	int64_t end_ms; /* the answer's deadline */
	uint32_t ms;	/* the answer's time, for the notes */
	uint64_t bytes; /* of objdump's output */
	uint32_t insns;
};

/* One function's share of the budget, and whether each bound is the answer's (else the
 * function's own). */
struct share {
	int64_t end_ms;
	uint64_t bytes;
	uint32_t insns;
	bool answer_ms, answer_bytes, answer_insns;
};

static bool stopped(const struct budget *b)
{
	return b->stop && atomic_load(b->stop);
}

/* Whether s .. e is one of objdump's instruction lines: "    1139:\tmov    %edi,%edx". */
static bool insn_line(const char *s, const char *e)
{
	if (s == e || *s != ' ')
		return false;
	while (s < e && *s == ' ')
		s++;
	const char *h = s;
	while (s < e && ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
		s++;
	return s > h && s < e && *s == ':';
}

/* Why a function was cut or not disassembled: the bound reached, the answer's or its own. */
static void cut_reason(char *buf, size_t n, enum cut c, const struct budget *b, bool answer)
{
	const char *per = answer ? "answer" : "function";
	switch (c) {
	case CUT_TIME:
		snprintf(buf, n, "more than %u ms (the bound per %s)",
			 answer ? b->ms : PV_DISASM_FUNC_MS, per);
		break;
	case CUT_BYTES:
		snprintf(buf, n, "more than %u KiB of objdump's output (the bound per %s)",
			 (answer ? PV_DISASM_BYTES : PV_DISASM_FUNC_BYTES) >> 10, per);
		break;
	case CUT_INSNS:
		snprintf(buf, n, "at most %u instructions (the bound per %s)",
			 answer ? PV_DISASM_INSNS : PV_DISASM_FUNC_INSNS, per);
		break;
	default: snprintf(buf, n, "stopped");
	}
}

/* Starts objdump -d -l --no-show-raw-insn -w over the instructions from lo to the one at hi of
 * path, its output on *fd. Returns 0, 1 after a note (failed to start), or PV_ENOMEM. */
static int spawn_objdump(struct pv_disasm *d, const char *path, uint64_t lo, uint64_t hi,
			 pid_t *pid, int *fd)
{
	char start[40], stop[40];
	snprintf(start, sizeof(start), "--start-address=0x%llx", (unsigned long long)lo);
	/* past hi by the longest instruction (x86's 15 bytes): the last one whole, the rest dropped
	 */
	snprintf(stop, sizeof(stop), "--stop-address=0x%llx",
		 (unsigned long long)(hi > UINT64_MAX - 16 ? UINT64_MAX : hi + 16));
	char a0[] = "objdump", a1[] = "-d", a2[] = "-l", a3[] = "--no-show-raw-insn", a4[] = "-w",
	     a5[] = "--", *file = pv_strdup(path);
	if (!file)
		return PV_ENOMEM;
	char *argv[] = {a0, a1, a2, a3, a4, start, stop, a5, file, NULL};
	int fds[2];
	if (pipe2(fds, O_CLOEXEC)) {
		pv_free(file);
		return note(d, "objdump: %s", strerror(errno)) ? PV_ENOMEM : 1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	int rc = posix_spawnp(pid, "objdump", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	pv_free(file);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		return note(d, rc == ENOENT
				   ? "objdump not found (Debian package binutils): no disassembly"
				   : "objdump could not run: no disassembly")
			   ? PV_ENOMEM
			   : 1;
	}
	*fd = fds[0];
	return 0;
}

/* What objdump's output has read so far: the text, the first line not counted yet, the
 * instruction lines. */
struct dump {
	struct vec buf;
	uint32_t scan, lines;
};

/*
 * Reads fd into o within sh's time and bytes (at most sh->bytes + 1: one past the bound tells
 * that it was reached), stopping once it printed more than sh->insns instruction lines or b's
 * stop is set (*cut says which). Returns 0 at the end or a cut, 1 when reading failed, 2 when
 * out of memory.
 */
static int read_dump(int fd, const struct budget *b, const struct share *sh, struct dump *o,
		     enum cut *cut)
{
	for (;;) {
		if (stopped(b)) {
			*cut = CUT_STOP;
			return 0;
		}
		int64_t left = sh->end_ms - now_ms();
		if (left <= 0) {
			*cut = CUT_TIME;
			return 0;
		}
		/* in slices of 100 ms at most, to see a stop soon */
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int pr = poll(&pf, 1, left < 100 ? (int)left : 100);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return 1;
		if (pr == 0)
			continue;
		uint32_t had = o->buf.len;
		uint64_t want = sh->bytes + 1 - had;
		if (want > 65536)
			want = 65536;
		if (vec_resize(&o->buf, 1, had + (uint32_t)want + 1)) /* + 1: the final NUL */
			return 2;
		o->buf.len = had;
		ssize_t r = read(fd, (char *)o->buf.p + had, (size_t)want);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return r < 0;
		o->buf.len += (uint32_t)r;
		const char *t = o->buf.p;
		for (const char *nl; (nl = memchr(t + o->scan, '\n', o->buf.len - o->scan));
		     o->scan = (uint32_t)(nl - t) + 1)
			o->lines += insn_line(t + o->scan, nl);
		if (o->lines > sh->insns) {
			*cut = CUT_INSNS;
			return 0;
		}
		if (o->buf.len > sh->bytes) {
			*cut = CUT_BYTES;
			return 0;
		}
	}
}

/*
 * Runs objdump -d -l --no-show-raw-insn over the instructions from lo to the one at hi of path;
 * its output in *out (NUL-ended, to pv_free), read within sh's time and bytes and stopped once
 * it printed more than sh->insns instruction lines (or b's stop is set): *cut says which
 * ended it, the output then kept up to its last whole line. Returns 0, 1 after a note (not
 * found, failed), or PV_ENOMEM.
 */
static int objdump(struct pv_disasm *d, const char *path, uint64_t lo, uint64_t hi,
		   const struct budget *b, const struct share *sh, char **out, size_t *len,
		   enum cut *cut)
{
	*cut = CUT_NONE;
	pid_t pid;
	int fd;
	int rc = spawn_objdump(d, path, lo, hi, &pid, &fd);
	if (rc)
		return rc;
	struct dump o = {0};
	int failed = read_dump(fd, b, sh, &o, cut);
	close(fd);
	if (*cut || failed)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (failed == 2) {
		vec_free(&o.buf);
		return PV_ENOMEM;
	}
	if (failed || (!*cut && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))) {
		vec_free(&o.buf);
		return note(d, "objdump %s failed: no disassembly", path) ? PV_ENOMEM : 1;
	}
	if (*cut) /* whole lines only */
		o.buf.len = o.scan;
	if (vec_resize(&o.buf, 1, o.buf.len + 1)) {
		vec_free(&o.buf);
		return PV_ENOMEM;
	}
	((char *)o.buf.p)[o.buf.len - 1] = 0;
	*out = o.buf.p;
	*len = o.buf.len - 1;
	return 0;
}

/* "FILE:LINE" or "FILE:LINE (discriminator N)" of objdump -l: the line, 0 when it is not one. */
static uint32_t line_mark(const char *s, const char *e, const char **file_end)
{
	const char *q = e;
	const char *disc = NULL;
	for (const char *x = s; x + 1 < e; x++)
		if (x[0] == ' ' && x[1] == '(')
			disc = x;
	if (disc)
		q = disc;
	const char *c = q;
	while (c > s && c[-1] >= '0' && c[-1] <= '9')
		c--;
	if (c == q || c == s || c[-1] != ':' || q - c > 9)
		return 0;
	*file_end = c - 1;
	return (uint32_t)strtoul(c, NULL, 10);
}

static const char *base_name(const char *s, const char *e)
{
	const char *b = e;
	while (b > s && b[-1] != '/')
		b--;
	return b;
}

/* ---- the answer ---- */

struct fn_range {
	pv_func_ix f;
	uint64_t lo, hi;
};

/* The self of address a in the sorted leaf addresses la[0 .. n) of function f's frames. */
static int64_t self_at(const struct pv__line_addr *la, uint32_t n, uint64_t a)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (la[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t s = 0;
	for (; lo < n && la[lo].addr == a; lo++)
		s += la[lo].self;
	return s;
}

static int addr_cmp(const void *a, const void *b)
{
	const struct pv__line_addr *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Parses objdump's text of function r into insn, at most cap instructions (*more: one more was
 * there); here: (file base name, line) asked, or line 0.
 */
static int parse(const struct fn_range *r, uint64_t delta, const char *t, size_t len,
		 const struct pv__line_addr *la, uint32_t nla, const char *here_base,
		 uint32_t here_line, uint32_t cap, bool *more, struct vec *insn)
{
	uint32_t n = 0;
	*more = false;
	const char *p = t, *end = t + len;
	uint32_t line = 0;
	const char *file = NULL, *file_end = NULL;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *s = p;
		p = e + 1;
		if (s == e)
			continue;
		if (*s != ' ') { /* a file:line mark, a "<symbol>:" or "symbol():" header */
			const char *fe;
			uint32_t ln = line_mark(s, e, &fe);
			if (ln && e[-1] != ':') {
				line = ln;
				file = s;
				file_end = fe;
			}
			continue;
		}
		/* "    1139:\tmov    %edi,%edx" */
		if (!insn_line(s, e))
			continue;
		while (*s == ' ')
			s++;
		char *x;
		unsigned long long a = strtoull(s, &x, 16);
		if ((uint64_t)a - delta > r->hi)
			continue;
		if (n == cap) {
			*more = true;
			break;
		}
		n++;
		x++;
		while (x < e && (*x == '\t' || *x == ' '))
			x++;
		const char *te = e;
		while (te > x && (te[-1] == ' ' || te[-1] == '\t'))
			te--;
		struct pv_disasm_insn *in = vec_push(insn, sizeof(*in));
		if (!in)
			return PV_ENOMEM;
		uint64_t ma = (uint64_t)a - delta;
		*in = (struct pv_disasm_insn){
		    .addr = ma, .func = r->f, .line = line, .self = self_at(la, nla, ma)};
		in->here = here_line && line == here_line && file &&
			   !strncmp(base_name(file, file_end), here_base, strlen(here_base)) &&
			   (size_t)(file_end - base_name(file, file_end)) == strlen(here_base);
		in->text = pv_malloc((size_t)(te - x) + 1);
		in->file = file ? pv_malloc((size_t)(file_end - file) + 1) : NULL;
		if (!in->text || (file && !in->file))
			return PV_ENOMEM;
		for (const char *c = x; c < te; c++) /* tabs as spaces: one line of text */
			in->text[c - x] = *c == '\t' ? ' ' : *c;
		in->text[te - x] = 0;
		if (file) {
			memcpy(in->file, file, (size_t)(file_end - file));
			in->file[file_end - file] = 0;
		}
	}
	return 0;
}

/* The function with the most self cost at addresses among the kept samples, as a mark (NULL:
 * none). */
static int hottest(const struct pv_profile *p, const uint8_t *keep, pv_metric_ix metric,
		   uint8_t **mark, struct pv_error *err)
{
	*mark = NULL;
	if (!keep || metric == PV_NONE)
		return 0;
	int64_t *self = pv_calloc(p->funcs.len + 1, sizeof(*self));
	if (!self)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	pv_func_ix best = PV_NONE;
	for (uint32_t s = 0; s < p->samples.len; s++) {
		pv_stack_ix st = p->samples.stack[s];
		if (!keep[s] || st == PV_NONE ||
		    pv__sample_leaf_addr(p, s, p->stacks.frame[st]) == PV_ADDR_NONE)
			continue;
		pv_func_ix f = p->frames.func[p->stacks.frame[st]];
		const char *fn = pv_str(p, p->funcs.name[f]);
		pv_module_ix m = pv_func_module(p, f);
		if ((fn[0] == '[' && fn[strlen(fn) - 1] == ']') ||
		    (m < p->modules.len && pv_str(p, p->modules.path[m])[0] != '/'))
			continue; /* no symbol ("[unknown]", "[cc1]"), no binary ([kernel.kallsyms])
				   */
		self[f] += pv_sample_weight(p, metric, s);
		if (best == PV_NONE || self[f] > self[best] || (self[f] == self[best] && f < best))
			best = f;
	}
	int rc = 0;
	if (best != PV_NONE) {
		if (!(*mark = pv_calloc(p->funcs.len, 1)))
			rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		else
			(*mark)[best] = 1;
	}
	pv_free(self);
	return rc;
}

/* Widens function f's range (if it is one of fr) to address a (PV_ADDR_NONE: no change). */
static void range_add(struct fn_range *fr, uint32_t nf, pv_func_ix f, uint64_t a)
{
	if (a == PV_ADDR_NONE)
		return;
	for (uint32_t k = 0; k < nf; k++)
		if (fr[k].f == f) {
			fr[k].lo = a < fr[k].lo ? a : fr[k].lo;
			fr[k].hi = a > fr[k].hi ? a : fr[k].hi;
		}
}

/* The range of addresses of each marked function (at most PV_DISASM_FUNCS), over its frames and
 * the addresses samples hit (samples.addr: perf's leaf IPs), in the view or not; returns how
 * many. */
static uint32_t fn_ranges(const struct pv_profile *p, const uint8_t *mark, struct fn_range *fr)
{
	uint32_t nf = 0;
	for (pv_func_ix f = 0; f < p->funcs.len && pv__has_addrs(p); f++)
		if (mark[f] && nf < PV_DISASM_FUNCS)
			fr[nf++] = (struct fn_range){f, PV_ADDR_NONE, 0};
	for (pv_frame_ix x = 0; x < p->frames.len && nf && p->frames.addr; x++)
		range_add(fr, nf, p->frames.func[x], pv_frame_addr(p, x));
	for (uint32_t s = 0; s < p->samples.len && nf && p->samples.addr; s++) {
		pv_stack_ix st = p->samples.stack[s];
		if (st != PV_NONE && p->samples.addr[s] != PV_ADDR_NONE &&
		    mark[p->frames.func[p->stacks.frame[st]]])
			range_add(fr, nf, p->frames.func[p->stacks.frame[st]], p->samples.addr[s]);
	}
	return nf;
}

/* One answer: the view's samples, the line asked (here), what is left of the bounds, the
 * instructions so far; rc: PV_ENOMEM once a note or an instruction failed. */
struct dis {
	const struct pv_profile *p;
	struct pv_disasm *d;
	const uint8_t *keep;
	pv_metric_ix metric;
	const char *here_base;
	uint32_t here_line;
	struct budget b;
	struct vec insn, lv;
	uint8_t *one; /* per function: the one whose samples pv__leaf_addrs gathers */
	int rc;
};

/* One function to disassemble: its range, name, binary, and the file addresses lo .. hi. */
struct job {
	struct fn_range *fr;
	const char *name, *path;
	uint64_t lo, hi;
};

/* What of the answer's bounds is spent (CUT_NONE: none). */
static enum cut spent(const struct budget *b)
{
	return stopped(b)	       ? CUT_STOP
	       : now_ms() >= b->end_ms ? CUT_TIME
	       : !b->bytes	       ? CUT_BYTES
	       : !b->insns	       ? CUT_INSNS
				       : CUT_NONE;
}

/* The function's share: its own bounds, or what the answer has left. */
static struct share share_of(const struct budget *b)
{
	int64_t fn_end = now_ms() + PV_DISASM_FUNC_MS;
	return (struct share){
	    .end_ms = fn_end < b->end_ms ? fn_end : b->end_ms,
	    .bytes = b->bytes < PV_DISASM_FUNC_BYTES ? b->bytes : PV_DISASM_FUNC_BYTES,
	    .insns = b->insns < PV_DISASM_FUNC_INSNS ? b->insns : PV_DISASM_FUNC_INSNS,
	    .answer_ms = fn_end >= b->end_ms,
	    .answer_bytes = b->bytes < PV_DISASM_FUNC_BYTES,
	    .answer_insns = b->insns < PV_DISASM_FUNC_INSNS};
}

/*
 * The binary of job j's function and the file addresses of its range: the whole function, as
 * its symbol says, perf annotate's range (the symbol's name also tells whether the addresses
 * are the binary's own or offsets in its file). Returns 0, or 1 after a note (x->rc: its error)
 * when the function is not disassembled.
 */
static int job_addrs(struct dis *x, struct job *j)
{
	const struct pv_profile *p = x->p;
	struct fn_range *fr = j->fr;
	pv_module_ix m = pv_func_module(p, fr->f);
	j->path = m < p->modules.len ? pv_str(p, p->modules.path[m]) : "";
	if (!*j->path) {
		x->rc = note(x->d, "%s: no binary named (no module path): no disassembly", j->name);
		return 1;
	}
	if (j->path[0] != '/') {
		x->rc = note(x->d, "binary %s not found (not an absolute path): no disassembly",
			     j->path);
		return 1;
	}
	struct seg segs[SEGS_MAX];
	int ns = elf_segs(x->d, j->path, segs, &x->rc);
	if (ns < 0)
		return 1;
	j->lo = file_addr(segs, ns, fr->lo);
	j->hi = file_addr(segs, ns, fr->hi);
	uint64_t s0, s1, delta;
	if (!symz_func_range(j->path, j->name, fr->lo, fr->hi, &s0, &s1, &delta) && s1 > s0) {
		j->lo = s0;
		j->hi = s1 - 1;
		fr->lo = s0 - delta;
		fr->hi = s1 - 1 - delta;
	}
	if (j->lo == PV_ADDR_NONE || j->hi == PV_ADDR_NONE || j->lo - fr->lo != j->hi - fr->hi) {
		x->rc = note(x->d,
			     "addresses of %s are not in %s's executable segments (a "
			     "position-independent binary recorded at its run-time address?): "
			     "no disassembly",
			     j->name, j->path);
		return 1;
	}
	if (j->hi - j->lo >= RANGE_MAX) {
		x->rc = note(x->d, "%s spans more than %u KiB: no disassembly", j->name,
			     RANGE_MAX >> 10);
		return 1;
	}
	return 0;
}

/* Disassembles job j within its share: objdump, the costs of its addresses, its instructions,
 * a note when it was cut or printed none. */
static void job_run(struct dis *x, struct job *j)
{
	const struct pv_profile *p = x->p;
	pv_func_ix f = j->fr->f;
	struct share sh = share_of(&x->b);
	char *text = NULL;
	size_t len = 0;
	enum cut cut;
	int r = objdump(x->d, j->path, j->lo, j->hi, &x->b, &sh, &text, &len, &cut);
	if (r) {
		x->rc = r == 1 ? 0 : r;
		return;
	}
	x->b.bytes -= len < x->b.bytes ? len : x->b.bytes;
	x->one[f] = 1;
	x->lv.len = 0;
	x->rc = x->metric == PV_NONE
		    ? 0
		    : pv__leaf_addrs(p, x->keep, PV_NONE, 0, x->one, x->metric, &x->lv);
	x->one[f] = 0;
	if (x->lv.len)
		qsort(x->lv.p, x->lv.len, sizeof(struct pv__line_addr), addr_cmp);
	uint32_t before = x->insn.len;
	bool more = false;
	if (!x->rc)
		x->rc = parse(j->fr, j->lo - j->fr->lo, text, len, VEC(x->lv, struct pv__line_addr),
			      x->lv.len, x->here_base, x->here_line, sh.insns, &more, &x->insn);
	pv_free(text);
	uint32_t got = x->insn.len - before;
	x->b.insns -= got < x->b.insns ? got : x->b.insns;
	if (cut == CUT_INSNS && !more) /* the lines past the cap were past the range */
		cut = CUT_NONE;
	if (!x->rc && cut) {
		char why[128];
		cut_reason(why, sizeof(why), cut, &x->b,
			   cut == CUT_TIME    ? sh.answer_ms
			   : cut == CUT_BYTES ? sh.answer_bytes
					      : sh.answer_insns);
		x->d->cut = true;
		x->rc = note(x->d, "disassembly of %s cut after %u instruction%s: %s", j->name, got,
			     got == 1 ? "" : "s", why);
	} else if (!x->rc && !got) {
		x->rc = note(x->d, "objdump printed no instruction of %s in %s", j->name, j->path);
	}
}

/* The functions of fr[0 .. nf) with an address, each within what is left of the answer's
 * bounds (opts: its time and stop). */
static void run_jobs(struct dis *x, struct fn_range *fr, uint32_t nf,
		     const struct pv_disasm_opts *opts)
{
	x->b = (struct budget){.stop = opts ? opts->stop : NULL,
			       .ms = opts && opts->ms ? opts->ms : PV_DISASM_MS,
			       .bytes = PV_DISASM_BYTES,
			       .insns = PV_DISASM_INSNS};
	x->b.end_ms = now_ms() + x->b.ms;
	for (uint32_t k = 0; k < nf && !x->rc; k++) {
		if (fr[k].lo == PV_ADDR_NONE)
			continue;
		struct job j = {.fr = &fr[k], .name = pv_str(x->p, x->p->funcs.name[fr[k].f])};
		enum cut c = spent(&x->b);
		if (c) {
			char why[128];
			cut_reason(why, sizeof(why), c, &x->b, true);
			x->d->cut = true;
			x->rc = note(x->d, "%s not disassembled: %s", j.name, why);
			continue;
		}
		if (!job_addrs(x, &j))
			job_run(x, &j);
	}
}

/* The function with the most self cost at addresses in the view, when none is asked: into
 * *hot. Returns 0, 1 after a note (none), or the error. */
static int pick_hottest(const struct pv_profile *p, const uint8_t *keep, pv_metric_ix metric,
			struct pv_disasm *d, uint8_t **hot, struct pv_error *err)
{
	int rc = hottest(p, keep, metric, hot, err);
	if (rc)
		return rc;
	if (*hot)
		return 0;
	/* perf script frames keep their address only with a source line (doc/lines.md) */
	const char *hint =
	    strcmp(pv_str(p, p->meta.format), "perf-script") == 0
		? " (perf script prints each frame's address with -F ip, its default)"
		: "";
	return note(d, "no sample with an address: no disassembly%s", hint)
		   ? pv_error_set(err, PV_ENOMEM, "out of memory")
		   : 1;
}

static int disasm(const struct pv_profile *p, const struct pv_query *q, const uint8_t *mark,
		  const char *here_base, uint32_t here_line, const struct pv_disasm_opts *opts,
		  struct pv_disasm **out, struct pv_error *err)
{
	*out = NULL;
	struct pv_disasm *d = pv_calloc(1, sizeof(*d));
	if (!d)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	d->metric = PV_NONE;
	*out = d;
	/* the view's samples (none can be at an address when no frame has one) */
	uint8_t *keep = NULL, *hot = NULL;
	pv_metric_ix metric = PV_NONE;
	int rc = pv__has_addrs(p) ? pv__view_keep(p, q, &keep, &metric, err) : 0;
	if (rc)
		return rc;
	d->metric = metric;
	if (!mark && (rc = pick_hottest(p, keep, metric, d, &hot, err))) {
		pv_free_keep(keep);
		return rc == 1 ? 0 : rc;
	}
	struct fn_range fr[PV_DISASM_FUNCS];
	uint32_t nf = fn_ranges(p, mark ? mark : hot, fr), with = 0;
	for (uint32_t k = 0; k < nf; k++)
		with += fr[k].lo != PV_ADDR_NONE;
	pv_free(hot);
	if (!with) {
		pv_free_keep(keep);
		return note(d, "no address: no disassembly")
			   ? pv_error_set(err, PV_ENOMEM, "out of memory")
			   : 0;
	}
	struct dis x = {.p = p,
			.d = d,
			.keep = keep,
			.metric = metric,
			.here_base = here_base,
			.here_line = here_line,
			.one = pv_calloc(p->funcs.len, 1)};
	x.rc = x.one ? 0 : PV_ENOMEM;
	run_jobs(&x, fr, nf, opts);
	pv_free(x.one);
	vec_free(&x.lv);
	pv_free_keep(keep);
	d->insn = x.insn.p;
	d->n = x.insn.len;
	if (x.rc == PV_ENOMEM)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	return 0;
}

int pv_disasm_funcs(const struct pv_profile *p, const struct pv_query *q, const uint8_t *mark,
		    const struct pv_disasm_opts *opts, struct pv_disasm **out, struct pv_error *err)
{
	return disasm(p, q, mark, NULL, 0, opts, out, err);
}

int pv_disasm_line(const struct pv_profile *p, const struct pv_query *q, pv_source_ix id,
		   uint32_t line, const struct pv_disasm_opts *opts, struct pv_disasm **out,
		   struct pv_error *err)
{
	*out = NULL;
	uint8_t *mark = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
	if (!mark)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	for (pv_frame_ix x = 0; x < p->frames.len && p->frames.addr; x++) {
		pv_func_ix f = p->frames.func[x];
		if (pv_frame_line(p, x) == line && pv_func_source(p, f) == id &&
		    pv_frame_addr(p, x) != PV_ADDR_NONE)
			mark[f] = 1;
	}
	const char *path = id < p->sources.len ? pv_str(p, p->sources.path[id]) : "";
	int rc = disasm(p, q, mark, base_name(path, path + strlen(path)), line, opts, out, err);
	pv_free(mark);
	return rc;
}
