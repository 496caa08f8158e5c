/*
 * symbols.c - names for addresses from the binaries on this machine: ELF symbol tables through
 * elfutils' libelf (build ids and debug links through libdw's libdwelf), the kernel's from
 * /proc/kallsyms, JIT maps, demangling through libiberty (symbols.h says the rules).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/sort.h"
#include "import/symbols.h"

#define BID_MAX 20

struct sym {
	uint64_t start, end;
	const char *name; /* in the ELF file's mapping or the kallsyms/map text */
	uint32_t order;	  /* the order read: the first of equals wins */
	uint8_t type, bind;
	uint16_t mod; /* kallsyms: 1 + the module's row in kmods, 0 for the kernel itself */
};

struct seg {
	uint64_t off, filesz, vaddr;
};

enum { BIN_ELF, BIN_KERNEL, BIN_JIT };

struct bin {
	char *path;
	unsigned char bid[BID_MAX];
	uint8_t bid_len;
	uint8_t kind;
	bool loaded;
	enum symz_status status;
	char *file; /* the runtime file used */
	int fd, sfd;
	Elf *elf, *selfp; /* the runtime file and the one the symbols come from (may be elf) */
	struct seg *segs;
	uint32_t nsegs;
	struct sym *syms;
	uint32_t nsyms;
	char **dem; /* demangled names, made at the first hit; NULL: not yet */
	char *text; /* a JIT map's text, or the names of PLT entries ("name@plt") */
	Dwarf *dw;  /* its DWARF (inlined frames), opened at the first ask; dw_tried: asked */
	bool dw_tried;
	char *rejected; /* the first debug file not used: another build id than the binary's */
};

struct symz {
	struct symz_opts o;
	struct bin *bins;
	uint32_t nbins, cap;
	/* the kernel: /proc/kallsyms, read once */
	bool kloaded;
	enum symz_status kstatus;
	char *ktext;
	struct sym *ksyms;
	uint32_t nksyms;
	char **kdem;
	char **kmods; /* "[name]" of each module */
	uint32_t nkmods;
	uint64_t ktext_now; /* _text in the table (kallsyms' or the vmlinux's) */
	uint64_t ktext_rec; /* _text recorded (the kernel map's pgoff); 0: not known */
	int64_t kshift;	    /* add to a recorded kernel address */
	char *krelease;	    /* the recorded kernel release (OSRELEASE) */
	char *krejected;    /* the first vmlinux not used: another build id */
	int kfd;	    /* the vmlinux read (its names are in its mapping) */
	Elf *kelf;
};

static const char *const status_text[SYMZ_NR_STATUS] = {
    [SYMZ_OK] = "named",
    [SYMZ_OFF] = "symbols turned off (--no-symbols)",
    [SYMZ_NOT_FOUND] = "binary not found on this machine",
    [SYMZ_BUILD_ID] = "binary found, but its build id differs from the recorded one",
    [SYMZ_NOT_ELF] = "binary is not an ELF file",
    [SYMZ_STRIPPED] = "binary has no symbol table (stripped)",
    [SYMZ_NO_SYMBOL] = "address in no symbol of its binary",
    [SYMZ_NO_KALLSYMS] = ("kernel symbols not readable (/proc/kallsyms without addresses: "
			  "kernel.kptr_restrict, or not root)"),
    [SYMZ_NO_KERNEL] = ("kernel symbols not found: no vmlinux or kallsyms of the recorded "
			"kernel's build id on this machine (--vmlinux FILE)"),
};

const char *symz_status_text(enum symz_status s)
{
	return s < SYMZ_NR_STATUS ? status_text[s] : "";
}

struct symz *symz_new(const struct symz_opts *o)
{
	struct symz *z = pv_calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	if (o)
		z->o = *o;
	z->kfd = -1;
	elf_version(EV_CURRENT);
	return z;
}

static void free_dem(char **dem, uint32_t n)
{
	for (uint32_t i = 0; dem && i < n; i++)
		if (dem[i] && dem[i] != (char *)1)
			free(dem[i]); /* libiberty's malloc */
	pv_free(dem);
}

