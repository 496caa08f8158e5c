/*
 * test_pprof_legacy.c - pprof's legacy formats (binary CPU, heap, contention, thread, count,
 * Java).
 *
 * The six corpus files with a pprof debug dump beside them (FILE.string: what pprof's
 * profile.Parse made of FILE) are checked against that dump, parsed here: the sample types and
 * their units, the period, every sample's values, its stack (each location's address, or the
 * Java function, file and line) and its "bytes" label, the mappings. The other corpus files
 * are checked on figures copied by hand from pprof's dumps of them in google/pprof
 * (profile/testdata/ NAME.string, which the corpus did not copy) or worked out from the file's text
 * by pprof's rules (the comments say which).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "pv/import.h"
#include "pv/profile.h"
#include "t.h"
#include "tp.h"

#define TD "pprof/profile/testdata/"

/* ---- pprof's debug dump (Profile.String) ---- */

struct dloc {
	unsigned long long id, addr, map;
	char name[128], file[128];
	long long line;
	int sym;
};

struct dmap {
	unsigned long long id, start, limit, offset;
	char file[256];
};

struct dump {
	char ptype[64], punit[64];
	long long period;
	int nvals;
	char type[4][64], unit[4][64];
	int nsamples;
	long long vals[256][4];
	long long bytes[256]; /* -1: no label */
	int nlocs_of[256];
	unsigned long long locs_of[256][64];
	int nlocs, nmaps;
	struct dloc locs[256];
	struct dmap maps[32];
};

static struct dump *read_dump(const char *path)
{
	size_t len;
	char *text = t_read_file(path, &len);
	if (!text) {
		t_fail(__FILE__, __LINE__, "cannot read %s", path);
		return NULL;
	}
	struct dump *d = calloc(1, sizeof(*d));
	enum { HEAD, SAMPLES, LOCS, MAPS } sect = HEAD;
	int header_done = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (sscanf(line, "PeriodType: %63s %63s", d->ptype, d->punit) >= 1)
			continue;
		if (sscanf(line, "Period: %lld", &d->period) == 1)
			continue;
		if (!strcmp(line, "Samples:")) {
			sect = SAMPLES;
			continue;
		}
		if (!strcmp(line, "Locations")) {
			sect = LOCS;
			continue;
		}
		if (!strcmp(line, "Mappings")) {
			sect = MAPS;
			continue;
		}
		if (sect == SAMPLES && !header_done) {
			/* "samples/count cpu/nanoseconds" */
			for (char *w = line, *sp; w && *w && d->nvals < 4; w = sp ? sp + 1 : NULL) {
				sp = strchr(w, ' ');
				if (sp)
					*sp = 0;
				char *sl = strchr(w, '/');
				if (!sl)
					break;
				*sl = 0;
				snprintf(d->type[d->nvals], 64, "%s", w);
				snprintf(d->unit[d->nvals], 64, "%s", sl + 1);
				d->nvals++;
			}
			header_done = 1;
		} else if (sect == SAMPLES) {
			char *lab = strstr(line, "bytes:[");
			if (lab) {
				d->bytes[d->nsamples - 1] = atoll(lab + 7);
				continue;
			}
			int s = d->nsamples++;
			d->bytes[s] = -1;
			char *c = line, *end;
			for (int v = 0; v < d->nvals; v++) {
				d->vals[s][v] = strtoll(c, &end, 10);
				c = end;
			}
			c = strchr(c, ':') + 1;
			for (;;) {
				unsigned long long id = strtoull(c, &end, 10);
				if (end == c)
					break;
				d->locs_of[s][d->nlocs_of[s]++] = id;
				c = end;
			}
		} else if (sect == LOCS) {
			/* "     1: 0x42ef04 M=1" or "     4: 0x0 com.example.f source.java:6:0 s=0"
			 */
			struct dloc *l = &d->locs[d->nlocs++];
			char rest[256] = "";
			sscanf(line, " %llu: %llx %255[^\n]", &l->id, &l->addr, rest);
			if (sscanf(rest, "M=%llu", &l->map) == 1)
				continue;
			char fl[128];
			if (sscanf(rest, "%127s %127s", l->name, fl) == 2) {
				char *c1 = strchr(fl, ':');
				*c1 = 0;
				snprintf(l->file, sizeof(l->file), "%s", fl);
				l->line = atoll(c1 + 1);
				l->sym = 1;
			}
		} else if (sect == MAPS) {
			/* "1: 0x400000/0xfcb000/0x0 cppbench_server_main" */
			struct dmap *m = &d->maps[d->nmaps++];
			sscanf(line, "%llu: %llx/%llx/%llx %255s", &m->id, &m->start, &m->limit,
			       &m->offset, m->file);
		}
	}
	free(text);
	return d;
}

static const struct dloc *dump_loc(const struct dump *d, unsigned long long id)
{
	for (int i = 0; i < d->nlocs; i++)
		if (d->locs[i].id == id)
			return &d->locs[i];
	return NULL;
}

static const struct dmap *dump_map(const struct dump *d, unsigned long long id)
{
	for (int i = 0; i < d->nmaps; i++)
		if (d->maps[i].id == id)
			return &d->maps[i];
	return NULL;
}

/* The model against the dump: metrics, samples (values, stacks, labels), modules. */
static void check_against_dump(const char *rel)
{
	char dpath[512];
	snprintf(dpath, sizeof(dpath), "%s.string", t_corpus(rel));
	struct dump *d = read_dump(dpath);
	struct pv_profile *p = t_load_as(t_corpus(rel), "pprof-legacy");
	if (!d || !p)
		goto out;
	/* period and period type, in the import report */
	char want[256];
	snprintf(want, sizeof(want), "period %lld (period_type %s/%s)", d->period, d->ptype,
		 d->punit);
	if (!t_diag(p, want, NULL))
		t_fail(__FILE__, __LINE__, "%s: no diag '%s'", rel, want);
	/* sample types: names, units (microseconds read as ns), the last one the default */
	T_EQ_INT(p->metrics.len, d->nvals);
	int64_t scale[4] = {1, 1, 1, 1};
	for (int v = 0; v < d->nvals && v < (int)p->metrics.len; v++) {
		T_EQ_STR(pv_str(p, p->metrics.name[v]), d->type[v]);
		const char *u = d->unit[v];
		int want_unit = !strcmp(u, "count")   ? PV_UNIT_COUNT
				: !strcmp(u, "bytes") ? PV_UNIT_BYTES
						      : PV_UNIT_NS;
		if (!strcmp(u, "microseconds"))
			scale[v] = 1000;
		T_EQ_INT(p->metrics.unit[v], want_unit);
	}
	T_EQ_INT(p->meta.default_metric, d->nvals - 1);
	/* samples, in the file's order */
	T_EQ_INT(p->samples.len, d->nsamples);
	for (int s = 0; s < d->nsamples && s < (int)p->samples.len; s++) {
		for (int v = 0; v < d->nvals; v++)
			if (pv_sample_weight(p, (pv_metric_ix)v, (uint32_t)s) !=
			    d->vals[s][v] * scale[v])
				t_fail(__FILE__, __LINE__, "%s: sample %d value %d: %lld != %lld",
				       rel, s, v,
				       (long long)pv_sample_weight(p, (pv_metric_ix)v, (uint32_t)s),
				       d->vals[s][v] * scale[v]);
		/* the stack, leaf first as in the dump */
		int k = 0;
		for (pv_stack_ix st = p->samples.stack[s]; st != PV_NONE;
		     st = p->stacks.prefix[st], k++) {
			if (k >= d->nlocs_of[s])
				break;
			const struct dloc *l = dump_loc(d, d->locs_of[s][k]);
			pv_frame_ix f = p->stacks.frame[st];
			pv_func_ix fn = p->frames.func[f];
			const char *name = pv_str(p, p->funcs.name[fn]);
			if (!l) {
				t_fail(__FILE__, __LINE__, "%s: location %llu not in the dump", rel,
				       d->locs_of[s][k]);
				break;
			}
			if (l->sym) {
				/* Java: function, file and line from the symbol section */
				pv_source_ix src = pv_func_source(p, fn);
				if (strcmp(name, l->name) ||
				    pv_frame_line(p, f) != (uint32_t)l->line ||
				    strcmp(src == PV_NONE ? "" : pv_str(p, p->sources.path[src]),
					   l->file))
					t_fail(__FILE__, __LINE__,
					       "%s: sample %d frame %d: %s %s:%u, dump %s %s:%lld",
					       rel, s, k, name,
					       src == PV_NONE ? ""
							      : pv_str(p, p->sources.path[src]),
					       pv_frame_line(p, f), l->name, l->file, l->line);
				continue;
			}
			char addr[32];
			snprintf(addr, sizeof(addr), "%#llx", l->addr);
			if (strcmp(name, addr))
				t_fail(__FILE__, __LINE__, "%s: sample %d frame %d: %s, dump %s",
				       rel, s, k, name, addr);
			/* the module of the location's mapping, and the address relative to it */
			const struct dmap *m = dump_map(d, l->map);
			pv_module_ix mod = pv_func_module(p, fn);
			if (!m || !m->file[0]) {
				T_EQ_INT(mod, PV_NONE);
				T_EQ_U64(pv_frame_addr(p, f), l->addr);
			} else {
				const char *base = strrchr(m->file, '/');
				base = base ? base + 1 : m->file;
				if (mod == PV_NONE ||
				    strcmp(pv_str(p, p->modules.name[mod]), base) ||
				    strcmp(pv_str(p, p->modules.path[mod]), m->file))
					t_fail(
					    __FILE__, __LINE__,
					    "%s: sample %d frame %d: module %s, dump %s", rel, s, k,
					    mod == PV_NONE ? "-" : pv_str(p, p->modules.path[mod]),
					    m->file);
				T_EQ_U64(pv_frame_addr(p, f), l->addr - m->start + m->offset);
			}
		}
		if (k != d->nlocs_of[s])
			t_fail(__FILE__, __LINE__, "%s: sample %d: %d frames, dump %d", rel, s, k,
			       d->nlocs_of[s]);
		/* heap: the block size label */
		uint32_t ls = p->samples.label_set ? p->samples.label_set[s] : 0;
		if (d->bytes[s] >= 0) {
			if (ls == 0 || p->label_sets.count[ls] != 1) {
				t_fail(__FILE__, __LINE__, "%s: sample %d: no bytes label", rel, s);
			} else {
				uint32_t r = p->label_sets.items[p->label_sets.first[ls]];
				T_EQ_STR(pv_str(p, p->labels.key[r]), "bytes");
				T_EQ_INT(p->labels.num[r], d->bytes[s]);
			}
		} else {
			T_EQ_INT(ls, 0);
		}
	}
	/* mappings with a file are the modules, the main binary first */
	int files = 0;
	for (int i = 0; i < d->nmaps; i++)
		files += d->maps[i].file[0] != 0;
	T_EQ_INT(p->modules.len, files);
	if (files)
		T_EQ_INT(p->modules.kind[0], PV_MODULE_BINARY);
out:
	free(d);
	pv_profile_free(p);
}