void symz_free(struct symz *z)
{
	if (!z)
		return;
	for (uint32_t i = 0; i < z->nbins; i++) {
		struct bin *b = &z->bins[i];
		free_dem(b->dem, b->nsyms);
		if (b->dw)
			dwarf_end(b->dw);
		pv_free(b->syms);
		pv_free(b->segs);
		if (b->selfp && b->selfp != b->elf)
			elf_end(b->selfp);
		if (b->elf)
			elf_end(b->elf);
		if (b->sfd >= 0 && b->sfd != b->fd)
			close(b->sfd);
		if (b->fd >= 0)
			close(b->fd);
		pv_free(b->path);
		pv_free(b->file);
		pv_free(b->rejected);
		pv_free(b->text);
	}
	pv_free(z->bins);
	free_dem(z->kdem, z->nksyms);
	pv_free(z->ksyms);
	pv_free(z->ktext);
	for (uint32_t i = 0; i < z->nkmods; i++)
		pv_free(z->kmods[i]);
	pv_free(z->kmods);
	pv_free(z->krelease);
	pv_free(z->krejected);
	if (z->kelf)
		elf_end(z->kelf);
	if (z->kfd >= 0)
		close(z->kfd);
	pv_free(z);
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = pv_malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static bool is_kernel_path(const char *p)
{
	size_t n = strlen(p);
	return strncmp(p, "[kernel.", 8) == 0 || strncmp(p, "[guest.kernel", 13) == 0 ||
	       (p[0] == '[' && p[n - 1] == ']' && strcmp(p, "[vdso]") != 0 &&
		strcmp(p, "[vsyscall]") != 0 && strncmp(p, "[anon", 5) != 0 &&
		strcmp(p, "[heap]") != 0 && strcmp(p, "[stack]") != 0 &&
		strncmp(p, "[uprobes", 8) != 0 && strcmp(p, "[unknown]") != 0) ||
	       (n > 3 && strcmp(p + n - 3, ".ko") == 0) || strstr(p, ".ko.") != NULL;
}

uint32_t symz_binary(struct symz *z, const char *path, const unsigned char *bid, size_t bid_len)
{
	if (bid_len > BID_MAX)
		bid_len = BID_MAX;
	for (uint32_t i = 0; i < z->nbins; i++) {
		const struct bin *b = &z->bins[i];
		if (b->bid_len == bid_len && (!bid_len || memcmp(b->bid, bid, bid_len) == 0) &&
		    strcmp(b->path, path) == 0)
			return i;
	}
	if (z->nbins == z->cap) {
		uint32_t nc = z->cap ? z->cap * 2 : 16;
		struct bin *n = pv_realloc(z->bins, (size_t)nc * sizeof(*n));
		if (!n)
			return UINT32_MAX;
		z->bins = n;
		z->cap = nc;
	}
	struct bin *b = &z->bins[z->nbins];
	memset(b, 0, sizeof(*b));
	b->fd = b->sfd = -1;
	if (!(b->path = dup_str(path)))
		return UINT32_MAX;
	if (bid_len)
		memcpy(b->bid, bid, bid_len);
	b->bid_len = (uint8_t)bid_len;
	size_t n = strlen(path);
	if (is_kernel_path(path))
		b->kind = BIN_KERNEL;
	else if (strncmp(path, "/tmp/perf-", 10) == 0 && n > 4 && strcmp(path + n - 4, ".map") == 0)
		b->kind = BIN_JIT;
	return z->nbins++;
}

bool symz_is_kernel(const struct symz *z, uint32_t h)
{
	return h < z->nbins && z->bins[h].kind == BIN_KERNEL;
}

/* ---------------------------------------------------------------- symbol tables */

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int leading_underscores(const char *s)
{
	int n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol: 1 when b is to be kept rather than a (a read first). */
static int better(const struct sym *a, const struct sym *b)
{
	bool az = a->end == a->start, bz = b->end == b->start;
	if (az != bz)
		return az;
	if (a->type != b->type && (a->type == STT_NOTYPE || b->type == STT_NOTYPE))
		return a->type == STT_NOTYPE;
	bool aw = a->bind == STB_WEAK, bw = b->bind == STB_WEAK;
	if (aw != bw)
		return aw;
	bool ag = a->bind == STB_GLOBAL, bg = b->bind == STB_GLOBAL;
	if (ag != bg)
		return bg;
	int ua = leading_underscores(a->name), ub = leading_underscores(b->name);
	if (ua != ub)
		return ua > ub;
	return strlen(b->name) > strlen(a->name);
}

/*
 * Sorts the table, gives each symbol without a size the addresses up to the next one's start
 * (the last one to the end of its page and one more, as perf's symbols__fixup_end), then keeps
 * one symbol of those at one address.
 */
static void finish_table(struct sym *s, uint32_t *n, bool kallsyms)
{
	if (!*n)
		return;
	qsort(s, *n, sizeof(*s), sym_cmp);
	for (uint32_t i = 0; i + 1 < *n; i++)
		if (s[i].end == s[i].start) {
			/* kallsyms: the last symbol of the kernel before the modules' */
			if (kallsyms && (s[i].mod == 0) != (s[i + 1].mod == 0))
				s[i].end = ((s[i].start + 4096) + 4095) & ~(uint64_t)4095;
			else
				s[i].end = s[i + 1].start;
		}
	if (s[*n - 1].end == s[*n - 1].start)
		s[*n - 1].end = (s[*n - 1].start & ~(uint64_t)4095) + 4096;
	uint32_t w = 0;
	for (uint32_t i = 0; i < *n; i++) {
		if (w && s[w - 1].start == s[i].start) {
			if (better(&s[w - 1], &s[i]))
				s[w - 1] = s[i];
			continue;
		}
		s[w++] = s[i];
	}
	*n = w;
}

/* The symbol at a: the last one starting at or before a that holds it. */
static int64_t find_sym(const struct sym *s, uint32_t n, uint64_t a)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t k = 0; k < 2 && lo > k; k++)
		if (a < s[lo - 1 - k].end)
			return lo - 1 - k;
	return -1;
}

/* ---------------------------------------------------------------- ELF files */

struct elf_file {
	int fd;
	Elf *e;
};

static int open_elf(const char *path, struct elf_file *f)
{
	f->e = NULL;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return SYMZ_NOT_FOUND;
	struct stat st;
	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode)) {
		close(f->fd);
		f->fd = -1;
		return SYMZ_NOT_FOUND;
	}
	f->e = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->e || elf_kind(f->e) != ELF_K_ELF) {
		if (f->e)
			elf_end(f->e);
		close(f->fd);
		f->fd = -1;
		f->e = NULL;
		return SYMZ_NOT_ELF;
	}
	return SYMZ_OK;
}

static void close_elf(struct elf_file *f)
{
	if (f->e)
		elf_end(f->e);
	if (f->fd >= 0)
		close(f->fd);
	f->e = NULL;
	f->fd = -1;
}

/* Whether the ELF file's build id is b's (any file when b has none). */
static bool bid_matches(const struct bin *b, Elf *e)
{
	if (!b->bid_len)
		return true;
	const void *id = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(e, &id);
	return n > 0 && (size_t)n >= b->bid_len && memcmp(id, b->bid, b->bid_len) == 0;
}

static Elf_Scn *section_of_type(Elf *e, Elf64_Word type, GElf_Shdr *sh)
{
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s))
		if (gelf_getshdr(s, sh) && sh->sh_type == type)
			return s;
	return NULL;
}

/* Whether the ELF file has a .symtab with entries. */
static bool has_symtab(Elf *e)
{
	GElf_Shdr sh;
	return section_of_type(e, SHT_SYMTAB, &sh) && sh.sh_size > 0;
}

/* The symbols of the table of type (SHT_SYMTAB or SHT_DYNSYM) of e, appended to *tab (*n of
 * them): a binary's, or the kernel's from a vmlinux. */
static int read_symbols(struct sym **tab, uint32_t *n, Elf *e, Elf64_Word type)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_of_type(e, type, &sh);
	if (!scn || !sh.sh_entsize)
		return 0;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d)
		return 0;
	size_t nsec = 0, shstr = 0;
	if (elf_getshdrnum(e, &nsec) || elf_getshdrstrndx(e, &shstr))
		return 0;
	/* per section: allocated, and a text section (perf's filter for labels) */
	uint8_t *secf = pv_calloc(nsec ? nsec : 1, 1);
	if (!secf)
		return -1;
	for (size_t i = 0; i < nsec; i++) {
		GElf_Shdr s2;
		Elf_Scn *x = elf_getscn(e, i);
		if (!x || !gelf_getshdr(x, &s2))
			continue;
		const char *nm = elf_strptr(e, shstr, s2.sh_name);
		secf[i] = (uint8_t)(((s2.sh_flags & SHF_ALLOC) ? 1 : 0) |
				    (nm && strstr(nm, "text") ? 2 : 0));
	}
	size_t count = sh.sh_size / sh.sh_entsize;
	struct sym *ns = pv_realloc(*tab, ((size_t)*n + count + 1) * sizeof(*ns));
	if (!ns) {
		pv_free(secf);
		return -1;
	}
	*tab = ns;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s) || !s.st_name || s.st_shndx == SHN_UNDEF ||
		    s.st_shndx == SHN_ABS || s.st_shndx >= nsec)
			continue;
		int t = GELF_ST_TYPE(s.st_info);
		int vis = GELF_ST_VISIBILITY(s.st_other);
		bool func = t == STT_FUNC || t == STT_GNU_IFUNC || t == STT_OBJECT;
		bool label = t == STT_NOTYPE && vis != STV_HIDDEN && vis != STV_INTERNAL;
		if (!func && !label)
			continue;
		if (!(secf[s.st_shndx] & 1) || (label && !(secf[s.st_shndx] & 2)))
			continue;
		const char *name = elf_strptr(e, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		ns[*n] = (struct sym){
		    .start = s.st_value,
		    .end = s.st_value + s.st_size,
		    .name = name,
		    .order = *n,
		    .type = (uint8_t)t,
		    .bind = (uint8_t)GELF_ST_BIND(s.st_info),
		};
		++*n;
	}
	pv_free(secf);
	return 0;
}

static Elf_Scn *section_named(Elf *e, const char *name, GElf_Shdr *sh)
{
	size_t shstr;
	if (elf_getshdrstrndx(e, &shstr))
		return NULL;
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
		const char *n = gelf_getshdr(s, sh) ? elf_strptr(e, shstr, sh->sh_name) : NULL;
		if (n && strcmp(n, name) == 0)
			return s;
	}
	return NULL;
}

/*
 * The PLT's entries as symbols "NAME@plt" (perf's dso__synthesize_plt_symbols): entry i of
 * .plt.sec (else of .plt after its header entry) calls the function of relocation i of
 * .rela.plt.
 */
static int plt_symbols(struct bin *b, Elf *e)
{
	GElf_Shdr plt, rel, dsh;
	Elf_Scn *ps = section_named(e, ".plt.sec", &plt);
	uint64_t hdr = 0;
	if (!ps) {
		ps = section_named(e, ".plt", &plt);
		hdr = plt.sh_entsize ? plt.sh_entsize : 16;
	}
	Elf_Scn *rs = section_named(e, ".rela.plt", &rel);
	if (!rs)
		rs = section_named(e, ".rel.plt", &rel);
	if (!ps || !rs || !rel.sh_entsize)
		return 0;
	uint64_t ent = plt.sh_entsize ? plt.sh_entsize : 16;
	Elf_Scn *ds = elf_getscn(e, rel.sh_link);
	Elf_Data *rd = elf_getdata(rs, NULL), *dd = ds ? elf_getdata(ds, NULL) : NULL;
	if (!rd || !dd || !gelf_getshdr(ds, &dsh))
		return 0;
	size_t n = rel.sh_size / rel.sh_entsize, bytes = 0;
	char **names = pv_calloc(n ? n : 1, sizeof(*names));
	if (!names)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela ra;
		GElf_Rel r;
		uint64_t info;
		if (rel.sh_type == SHT_RELA ? !gelf_getrela(rd, (int)i, &ra)
					    : !gelf_getrel(rd, (int)i, &r))
			continue;
		info = rel.sh_type == SHT_RELA ? ra.r_info : r.r_info;
		GElf_Sym s;
		const char *nm = gelf_getsym(dd, (int)GELF_R_SYM(info), &s)
				     ? elf_strptr(e, dsh.sh_link, s.st_name)
				     : NULL;
		if (!nm)
			nm = ""; /* an IRELATIVE slot: perf names it "@plt" */
		char *d = *nm ? cplus_demangle(nm, DMGL_NO_OPTS) : NULL;
		size_t len = strlen(d ? d : nm) + 5;
		if ((names[i] = pv_malloc(len)))
			snprintf(names[i], len, "%s@plt", d ? d : nm);
		free(d);
		bytes += names[i] ? len : 0;
	}
	int rc = 0;
	struct sym *ns = pv_realloc(b->syms, ((size_t)b->nsyms + n + 1) * sizeof(*ns));
	char *text = pv_malloc(bytes + 1);
	if (!ns || !text) {
		rc = -1;
		pv_free(text);
		text = NULL;
	}
	if (ns)
		b->syms = ns;
	size_t at = 0;
	for (size_t i = 0; i < n && text; i++) {
		if (!names[i])
			continue;
		size_t len = strlen(names[i]) + 1;
		memcpy(text + at, names[i], len);
		uint64_t start = plt.sh_addr + hdr + i * ent;
		b->syms[b->nsyms++] = (struct sym){.start = start,
						   .end = start + ent,
						   .name = text + at,
						   .order = b->nsyms,
						   .type = STT_FUNC,
						   .bind = STB_GLOBAL};
		at += len;
	}
	for (size_t i = 0; i < n; i++)
		pv_free(names[i]);
	pv_free(names);
	b->text = text;
	return rc;
}