T_TEST(pprof_legacy_against_dumps)
{
	check_against_dump(TD "cppbench.cpu");	/* 64-bit gperftools CPU, signal frame removed */
	check_against_dump(TD "go.crc32.cpu");	/* old Go CPU profile, no memory map */
	check_against_dump(TD "cppbench.heap"); /* heapz_v2, unsampled, $source substitution */
	check_against_dump(TD "cppbench.contention"); /* cycles to ns, sampling period */
	check_against_dump(TD "go.godoc.thread");     /* threadcreate count profile */
	check_against_dump(TD "java.cpu");	      /* 32-bit Java CPU with a symbol section */
}

/* Totals of the dumps, summed by hand (awk over the dumps' value columns). */
T_TEST(pprof_legacy_dump_totals)
{
	struct pv_profile *p = t_load_as(t_corpus(TD "cppbench.cpu"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 52);
		T_EQ_INT(t_total(p, 0), 712);
		T_EQ_INT(t_total(p, 1), 7120000000);
		T_EQ_INT(p->meta.interval_ns, 10000000);
		T_EQ_INT(p->modules.len, 12);
		T_EQ_STR(pv_str(p, p->meta.format_version), "cpu-64");
		/* the fifth sample: 542 x 10 ms at 0x42ed43, under main's 11 frames */
		T_EQ_INT(pv_sample_weight(p, 0, 4), 542);
		T_EQ_INT(pv_sample_weight(p, 1, 4), 5420000000);
		pv_frame_ix f = p->stacks.frame[p->samples.stack[4]];
		T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[f]]), "0x42ed43");
		T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, p->frames.func[f])]),
			 "cppbench_server_main");
		T_TRUE(t_diag(p, "signal handler frames removed", NULL));
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus(TD "go.crc32.cpu"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 69);
		T_EQ_INT(t_total(p, 0), 211);
		T_EQ_INT(t_total(p, 1), 2110000000);
		T_EQ_INT(p->modules.len, 0);
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus(TD "cppbench.heap"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 31);
		T_EQ_INT(t_total(p, 0), 41063);
		T_EQ_INT(t_total(p, 1), 80935293);
		T_EQ_STR(pv_str(p, p->modules.path[0]), "/home/cppbench_server_main");
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus(TD "cppbench.contention"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 6);
		T_EQ_INT(t_total(p, 0), 3500);
		T_EQ_INT(t_total(p, 1), 690508213);
		T_TRUE(t_diag(p, "duration 16502830000000 ns", NULL));
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus(TD "go.godoc.thread"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 7);
		T_EQ_INT(t_total(p, 0), 7);
		T_EQ_STR(pv_str(p, p->metrics.name[0]), "threadcreate");
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus(TD "java.cpu"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 8);
		T_EQ_INT(t_total(p, 0), 7);
		T_EQ_INT(t_total(p, 1), 70000000);
		T_EQ_INT(p->modules.len, 0);
		T_EQ_STR(pv_str(p, p->meta.format_version), "java-cpu-32");
		pv_profile_free(p);
	}
}