static int read_segments(struct bin *b, Elf *e)
{
	size_t n = 0;
	if (elf_getphdrnum(e, &n) || !n)
		return 0;
	if (!(b->segs = pv_calloc(n, sizeof(*b->segs))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			b->segs[b->nsegs++] = (struct seg){ph.p_offset, ph.p_filesz, ph.p_vaddr};
	}
	return 0;
}

static void hex(char *out, const unsigned char *b, size_t n)
{
	static const char d[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = 0;
}

/* Tries path as b's runtime file; SYMZ_OK when it is one (kept in b). */
static enum symz_status try_runtime(struct bin *b, const char *path)
{
	struct elf_file f;
	enum symz_status st = open_elf(path, &f);
	if (st)
		return st;
	if (!bid_matches(b, f.e)) {
		close_elf(&f);
		return SYMZ_BUILD_ID;
	}
	char real[4096];
	if (!(b->file = dup_str(realpath(path, real) ? real : path))) {
		close_elf(&f);
		return SYMZ_NOT_FOUND;
	}
	b->fd = f.fd;
	b->elf = f.e;
	return SYMZ_OK;
}

/* Whether ELF files a and b have the same build id (or a has none: nothing to check). */
static bool same_build(Elf *a, Elf *b)
{
	const void *x = NULL, *y = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(a, &x);
	if (n <= 0)
		return true;
	return dwelf_elf_gnu_build_id(b, &y) == n && memcmp(x, y, (size_t)n) == 0;
}

/* Tries path as b's file of symbols (a .symtab of the recorded build id, and the runtime
 * file's: a debug file of another build is never used, the first one kept in b->rejected to
 * be said): 1 when it is one. */
static int try_symfile(struct bin *b, const char *path)
{
	struct elf_file f;
	if (open_elf(path, &f))
		return 0;
	bool same = bid_matches(b, f.e) && same_build(b->elf, f.e);
	if (!same && !b->rejected && has_symtab(f.e))
		b->rejected = dup_str(path);
	if (!same || !has_symtab(f.e)) {
		close_elf(&f);
		return 0;
	}
	b->sfd = f.fd;
	b->selfp = f.e;
	return 1;
}

/* The worse of two reasons a file was not found (build id differs beats not found). */
static enum symz_status worse(enum symz_status a, enum symz_status b)
{
	return a == SYMZ_BUILD_ID || b == SYMZ_BUILD_ID ? SYMZ_BUILD_ID
	       : a == SYMZ_NOT_ELF || b == SYMZ_NOT_ELF ? SYMZ_NOT_ELF
							: SYMZ_NOT_FOUND;
}

/* printf into a path buffer; false when it does not fit (the path is then not tried). */
static bool pathf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool pathf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= n) {
		buf[0] = 0; /* a name that opens nothing */
		return false;
	}
	return true;
}

/* Opens b's runtime file (b->elf): the folders given, perf's build-id cache, the path itself.
 * h: the build id in hex. Returns why none was found. */
static enum symz_status find_runtime(struct symz *z, struct bin *b, const char *h, const char *base)
{
	char p[4096];
	const char *home = getenv("HOME");
	enum symz_status why = SYMZ_NOT_FOUND, st;
	for (uint32_t i = 0; i < z->o.nr_dirs && !b->elf; i++) {
		const char *d = z->o.dirs[i];
		pathf(p, sizeof(p), "%s/%s", d, base);
		if ((st = try_runtime(b, p)) == SYMZ_OK)
			break;
		why = worse(why, st);
		pathf(p, sizeof(p), "%s%s%s", d, b->path[0] == '/' ? "" : "/", b->path);
		if ((st = try_runtime(b, p)) == SYMZ_OK)
			break;
		why = worse(why, st);
		if (b->bid_len) {
			pathf(p, sizeof(p), "%s/.build-id/%.2s/%s", d, h, h + 2);
			if ((st = try_runtime(b, p)) == SYMZ_OK)
				break;
		}
	}
	/* perf's cache: .build-id/XX/REST links to PATH/ID/, which holds "elf" ("vdso") */
	static const char *const cached[] = {"/elf", "/vdso", ""};
	for (int k = 0; k < 3 && !b->elf && b->bid_len && home; k++) {
		pathf(p, sizeof(p), "%s/.debug/.build-id/%.2s/%s%s", home, h, h + 2, cached[k]);
		try_runtime(b, p);
	}
	if (!b->elf && b->bid_len && home && b->path[0] == '[') {
		pathf(p, sizeof(p), "%s/.debug/%s/%s/vdso", home, b->path, h);
		try_runtime(b, p);
	}
	if (!b->elf && b->path[0] == '/' && !z->o.dirs_only) {
		st = try_runtime(b, b->path);
		if (st)
			why = worse(why, st);
	}
	return why;
}

/* Opens b's file of symbols (b->selfp) when another file than the runtime one has them. */
static void find_symfile(struct symz *z, struct bin *b, const char *base)
{
	char p[4096];
	/* a debug file's .symtab, else the file's own, else its .dynsym */
	const void *idp = NULL;
	ssize_t idn = dwelf_elf_gnu_build_id(b->elf, &idp);
	char fh[2 * BID_MAX + 1] = "";
	if (idn > 0 && idn <= BID_MAX)
		hex(fh, idp, (size_t)idn);
	if (*fh) {
		pathf(p, sizeof(p), "/usr/lib/debug/.build-id/%.2s/%s.debug", fh, fh + 2);
		try_symfile(b, p);
		for (uint32_t i = 0; i < z->o.nr_dirs && !b->selfp; i++) {
			pathf(p, sizeof(p), "%s/.build-id/%.2s/%s.debug", z->o.dirs[i], fh, fh + 2);
			try_symfile(b, p);
		}
	}
	GElf_Word crc;
	const char *link = dwelf_elf_gnu_debuglink(b->elf, &crc);
	if (!b->selfp && link) {
		char dir[4096];
		pathf(dir, sizeof(dir), "%s", b->file);
		char *sl = strrchr(dir, '/');
		if (sl)
			*sl = 0;
		pathf(p, sizeof(p), "%s/%s", dir, link);
		if (strcmp(p, b->file) != 0 && !try_symfile(b, p)) {
			pathf(p, sizeof(p), "%s/.debug/%s", dir, link);
			if (!try_symfile(b, p)) {
				pathf(p, sizeof(p), "/usr/lib/debug%s/%s", dir, link);
				try_symfile(b, p);
			}
		}
	}
	if (!b->selfp && b->path[0] == '/' && !z->o.dirs_only) {
		pathf(p, sizeof(p), "/usr/lib/debug%s.debug", b->path);
		if (!try_symfile(b, p)) {
			pathf(p, sizeof(p), "/usr/lib/debug%s", b->path);
			try_symfile(b, p);
		}
	}
	/* a runtime file without .symtab (a stripped copy in perf's build-id cache): another file
	 * of the same build may have one (the folders given, the recorded path) */
	for (uint32_t i = 0; i < z->o.nr_dirs && !b->selfp && !has_symtab(b->elf); i++) {
		pathf(p, sizeof(p), "%s/%s", z->o.dirs[i], base);
		if (!try_symfile(b, p)) {
			pathf(p, sizeof(p), "%s%s%s", z->o.dirs[i], b->path[0] == '/' ? "" : "/",
			      b->path);
			try_symfile(b, p);
		}
	}
	char real[4096];
	if (!b->selfp && !has_symtab(b->elf) && b->path[0] == '/' && !z->o.dirs_only &&
	    realpath(b->path, real) && strcmp(real, b->file) != 0)
		try_symfile(b, real);
}