/* The first sample's frames, root first, as "0x..." names joined by ';'. */
static void stack_names(const struct pv_profile *p, uint32_t s, char *buf, size_t cap)
{
	pv_frame_ix fr[512];
	uint32_t n = 0;
	for (pv_stack_ix st = p->samples.stack[s]; st != PV_NONE && n < 512;
	     st = p->stacks.prefix[st])
		fr[n++] = p->stacks.frame[st];
	buf[0] = 0;
	for (uint32_t i = n; i-- > 0;) {
		size_t l = strlen(buf);
		snprintf(buf + l, cap - l, "%s%s", i + 1 < n ? ";" : "",
			 pv_str(p, p->funcs.name[p->frames.func[fr[i]]]));
	}
}

/*
 * The corpus files without a dump beside them. Figures marked "upstream dump" are copied by
 * hand from google/pprof's profile/testdata/NAME.string (not in the corpus); the others follow
 * from the file's text by pprof's rules, worked out by hand (shown in the comments).
 */
T_TEST(pprof_legacy_other_corpus_files)
{
	char buf[4096];
	/* upstream dump: 85 samples of 1 object, 2097152 bytes; period 1, nothing unsampled */
	struct pv_profile *p = t_load_as(t_corpus(TD "cppbench.growth"), "pprof-legacy");
	if (p) {
		T_EQ_STR(pv_str(p, p->meta.format_version), "growth");
		T_EQ_INT(p->samples.len, 85);
		T_EQ_INT(t_total(p, 0), 85);
		T_EQ_INT(t_total(p, 1), 178257920);
		T_EQ_INT(p->modules.len, 12);
		T_TRUE(t_diag(p, "period 1 (period_type space/bytes)", NULL));
		/* upstream dump, last sample: 1 2 3 58 59 60 = 0xb83002 0xb87d4f 0xc635ef 0x42d575
		 * 0xc25cc5 0x40651a (every address of a text profile moved back by 1) */
		stack_names(p, 84, buf, sizeof(buf));
		T_EQ_STR(buf, "0x40651a;0xc25cc5;0x42d575;0xc635ef;0xb87d4f;0xb83002");
		pv_profile_free(p);
	}
	/* upstream dump: alloc and inuse (the header's two pairs differ), heap/1048576 = rate
	 * 524288 */
	p = t_load_as(t_corpus(TD "gobench.heap"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->metrics.len, 4);
		T_EQ_STR(pv_str(p, p->metrics.name[0]), "alloc_objects");
		T_EQ_STR(pv_str(p, p->metrics.name[3]), "inuse_space");
		T_EQ_INT(p->meta.default_metric, 3);
		T_EQ_INT(p->samples.len, 15);
		T_EQ_INT(t_total(p, 0), 83134);
		/* first sample "4 2488234 1 829411", the 12th "7085 1048724 1820 524432" without a
		 * stack */
		T_EQ_INT(pv_sample_weight(p, 0, 0), 4);
		T_EQ_INT(pv_sample_weight(p, 1, 0), 2488234);
		T_EQ_INT(pv_sample_weight(p, 2, 0), 1);
		T_EQ_INT(pv_sample_weight(p, 3, 0), 829411);
		T_EQ_INT(pv_sample_weight(p, 0, 11), 7085);
		T_EQ_INT(pv_sample_weight(p, 1, 11), 1048724);
		T_EQ_INT(pv_sample_weight(p, 3, 11), 524432);
		T_EQ_INT(p->samples.stack[11], PV_NONE);
		T_EQ_INT(p->modules.len, 0); /* Go: no memory map, pprof's fake mapping */
		T_TRUE(t_diag(p, "period 524288 (period_type space/bytes)", NULL));
		pv_profile_free(p);
	}
	/* upstream dump: inuse_objects 74+8941+596+936+993+1192+54615, inuse_space likewise */
	p = t_load_as(t_corpus(TD "java.heap"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 7);
		T_EQ_INT(t_total(p, 0), 67347);
		T_EQ_INT(t_total(p, 1), 9968703);
		T_EQ_INT(pv_sample_weight(p, 0, 0), 74);
		T_EQ_INT(pv_sample_weight(p, 1, 0), 527819);
		/* the last sample: one frame, com.example.function097 Source097.java:197 */
		pv_frame_ix f = p->stacks.frame[p->samples.stack[6]];
		T_EQ_INT(p->stacks.prefix[p->samples.stack[6]], PV_NONE);
		T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[f]]), "com.example.function097");
		T_EQ_INT(pv_frame_line(p, f), 197);
		T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, p->frames.func[f])]),
			 "Source097.java");
		T_TRUE(t_diag(p, "period 0 (period_type -/-)", NULL));
		pv_profile_free(p);
	}
	/* upstream dump: contentions/count delay/microseconds, period 100: 100 100, 100 1400, 200
	 * 200, 300 200 */
	p = t_load_as(t_corpus(TD "java.contention"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 4);
		T_EQ_STR(pv_str(p, p->metrics.name[1]), "delay");
		T_EQ_INT(p->metrics.unit[1], PV_UNIT_NS);
		T_EQ_INT(t_total(p, 0), 700);
		T_EQ_INT(t_total(p, 1), 1900000); /* 1900 us */
		T_EQ_INT(pv_sample_weight(p, 1, 1), 1400000);
		stack_names(p, 0, buf, sizeof(buf));
		T_EQ_STR(buf, "com.example.function04;com.example.function03");
		T_TRUE(t_diag(p, "duration 6019923000000 ns", NULL));
		pv_profile_free(p);
	}
	/* the binary words: 206 records, counts adding up to 305, period 10000 us; the first
	 * record is count 1, depth 2: 0x410bc0 0x41a771 (the caller moved back by 1) */
	p = t_load_as(t_corpus(TD "gobench.cpu"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 206);
		T_EQ_INT(t_total(p, 0), 305);
		T_EQ_INT(t_total(p, 1), 3050000000);
		stack_names(p, 0, buf, sizeof(buf));
		T_EQ_STR(buf, "0x41a770;0x410bc0");
		pv_profile_free(p);
	}
	/*
	 * threadz: one sample per thread, a "[same as previous thread]" thread counted on the one
	 * before; every address of the section's lines (the "creator:" ones too), callers moved
	 * back by 1. cppbench.thread: main (3 frames), thread1 (2 + 7 creator), thread2 and
	 * thread3.
	 */
	p = t_load_as(t_corpus(TD "cppbench.thread"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 3);
		T_EQ_INT(pv_sample_weight(p, 0, 0), 1);
		T_EQ_INT(pv_sample_weight(p, 0, 2), 2);
		T_EQ_INT(t_total(p, 0), 4);
		stack_names(p, 0, buf, sizeof(buf));
		T_EQ_STR(buf, "0x7f7949a9811c;0x40be30;0xbc8f1c");
		stack_names(p, 1, buf, sizeof(buf));
		T_EQ_STR(buf,
			 "0x7f7949a9811c;0x40bce3;0xbb0d20;0xbaa9f8;0xbaa17e;0xa460b3;0xa45b95;"
			 "0x7f794a32414d;0x7f794a32bf7d");
		pv_frame_ix f = p->stacks.frame[p->samples.stack[0]];
		pv_module_ix m = pv_func_module(p, p->frames.func[f]);
		T_EQ_STR(pv_str(p, p->modules.path[m]),
			 "/home/rsilvera/cppbench/cppbench_server_main");
		T_EQ_INT(pv_frame_addr(p, f), 0xbc8f1c - 0x400000);
		T_TRUE(t_diag(p, "period 1 (period_type thread/count)", NULL));
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus(TD "cppbench.thread.all"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 3);
		T_EQ_INT(t_total(p, 0), 4);
		stack_names(p, 1, buf, sizeof(buf));
		T_EQ_STR(buf, "0x7eff052e111c;0x40bce3;0x7eff05b6d14d;0x7eff05b74f7d");
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus(TD "cppbench.thread.none"), "pprof-legacy");
	if (p) {
		T_EQ_INT(p->samples.len, 4);
		T_EQ_INT(t_total(p, 0), 4);
		/* thread2's stack goes on over two lines */
		stack_names(p, 2, buf, sizeof(buf));
		T_EQ_STR(
		    buf,
		    "0x7eff052e111c;0x40bd6d;0x79ec1b;0xbbff76;0x7a3e8c;0x7a37d1;0xa45b95;"
		    "0x7eff05b6d14d;0xa456e3;0x7a296c;0x7a2726;0x7a1c44;0x7a1955;0x7eff052dfa93");
		T_EQ_STR(pv_str(p, p->modules.name[0]), "cppbench_server_main.unstripped");
		pv_profile_free(p);
	}
}