static void load_elf(struct symz *z, struct bin *b)
{
	char h[2 * BID_MAX + 1];
	hex(h, b->bid, b->bid_len);
	const char *base = strrchr(b->path, '/');
	base = base ? base + 1 : b->path;
	enum symz_status why = find_runtime(z, b, h, base);
	if (!b->elf) {
		b->status = why;
		return;
	}
	if (read_segments(b, b->elf)) {
		b->status = SYMZ_NOT_FOUND;
		return;
	}
	find_symfile(z, b, base);
	int rc;
	if (b->selfp) {
		rc = read_symbols(&b->syms, &b->nsyms, b->selfp, SHT_SYMTAB);
	} else if (has_symtab(b->elf)) {
		b->selfp = b->elf;
		b->sfd = b->fd;
		rc = read_symbols(&b->syms, &b->nsyms, b->elf, SHT_SYMTAB);
	} else {
		rc = read_symbols(&b->syms, &b->nsyms, b->elf, SHT_DYNSYM);
	}
	if (!rc)
		rc = plt_symbols(b, b->elf);
	if (rc) {
		b->status = SYMZ_NOT_FOUND;
		return;
	}
	finish_table(b->syms, &b->nsyms, false);
	b->status = b->nsyms ? SYMZ_OK : SYMZ_STRIPPED;
}

/* ---------------------------------------------------------------- the kernel, JIT maps */

static char *read_text(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	char *t = pv_malloc(cap + 1);
	while (t) {
		if (n == cap) {
			char *nt = pv_realloc(t, cap * 2 + 1);
			if (!nt) {
				pv_free(t);
				t = NULL;
				break;
			}
			t = nt;
			cap *= 2;
		}
		ssize_t r = read(fd, t + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (t)
		t[n] = 0;
	*len = n;
	return t;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* A hexadecimal number at *p (an optional 0x), *p moved past it; -1 when there is none. */
static int read_hex(char **p, uint64_t *v)
{
	char *q = *p;
	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	uint64_t x = 0;
	int n = 0, d;
	for (; (d = hexval(*q)) >= 0 && n < 16; q++, n++)
		x = x << 4 | (uint64_t)d;
	*p = q;
	*v = x;
	return n ? 0 : -1;
}

static uint16_t kmod_of(struct symz *z, const char *name, size_t n)
{
	for (uint32_t i = 0; i < z->nkmods; i++)
		if (strncmp(z->kmods[i] + 1, name, n) == 0 && z->kmods[i][n + 1] == ']')
			return (uint16_t)(i + 1);
	if (z->nkmods >= UINT16_MAX - 1)
		return 0;
	char **nm = pv_realloc(z->kmods, (size_t)(z->nkmods + 1) * sizeof(*nm));
	if (!nm)
		return 0;
	z->kmods = nm;
	char *m = pv_malloc(n + 3);
	if (!m)
		return 0;
	m[0] = '[';
	memcpy(m + 1, name, n);
	m[n + 1] = ']';
	m[n + 2] = 0;
	z->kmods[z->nkmods++] = m;
	return (uint16_t)z->nkmods;
}

/* The symbols of a kallsyms file (perf's T, W, D and B) as the kernel's table: SYMZ_OK, or
 * SYMZ_NO_KALLSYMS when it is unreadable or its addresses are all zero (kptr_restrict). */
static enum symz_status load_kallsyms(struct symz *z, const char *path)
{
	size_t len;
	char *t = read_text(path, &len);
	if (!t)
		return SYMZ_NO_KALLSYMS;
	z->ktext = t;
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += t[i] == '\n';
	if (!(z->ksyms = pv_malloc((lines + 1) * sizeof(*z->ksyms))))
		return SYMZ_NO_KALLSYMS;
	bool nonzero = false;
	for (char *p = t; *p;) {
		char *e = strchr(p, '\n');
		if (e)
			*e = 0;
		uint64_t a;
		char *q = p;
		if (!read_hex(&q, &a) && *q == ' ' && q[1] && q[2] == ' ') {
			char type = q[1];
			char *name = q + 3, *tab = strchr(name, '\t');
			char u = (char)(type & ~0x20);
			uint16_t mod = 0;
			if (tab) {
				*tab = 0;
				char *m = tab + 1;
				if (*m == '[') {
					char *me = strchr(m, ']');
					if (me)
						mod = kmod_of(z, m + 1, (size_t)(me - m - 1));
				}
			}
			nonzero |= a != 0;
			if (strcmp(name, "_text") == 0 && !mod)
				z->ktext_now = a;
			if (u == 'T' || u == 'W' || u == 'D' || u == 'B')
				z->ksyms[z->nksyms++] = (struct sym){.start = a,
								     .end = a,
								     .name = name,
								     .order = z->nksyms,
								     .type = STT_FUNC,
								     .bind = STB_GLOBAL,
								     .mod = mod};
		}
		if (!e)
			break;
		p = e + 1;
	}
	if (!nonzero)
		z->nksyms = 0;
	finish_table(z->ksyms, &z->nksyms, true);
	return z->nksyms ? SYMZ_OK : SYMZ_NO_KALLSYMS;
}

/* The kernel's table gone (a kallsyms without addresses, before the next file is tried). */
static void drop_kernel_table(struct symz *z)
{
	pv_free(z->ksyms);
	pv_free(z->ktext);
	z->ksyms = NULL;
	z->ktext = NULL;
	z->nksyms = 0;
	z->ktext_now = 0;
}

/*
 * Tries path as the kernel's vmlinux (perf's dso__load_vmlinux): an ELF file of b's build id
 * (any, when none was recorded) with a .symtab, read by the binaries' rules; its _text is the
 * table's. SYMZ_OK, or why not (the first one of another build id kept to be said).
 */
static enum symz_status try_vmlinux(struct symz *z, const struct bin *b, const char *path)
{
	struct elf_file f;
	enum symz_status st = open_elf(path, &f);
	if (st)
		return st;
	if (!bid_matches(b, f.e)) {
		if (!z->krejected)
			z->krejected = dup_str(path);
		close_elf(&f);
		return SYMZ_BUILD_ID;
	}
	if (read_symbols(&z->ksyms, &z->nksyms, f.e, SHT_SYMTAB) || !z->nksyms) {
		drop_kernel_table(z);
		close_elf(&f);
		return SYMZ_STRIPPED;
	}
	for (uint32_t i = 0; i < z->nksyms && !z->ktext_now; i++)
		if (strcmp(z->ksyms[i].name, "_text") == 0)
			z->ktext_now = z->ksyms[i].start;
	finish_table(z->ksyms, &z->nksyms, false);
	z->kfd = f.fd;
	z->kelf = f.e;
	return SYMZ_OK;
}

/* Whether this machine runs the kernel of build id b (/sys/kernel/notes, perf's is_host); true
 * when none was recorded. */
static bool running_kernel(const struct bin *b)
{
	if (!b->bid_len)
		return true;
	size_t n;
	char *t = read_text("/sys/kernel/notes", &n);
	bool same = false;
	/* ELF notes: namesz, descsz, type, the name and the description each 4-aligned */
	for (size_t at = 0; t && at + 12 <= n && !same;) {
		uint32_t nl, dl, type;
		memcpy(&nl, t + at, 4);
		memcpy(&dl, t + at + 4, 4);
		memcpy(&type, t + at + 8, 4);
		size_t name = at + 12, desc = name + ((nl + 3u) & ~3u);
		if (desc + dl > n || nl > n || dl > n)
			break;
		same = type == NT_GNU_BUILD_ID && nl == 4 && memcmp(t + name, "GNU", 4) == 0 &&
		       dl >= b->bid_len && memcmp(t + desc, b->bid, b->bid_len) == 0;
		at = desc + ((dl + 3u) & ~3u);
	}
	pv_free(t);
	return same;
}

/* The kernel's vmlinux in perf's places (vmlinux_path__init's order, the recorded release):
 * SYMZ_OK when one is used, else the worse reason met. */
static enum symz_status find_vmlinux(struct symz *z, const struct bin *b, const char *h)
{
	static const char *const plain[] = {"vmlinux", "/boot/vmlinux"};
	/* each the text before the release and after it */
	static const char *const release[][2] = {{"/boot/vmlinux-", ""},
						 {"/usr/lib/debug/boot/vmlinux-", ""},
						 {"/lib/modules/", "/build/vmlinux"},
						 {"/usr/lib/debug/lib/modules/", "/vmlinux"},
						 {"/usr/lib/debug/boot/vmlinux-", ".debug"}};
	char p[4096];
	const char *home = getenv("HOME");
	enum symz_status why = SYMZ_NOT_FOUND, st;
	/* perf's build-id cache: .build-id/XX/REST links to [kernel.kallsyms]/ID (or to the
	 * path of a vmlinux added with perf buildid-cache), which holds "elf" */
	if (home && pathf(p, sizeof(p), "%s/.debug/.build-id/%.2s/%s/elf", home, h, h + 2) &&
	    (st = try_vmlinux(z, b, p)) != SYMZ_NOT_FOUND) {
		if (st == SYMZ_OK)
			return st;
		why = worse(why, st);
	}
	for (int i = 0; i < 2; i++)
		if ((st = try_vmlinux(z, b, plain[i])) == SYMZ_OK)
			return st;
		else
			why = worse(why, st);
	for (int i = 0; i < 5 && z->krelease; i++) {
		if (!pathf(p, sizeof(p), "%s%s%s", release[i][0], z->krelease, release[i][1]))
			continue;
		if ((st = try_vmlinux(z, b, p)) == SYMZ_OK)
			return st;
		why = worse(why, st);
	}
	return why;
}

/*
 * The kernel's table, once (symbols.h: perf's order): --vmlinux only when given; else a vmlinux
 * of the recorded build id in perf's places, /proc/kallsyms of the running kernel if it is the
 * recorded one, perf's copy of the recorded kernel's kallsyms.
 */
static void load_kernel(struct symz *z, const struct bin *b)
{
	z->kloaded = true;
	if (z->o.vmlinux) {
		z->kstatus = try_vmlinux(z, b, z->o.vmlinux);
	} else {
		char h[2 * BID_MAX + 1];
		hex(h, b->bid, b->bid_len);
		enum symz_status vm = b->bid_len ? find_vmlinux(z, b, h) : SYMZ_NOT_FOUND;
		z->kstatus = vm;
		if (vm != SYMZ_OK && running_kernel(b)) {
			z->kstatus = load_kallsyms(z, "/proc/kallsyms");
			if (z->kstatus != SYMZ_OK)
				drop_kernel_table(z);
		}
		const char *home = getenv("HOME");
		char p[4096];
		if (z->kstatus != SYMZ_OK && b->bid_len && home &&
		    pathf(p, sizeof(p), "%s/.debug/[kernel.kallsyms]/%s/kallsyms", home, h)) {
			if (load_kallsyms(z, p) == SYMZ_OK)
				z->kstatus = SYMZ_OK;
			else
				drop_kernel_table(z);
		}
		if (z->kstatus != SYMZ_OK && z->kstatus != SYMZ_NO_KALLSYMS)
			z->kstatus = SYMZ_NO_KERNEL;
	}
	if (z->kstatus == SYMZ_OK && z->ktext_now && z->ktext_rec)
		z->kshift = (int64_t)(z->ktext_now - z->ktext_rec);
}

void symz_kernel_text(struct symz *z, uint64_t recorded_text)
{
	z->ktext_rec = recorded_text;
	if (z->kloaded && z->ktext_now && recorded_text)
		z->kshift = (int64_t)(z->ktext_now - recorded_text);
}

void symz_kernel_release(struct symz *z, const char *release)
{
	pv_free(z->krelease);
	z->krelease = release && *release ? dup_str(release) : NULL;
}

static void load_jit(struct bin *b)
{
	size_t len;
	b->text = read_text(b->path, &len);
	if (!b->text) {
		b->status = SYMZ_NOT_FOUND;
		return;
	}
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += b->text[i] == '\n';
	if (!(b->syms = pv_malloc(lines * sizeof(*b->syms)))) {
		b->status = SYMZ_NOT_FOUND;
		return;
	}
	for (char *p = b->text; *p;) {
		char *e = strchr(p, '\n');
		if (e)
			*e = 0;
		uint64_t a, n;
		char *q = p;
		if (!read_hex(&q, &a) && *q == ' ' && (q++, !read_hex(&q, &n)) && *q == ' ')
			b->syms[b->nsyms++] = (struct sym){.start = a,
							   .end = a + n,
							   .name = q + 1,
							   .order = b->nsyms,
							   .type = STT_FUNC,
							   .bind = STB_GLOBAL};
		if (!e)
			break;
		p = e + 1;
	}
	finish_table(b->syms, &b->nsyms, false);
	b->status = b->nsyms ? SYMZ_OK : SYMZ_STRIPPED;
}

/* ---------------------------------------------------------------- lookups */

enum symz_status symz_load(struct symz *z, uint32_t h)
{
	if (h >= z->nbins)
		return SYMZ_NOT_FOUND;
	struct bin *b = &z->bins[h];
	if (z->o.off)
		return SYMZ_OFF;
	if (b->kind == BIN_KERNEL) {
		if (!z->kloaded)
			load_kernel(z, b);
		return z->kstatus;
	}
	if (!b->loaded) {
		b->loaded = true;
		if (b->kind == BIN_JIT)
			load_jit(b);
		else
			load_elf(z, b);
	}
	return b->status;
}

const char *symz_file(struct symz *z, uint32_t h)
{
	return h < z->nbins ? z->bins[h].file : NULL;
}

const char *symz_rejected(struct symz *z, uint32_t h)
{
	return h >= z->nbins		       ? NULL
	       : z->bins[h].kind == BIN_KERNEL ? z->krejected
					       : z->bins[h].rejected;
}

const char *symz_why(struct symz *z, uint32_t h, enum symz_status st, char *out, size_t cap)
{
	const char *rej = z ? symz_rejected(z, h) : NULL;
	if (rej)
		snprintf(out, cap, "%s; %s %s not used: its build id is another build's",
			 symz_status_text(st), symz_is_kernel(z, h) ? "vmlinux" : "debug file",
			 rej);
	else
		snprintf(out, cap, "%s", symz_status_text(st));
	return out;
}

uint64_t symz_vaddr(struct symz *z, uint32_t h, uint64_t off)
{
	if (h >= z->nbins)
		return off;
	struct bin *b = &z->bins[h];
	if (b->kind != BIN_ELF || symz_load(z, h) == SYMZ_NOT_FOUND || !b->nsegs)
		return b->kind == BIN_ELF && b->elf ? UINT64_MAX : off;
	for (uint32_t i = 0; i < b->nsegs; i++)
		if (off >= b->segs[i].off && off - b->segs[i].off < b->segs[i].filesz)
			return off - b->segs[i].off + b->segs[i].vaddr;
	return UINT64_MAX;
}

/* The demangled name of symbol i of a table (made once). */
static const char *demangled(char ***dem, uint32_t n, uint32_t i, const struct sym *s)
{
	if (!*dem && !(*dem = pv_calloc(n, sizeof(**dem))))
		return s->name;
	char *d = (*dem)[i];
	if (!d) {
		d = cplus_demangle(s->name, DMGL_NO_OPTS);
		(*dem)[i] = d ? d : (char *)1;
	}
	return d && d != (char *)1 ? d : s->name;
}

enum symz_status symz_lookup(struct symz *z, uint32_t h, uint64_t a, struct symz_hit *hit)
{
	enum symz_status st = symz_load(z, h);
	if (st)
		return st;
	struct bin *b = &z->bins[h];
	if (b->kind == BIN_KERNEL) {
		uint64_t ka = a + (uint64_t)z->kshift;
		int64_t i = find_sym(z->ksyms, z->nksyms, ka);
		if (i < 0)
			return SYMZ_NO_SYMBOL;
		const struct sym *s = &z->ksyms[i];
		hit->name = s->name; /* the kernel's names are not mangled */
		hit->module = s->mod ? z->kmods[s->mod - 1] : NULL;
		hit->start = s->start - (uint64_t)z->kshift;
		hit->end = s->end - (uint64_t)z->kshift;
		return SYMZ_OK;
	}
	int64_t i = find_sym(b->syms, b->nsyms, a);
	if (i < 0)
		return SYMZ_NO_SYMBOL;
	const struct sym *s = &b->syms[i];
	hit->name = demangled(&b->dem, b->nsyms, (uint32_t)i, s);
	hit->module = NULL;
	hit->start = s->start;
	hit->end = s->end;
	return SYMZ_OK;
}

/* Binary h's DWARF (the debug file's or its own), opened at the first ask; NULL when none. */
static Dwarf *bin_dwarf(struct symz *z, uint32_t h)
{
	if (symz_load(z, h) != SYMZ_OK)
		return NULL;
	struct bin *b = &z->bins[h];
	if (b->kind == BIN_KERNEL)
		return NULL;
	if (!b->dw_tried) {
		b->dw_tried = true;
		if (b->selfp)
			b->dw = dwarf_begin_elf(b->selfp, DWARF_C_READ, NULL);
		if (!b->dw && b->elf && b->elf != b->selfp)
			b->dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
	}
	return b->dw;
}

/*
 * The scopes at virtual address a of binary h, innermost first, in the concrete tree (where
 * dwarf_getscopes would go on into the abstract origin's), and the unit in *cu: their count
 * (*scopes libdw's malloc, the caller frees it), 0 when none.
 */
static int dw_scopes(struct symz *z, uint32_t h, uint64_t a, Dwarf_Die *cu, Dwarf_Die **scopes)
{
	Dwarf *dw = bin_dwarf(z, h);
	*scopes = NULL;
	if (!dw || !dwarf_addrdie(dw, a, cu))
		return 0;
	int ns = dwarf_getscopes(cu, a, scopes);
	if (ns > 0) {
		Dwarf_Die in = (*scopes)[0];
		free(*scopes);
		*scopes = NULL;
		ns = dwarf_getscopes_die(&in, scopes);
	}
	return ns > 0 ? ns : 0;
}

uint32_t symz_inlines(struct symz *z, uint32_t h, uint64_t a, const char **names, uint32_t cap)
{
	return symz_inlines_at(z, h, a, names, NULL, cap);
}

/* The file of a DW_AT_call_file index of unit cu; NULL when it names none. */
static const char *call_file(Dwarf_Die *cu, Dwarf_Word ix)
{
	Dwarf_Files *files;
	size_t nfiles;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || ix >= nfiles)
		return NULL;
	return dwarf_filesrc(files, ix, NULL, NULL);
}

uint32_t symz_inlines_at(struct symz *z, uint32_t h, uint64_t a, const char **names,
			 struct symz_line *lines, uint32_t cap)
{
	if (!cap)
		return 0;
	Dwarf_Die cu, *scopes;
	int ns = dw_scopes(z, h, a, &cu, &scopes);
	uint32_t n = 0;
	for (int i = 0; i < ns && n < cap; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		const char *nm = dwarf_diename(&scopes[i]);
		names[n] = nm ? nm : "??";
		if (lines) { /* where the caller called it: a line of the next scope out */
			Dwarf_Attribute at;
			Dwarf_Word file = 0, line = 0;
			dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &at), &file);
			dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &at), &line);
			const char *f = line ? call_file(&cu, file) : NULL;
			lines[n] = (struct symz_line){f, f ? (uint32_t)line : 0};
		}
		n++;
	}
	free(scopes); /* libdw's malloc */
	return n;
}