/* ---- malformed input: one positioned line, never a crash ---- */

struct text_case {
	const char *text;
	int rc;
	const char *msg; /* a substring of the message */
};

T_TEST(pprof_legacy_malformed_text)
{
	static const struct text_case cases[] = {
	    {"heap profile: 1: 2 [1: 2] @ heapz_v2/524288\n1: 2 [1: 2] @ 0x10\nbogus\n", PV_EPARSE,
	     "line 3, column 1: expected a heap sample"},
	    {"heap profile: 1: 2 [1: 2] @ heapz_v2/524288\n0: 5 [0: 5] @ 0x10\n", PV_EPARSE,
	     "line 2, column 1: inuse count is 0 but its bytes are 5"},
	    {"heap profile: 1: 2 [1: 2] @ heapz_v2/524288\n99999999999999999999: 1 [1: 1] @ 0x10\n",
	     PV_EPARSE,
	     "line 2, column 1: number '99999999999999999999' is out of the 64-bit range"},
	    {"heap profile: 1: 2 [1: 2] @ heapz_v2/524288\n1: 2 [1: 2] @ 0x10 "
	     "0x123456789abcdef012\n",
	     PV_EPARSE, "line 2, column 20: address '0x123456789abcdef012' is longer than 64 bits"},
	    {"heap profile: 1: 2 [1: 2] @ heapz_v9/524288\n", PV_EPARSE,
	     "unknown heap profile kind 'heapz_v9'"},
	    {"--- contentionz 1 ---\ncycles/second = 3000000000\n10 1 @ 0x10\nnot a sample\n",
	     PV_EPARSE, "line 4, column 1: expected a contention sample"},
	    {"--- contentionz 1 ---\nsampling period = 99999999999999999999\n", PV_EPARSE,
	     "line 2, column 19: attribute 'sampling period'"},
	    {"--- contentionz 1 ---\nsampling period = 1000000000000\n1 99999999 @ 0x10\n",
	     PV_EPARSE, "count times the sampling period is out of the 64-bit range"},
	    {"threadcreate profile: total 1\n1 @ 0x10 zz\n", PV_EPARSE,
	     "line 2, column 9: expected ' 0xADDRESS'"},
	    {"threadcreate profile: total 1\n1 @\n", PV_EPARSE,
	     "line 2, column 4: expected ' 0xADDRESS'"},
	    {"--- threadz 1 ---\n--- Thread 1 (name: a/1) stack: ---\n  0x10\n--- bogus ---\n",
	     PV_EPARSE, "line 4, column 1: expected '--- Thread ID (name: NAME/TID) stack: ---'"},
	    {"--- heapz 1 ---\nformat = java\nresolution = bytes\n 10 0 @ 0x1\n", PV_EPARSE,
	     "line 4, column 5: the object count of a heap sample must not be 0"},
	    {"--- heapz 1 ---\nformat = cobol\n", PV_EPARSE, "format 'cobol' is not java"},
	    {"--- heapz 1 ---\nformat = java\nresolution = bytes\n 10 1 @ 0x1\n\n "
	     "0x123456789abcdef012 f (A.java:1)\n",
	     PV_EPARSE, "line 6, column 2: address '0x123456789abcdef012' is longer than 64 bits"},
	    {"not a legacy profile\n", PV_EFORMAT, "not a legacy pprof profile"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pv_profile *p;
		struct pv_error err;
		int rc = t_import_text("bad.prof", cases[i].text, strlen(cases[i].text),
				       "pprof-legacy", &p, &err);
		if (rc != cases[i].rc)
			t_fail(__FILE__, __LINE__, "case %zu: rc %d, want %d (%s)", i, rc,
			       cases[i].rc, err.msg);
		T_CONTAINS(err.msg, cases[i].msg);
		T_TRUE(strchr(err.msg, '\n') == NULL);
		if (rc == PV_EPARSE)
			T_EQ_INT(err.has_pos, 1);
		if (!rc)
			pv_profile_free(p);
	}
	/* "$attr" substitutions past 1 MiB for one memory map line */
	struct sbuf big = SBUF_INIT;
	sbuf_addf(&big,
		  "heap profile: 1: 2 [1: 2] @ heap_v2/0\n1: 2 [1: 2] @ 0x10\n"
		  "--- Memory map: ---\nx=%01000d\n",
		  7);
	for (size_t i = 0; i < 2000; i++)
		sbuf_puts(&big, "$x");
	T_TRUE(!big.oom);
	struct pv_profile *p;
	struct pv_error err;
	int rc = t_import_text("bad.prof", big.buf, big.len, "pprof-legacy", &p, &err);
	T_EQ_INT(rc, PV_ELIMIT);
	T_CONTAINS(err.msg, "after $attr substitution");
	if (!rc)
		pv_profile_free(p);
	/* 20,000 locations in 20,000 mappings: past the bound on pprof's linear mapping search */
	sbuf_reset(&big);
	sbuf_puts(&big, "heap profile: 1: 2 [1: 2] @ heap_v2/0\n1: 2 [1: 2] @");
	for (unsigned i = 0; i < 20000; i++)
		sbuf_addf(&big, " 0x%x", 0x100000 + 16 * i);
	sbuf_puts(&big, "\n--- Memory map: ---\n");
	for (unsigned i = 0; i < 20000; i++)
		sbuf_addf(&big, "%x-%x: /lib/l%u.so\n", 0x10000000 + 32 * i,
			  0x10000000 + 32 * i + 16, i);
	T_TRUE(!big.oom);
	rc = t_import_text("bad.prof", big.buf, big.len, "pprof-legacy", &p, &err);
	T_EQ_INT(rc, PV_ELIMIT);
	T_CONTAINS(err.msg, "20000 locations in 20000 mappings");
	if (!rc)
		pv_profile_free(p);
	sbuf_release(&big);
}

/* 64-bit little-endian words of a binary CPU profile. */
struct words {
	uint64_t *w;
	size_t n, cap;
};

static void put(struct words *b, uint64_t v)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->w = realloc(b->w, b->cap * sizeof(*b->w));
	}
	b->w[b->n++] = v;
}