struct symz_line symz_srcline(struct symz *z, uint32_t h, uint64_t a)
{
	struct symz_line r = {NULL, 0};
	Dwarf *dw = bin_dwarf(z, h);
	Dwarf_Die cu;
	if (!dw || !dwarf_addrdie(dw, a, &cu))
		return r;
	Dwarf_Line *l = dwarf_getsrc_die(&cu, a);
	int line = 0;
	const char *f = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (f && dwarf_lineno(l, &line) == 0 && line > 0)
		r = (struct symz_line){f, (uint32_t)line};
	return r;
}

const char *symz_name_at_offset(struct symz *z, uint32_t h, uint64_t off, enum symz_status *why)
{
	uint64_t va = symz_vaddr(z, h, off);
	struct symz_hit hit;
	enum symz_status st = symz_lookup(z, h, va == UINT64_MAX ? off : va, &hit);
	if (why)
		*why = st;
	return st == SYMZ_OK ? hit.name : NULL;
}

size_t symz_build_id_hex(const char *text, size_t n, unsigned char *out, size_t cap)
{
	if (n < 2 || n % 2 || n / 2 > cap)
		return 0;
	for (size_t i = 0; i < n; i += 2) {
		int a = hexval(text[i]), b = hexval(text[i + 1]);
		if (a < 0 || b < 0)
			return 0;
		out[i / 2] = (unsigned char)(a << 4 | b);
	}
	return n / 2;
}

size_t symz_build_id_breakpad(const char *text, size_t n, unsigned char *out, size_t cap)
{
	unsigned char g[16];
	if (n < 33 || cap < 16 || symz_build_id_hex(text, 32, g, sizeof(g)) != 16)
		return 0;
	static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
	for (int i = 0; i < 16; i++)
		out[i] = g[order[i]];
	return 16;
}

int symz_func_range(const char *path, const char *name, uint64_t lo, uint64_t hi, uint64_t *start,
		    uint64_t *end, uint64_t *delta)
{
	struct symz *z = symz_new(NULL);
	uint32_t h = z ? symz_binary(z, path, NULL, 0) : UINT32_MAX;
	int rc = -1;
	if (h != UINT32_MAX && symz_load(z, h) == SYMZ_OK) {
		for (int off = 0; off < 2 && rc; off++) {
			uint64_t a = off ? symz_vaddr(z, h, lo) : lo;
			uint64_t b = off ? symz_vaddr(z, h, hi) : hi;
			struct symz_hit hit;
			if (a == UINT64_MAX || b == UINT64_MAX || b < a ||
			    symz_lookup(z, h, a, &hit) != SYMZ_OK || strcmp(hit.name, name) != 0 ||
			    b >= hit.end)
				continue;
			*start = hit.start;
			*end = hit.end;
			*delta = a - lo;
			rc = 0;
		}
	}
	symz_free(z);
	return rc;
}

enum symz_status symz_find(struct symz *z, uint32_t h, const char *name, struct symz_hit *hit)
{
	enum symz_status st = symz_load(z, h);
	if (st)
		return st;
	struct bin *b = &z->bins[h];
	const struct sym *t = b->kind == BIN_KERNEL ? z->ksyms : b->syms;
	uint32_t n = b->kind == BIN_KERNEL ? z->nksyms : b->nsyms;
	for (uint32_t i = 0; i < n; i++) {
		const char *dn =
		    b->kind == BIN_KERNEL ? t[i].name : demangled(&b->dem, n, i, &t[i]);
		if (strcmp(t[i].name, name) == 0 || strcmp(dn, name) == 0) {
			hit->name = dn;
			hit->module = NULL;
			hit->start = t[i].start;
			hit->end = t[i].end;
			return SYMZ_OK;
		}
	}
	return SYMZ_NO_SYMBOL;
}