static void cpu_header(struct words *b)
{
	b->n = 0;
	put(b, 0);
	put(b, 3);
	put(b, 0);
	put(b, 10000);
	put(b, 0);
}

static int import_words(const struct words *b, size_t bytes, struct pv_profile **p,
			struct pv_error *err)
{
	pv_error_clear(err);
	*p = NULL;
	/* the words are little-endian on the machines we build on (x86-64, arm64) */
	return pv_import_memory("bad.cpu", b->w, bytes, NULL, p, err);
}

T_TEST(pprof_legacy_malformed_binary)
{
	struct words b = {0};
	struct pv_profile *p;
	struct pv_error err;
	/* a record cut after 12 of its bytes */
	cpu_header(&b);
	put(&b, 1);
	put(&b, 1);
	put(&b, 0x400000);
	T_EQ_INT(import_words(&b, 40 + 12, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "bad.cpu: byte 40: truncated record");
	T_EQ_INT(err.has_pos, 2);
	T_EQ_U64(err.offset, 40);
	/* a depth beyond the data */
	cpu_header(&b);
	put(&b, 1);
	put(&b, 1000);
	put(&b, 0x400000);
	T_EQ_INT(import_words(&b, b.n * 8, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "byte 40: stack depth 1000 runs past the end of the data");
	cpu_header(&b);
	put(&b, 1);
	put(&b, UINT64_MAX);
	T_EQ_INT(import_words(&b, b.n * 8, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "stack depth 18446744073709551615 runs past");
	/* a count that overflows the ns value */
	cpu_header(&b);
	put(&b, (uint64_t)1 << 62);
	put(&b, 1);
	put(&b, 0x400000);
	T_EQ_INT(import_words(&b, b.n * 8, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "byte 40: sample count 4611686018427387904 is too large");
	/* the header alone: no samples, no trailer (reported) */
	cpu_header(&b);
	if (import_words(&b, b.n * 8, &p, &err) == 0) {
		T_EQ_INT(p->samples.len, 0);
		T_TRUE(t_diag(p, "no end-of-data record", NULL));
		pv_profile_free(p);
	} else {
		t_fail(__FILE__, __LINE__, "header only: %s", err.msg);
	}
	/* cppbench.cpu cut every 37 bytes: a profile or a positioned error, never a crash */
	size_t len;
	char *cpu = t_read_file(t_corpus(TD "cppbench.cpu"), &len);
	for (size_t cut = 40; cpu && cut < len; cut += 37) {
		int rc = pv_import_memory("cut.cpu", cpu, cut, "pprof-legacy", &p, &err);
		if (rc) {
			T_EQ_INT(rc, PV_EPARSE);
			T_TRUE(err.offset < cut);
		} else {
			T_EQ_INT(pv_profile_validate(p, &err), 0);
			pv_profile_free(p);
		}
	}
	free(cpu);
	free(b.w);
}

/* Cut text profiles anywhere: a profile that validates or a positioned error. */
T_TEST(pprof_legacy_cut_text)
{
	static const char *const files[] = {TD "cppbench.heap",	  TD "cppbench.contention",
					    TD "cppbench.thread", TD "go.godoc.thread",
					    TD "java.heap",	  TD "java.contention",
					    TD "java.cpu"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len;
		char *text = t_read_file(t_corpus(files[i]), &len);
		for (size_t cut = 1; text && cut < len; cut += 53) {
			struct pv_profile *p;
			struct pv_error err;
			int rc = pv_import_memory("cut", text, cut, "pprof-legacy", &p, &err);
			if (rc) {
				T_TRUE(rc == PV_EPARSE || rc == PV_EFORMAT);
				T_TRUE(strchr(err.msg, '\n') == NULL);
			} else {
				T_EQ_INT(pv_profile_validate(p, &err), 0);
				pv_profile_free(p);
			}
		}
		free(text);
	}
}

/* A 100,000-frame stack; a second sample keeps the signal-frame rule from firing. */
T_TEST(pprof_legacy_deep_stack)
{
	struct words b = {0};
	cpu_header(&b);
	uint32_t n = 100000;
	put(&b, 3);
	put(&b, n);
	for (uint32_t i = 0; i < n; i++)
		put(&b, i % 2 ? 0x2001 : 0x1001);
	put(&b, 1);
	put(&b, 2);
	put(&b, 0x5000);
	put(&b, 0x6001);
	put(&b, 0);
	put(&b, 1);
	put(&b, 0);
	struct pv_profile *p;
	struct pv_error err;
	if (import_words(&b, b.n * 8, &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
	} else {
		T_EQ_INT(pv_profile_validate(p, &err), 0);
		T_EQ_INT(p->samples.len, 2);
		uint32_t d = 0;
		for (pv_stack_ix s = p->samples.stack[0]; s != PV_NONE; s = p->stacks.prefix[s])
			d++;
		T_EQ_INT(d, n);
		T_EQ_INT(t_total(p, 1), 40000000);
		T_EQ_INT(p->funcs.len, 5); /* 0x1001 (the leaf), 0x2000, 0x1000, 0x5000, 0x6000 */
		pv_profile_free(p);
	}
	free(b.w);
}

/* The probe: only legacy pprof files; other text is left to the other importers. */
T_TEST(pprof_legacy_probe)
{
	static const char *const others[] = {"main;foo 1\n", "# callgrind format\nevents: Ir\n",
					     "--- contention ---\n", "heap profile\n", ""};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		if (pv_import_memory("x", others[i], strlen(others[i]), NULL, &p, &err) == 0) {
			T_TRUE(strcmp(pv_str(p, p->meta.format), "pprof-legacy") != 0);
			pv_profile_free(p);
		}
	}
	static const char *const mine[] = {
	    "# a comment\ngoroutine profile: total 2\n2 @ 0x10 0x20\n",
	    "--- mutex:\ncycles/second=1000000000\nsampling period=1\n5 1 @ 0x10\n",
	    "--- Thread 1 (name: a/1) stack: ---\n  0x10\n",
	    "heap profile:    1:    2 [   1:    2] @ heapprofile\n1: 2 [1: 2] @ 0x10\n",
	};
	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]); i++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		if (pv_import_memory("x", mine[i], strlen(mine[i]), NULL, &p, &err)) {
			t_fail(__FILE__, __LINE__, "case %zu: %s", i, err.msg);
			continue;
		}
		T_EQ_STR(pv_str(p, p->meta.format), "pprof-legacy");
		T_EQ_INT(p->samples.len, 1);
		T_EQ_INT(pv_profile_validate(p, &err), 0);
		pv_profile_free(p);
	}
}

/* The memory map forms pprof reads: /proc/self/maps, brief, (@offset), glog prefixes, $attr. */
T_TEST(pprof_legacy_memory_maps)
{
	static const char text[] = "heap profile: 1: 2 [1: 2] @ heapprofile\n"
				   "1: 2 [1: 2] @ 0x401001 0x7f0000001001 0x10001 0x20001 0x30001\n"
				   "MAPPED_LIBRARIES:\n"
				   "I0101 12:00:00.000 1 maps.cc:12] lib=/usr/lib\n"
				   "00400000-00500000 r-xp 00000000 08:01 1234   /usr/bin/server\n"
				   "00500000-00600000 rw-p 00100000 08:01 1234   /usr/bin/server\n"
				   "7f0000000000-7f0000100000: $lib/libfoo.so.1\n"
				   "0x10000-0x18000 /opt/a.so (@1000) 0123abcd\n"
				   "20000-28000 r--p 00000000 08:01 1 /opt/data\n"
				   "what is this\n";
	struct pv_profile *p;
	struct pv_error err;
	if (t_import_text("bad.prof", text, sizeof(text) - 1, "pprof-legacy", &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return;
	}
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	T_EQ_INT(p->modules.len, 3);
	T_EQ_STR(pv_str(p, p->modules.path[0]), "/usr/bin/server");
	T_EQ_INT(p->modules.kind[0], PV_MODULE_BINARY);
	T_EQ_STR(pv_str(p, p->modules.path[1]), "/usr/lib/libfoo.so.1");
	T_EQ_STR(pv_str(p, p->modules.name[2]), "a.so");
	/* leaf first in the file: 0x401000 (server), 0x7f0000001000 (libfoo), 0x10000 (a.so at
	 * offset 0x1000), 0x20000 and 0x30000 in no executable mapping */
	char buf[512];
	stack_names(p, 0, buf, sizeof(buf));
	T_EQ_STR(buf, "0x30000;0x20000;0x10000;0x7f0000001000;0x401000");
	pv_stack_ix st = p->samples.stack[0];
	T_EQ_U64(pv_frame_addr(p, p->stacks.frame[st]), 0x1000);
	st = p->stacks.prefix[st];
	T_EQ_U64(pv_frame_addr(p, p->stacks.frame[st]), 0x1000);
	st = p->stacks.prefix[st];
	T_EQ_U64(pv_frame_addr(p, p->stacks.frame[st]), 0x1000);
	T_TRUE(t_diag(p, "non-executable memory map entries skipped", NULL));
	T_TRUE(t_diag(p, "memory map lines not understood", NULL));
	T_TRUE(t_diag(p, "locations outside every mapping", NULL));
	pv_profile_free(p);
}
