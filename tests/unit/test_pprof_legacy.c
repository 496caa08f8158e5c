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

#include "pv/import.h"
#include "pv/profile.h"
#include "t.h"

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
			/* "     1: 0x42ef04 M=1" or "     4: 0x0 com.example.f source.java:6:0 s=0" */
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
			sscanf(line, "%llu: %llx/%llx/%llx %255s", &m->id, &m->start, &m->limit, &m->offset,
			       m->file);
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

static int has_diag(const struct pv_profile *p, const char *s)
{
	for (uint32_t i = 0; i < p->diags.len; i++)
		if (strstr(pv_str(p, p->diags.msg[i]), s))
			return 1;
	return 0;
}

static struct pv_profile *open_corpus(const char *rel)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_file(t_corpus(rel), NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s: %s", rel, err.msg);
		return NULL;
	}
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	T_EQ_STR(pv_str(p, p->meta.format), "pprof-legacy");
	return p;
}

static int64_t total(const struct pv_profile *p, pv_metric_ix m)
{
	int64_t t = 0;
	for (uint32_t s = 0; s < p->samples.len; s++)
		t += pv_sample_weight(p, m, s);
	return t;
}

/* The model against the dump: metrics, samples (values, stacks, labels), modules. */
static void check_against_dump(const char *rel)
{
	char dpath[512];
	snprintf(dpath, sizeof(dpath), "%s.string", t_corpus(rel));
	struct dump *d = read_dump(dpath);
	struct pv_profile *p = open_corpus(rel);
	if (!d || !p)
		goto out;
	/* period and period type, in the import report */
	char want[256];
	snprintf(want, sizeof(want), "period %lld (period_type %s/%s)", d->period, d->ptype, d->punit);
	if (!has_diag(p, want))
		t_fail(__FILE__, __LINE__, "%s: no diag '%s'", rel, want);
	/* sample types: names, units (microseconds read as ns), the last one the default */
	T_EQ_INT(p->metrics.len, d->nvals);
	int64_t scale[4] = {1, 1, 1, 1};
	for (int v = 0; v < d->nvals && v < (int)p->metrics.len; v++) {
		T_EQ_STR(pv_str(p, p->metrics.name[v]), d->type[v]);
		const char *u = d->unit[v];
		int want_unit = !strcmp(u, "count") ? PV_UNIT_COUNT : !strcmp(u, "bytes") ? PV_UNIT_BYTES : PV_UNIT_NS;
		if (!strcmp(u, "microseconds"))
			scale[v] = 1000;
		T_EQ_INT(p->metrics.unit[v], want_unit);
	}
	T_EQ_INT(p->meta.default_metric, d->nvals - 1);
	/* samples, in the file's order */
	T_EQ_INT(p->samples.len, d->nsamples);
	for (int s = 0; s < d->nsamples && s < (int)p->samples.len; s++) {
		for (int v = 0; v < d->nvals; v++)
			if (pv_sample_weight(p, (pv_metric_ix)v, (uint32_t)s) != d->vals[s][v] * scale[v])
				t_fail(__FILE__, __LINE__, "%s: sample %d value %d: %lld != %lld", rel, s, v,
				       (long long)pv_sample_weight(p, (pv_metric_ix)v, (uint32_t)s),
				       d->vals[s][v] * scale[v]);
		/* the stack, leaf first as in the dump */
		int k = 0;
		for (pv_stack_ix st = p->samples.stack[s]; st != PV_NONE; st = p->stacks.prefix[st], k++) {
			if (k >= d->nlocs_of[s])
				break;
			const struct dloc *l = dump_loc(d, d->locs_of[s][k]);
			pv_frame_ix f = p->stacks.frame[st];
			pv_func_ix fn = p->frames.func[f];
			const char *name = pv_str(p, p->funcs.name[fn]);
			if (!l) {
				t_fail(__FILE__, __LINE__, "%s: location %llu not in the dump", rel, d->locs_of[s][k]);
				break;
			}
			if (l->sym) {
				/* Java: function, file and line from the symbol section */
				pv_source_ix src = p->funcs.source[fn];
				if (strcmp(name, l->name) || p->frames.line[f] != (uint32_t)l->line ||
				    strcmp(src == PV_NONE ? "" : pv_str(p, p->sources.path[src]), l->file))
					t_fail(__FILE__, __LINE__, "%s: sample %d frame %d: %s %s:%u, dump %s %s:%lld",
					       rel, s, k, name, src == PV_NONE ? "" : pv_str(p, p->sources.path[src]),
					       p->frames.line[f], l->name, l->file, l->line);
				continue;
			}
			char addr[32];
			snprintf(addr, sizeof(addr), "%#llx", l->addr);
			if (strcmp(name, addr))
				t_fail(__FILE__, __LINE__, "%s: sample %d frame %d: %s, dump %s", rel, s, k, name, addr);
			/* the module of the location's mapping, and the address relative to it */
			const struct dmap *m = dump_map(d, l->map);
			pv_module_ix mod = p->funcs.module[fn];
			if (!m || !m->file[0]) {
				T_EQ_INT(mod, PV_NONE);
				T_EQ_U64(p->frames.addr[f], l->addr);
			} else {
				const char *base = strrchr(m->file, '/');
				base = base ? base + 1 : m->file;
				if (mod == PV_NONE || strcmp(pv_str(p, p->modules.name[mod]), base) ||
				    strcmp(pv_str(p, p->modules.path[mod]), m->file))
					t_fail(__FILE__, __LINE__, "%s: sample %d frame %d: module %s, dump %s", rel,
					       s, k, mod == PV_NONE ? "-" : pv_str(p, p->modules.path[mod]), m->file);
				T_EQ_U64(p->frames.addr[f], l->addr - m->start + m->offset);
			}
		}
		if (k != d->nlocs_of[s])
			t_fail(__FILE__, __LINE__, "%s: sample %d: %d frames, dump %d", rel, s, k, d->nlocs_of[s]);
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
	check_against_dump(TD "cppbench.cpu");      /* 64-bit gperftools CPU, signal frame removed */
	check_against_dump(TD "go.crc32.cpu");      /* old Go CPU profile, no memory map */
	check_against_dump(TD "cppbench.heap");     /* heapz_v2, unsampled, $source substitution */
	check_against_dump(TD "cppbench.contention"); /* cycles to ns, sampling period */
	check_against_dump(TD "go.godoc.thread");   /* threadcreate count profile */
	check_against_dump(TD "java.cpu");          /* 32-bit Java CPU with a symbol section */
}

/* Totals of the dumps, summed by hand (awk over the dumps' value columns). */
T_TEST(pprof_legacy_dump_totals)
{
	struct pv_profile *p = open_corpus(TD "cppbench.cpu");
	if (p) {
		T_EQ_INT(p->samples.len, 52);
		T_EQ_INT(total(p, 0), 712);
		T_EQ_INT(total(p, 1), 7120000000);
		T_EQ_INT(p->meta.interval_ns, 10000000);
		T_EQ_INT(p->modules.len, 12);
		T_EQ_STR(pv_str(p, p->meta.format_version), "cpu-64");
		/* the fifth sample: 542 x 10 ms at 0x42ed43, under main's 11 frames */
		T_EQ_INT(pv_sample_weight(p, 0, 4), 542);
		T_EQ_INT(pv_sample_weight(p, 1, 4), 5420000000);
		pv_frame_ix f = p->stacks.frame[p->samples.stack[4]];
		T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[f]]), "0x42ed43");
		T_EQ_STR(pv_str(p, p->modules.name[p->funcs.module[p->frames.func[f]]]), "cppbench_server_main");
		T_TRUE(has_diag(p, "signal handler frames removed"));
		pv_profile_free(p);
	}
	p = open_corpus(TD "go.crc32.cpu");
	if (p) {
		T_EQ_INT(p->samples.len, 69);
		T_EQ_INT(total(p, 0), 211);
		T_EQ_INT(total(p, 1), 2110000000);
		T_EQ_INT(p->modules.len, 0);
		pv_profile_free(p);
	}
	p = open_corpus(TD "cppbench.heap");
	if (p) {
		T_EQ_INT(p->samples.len, 31);
		T_EQ_INT(total(p, 0), 41063);
		T_EQ_INT(total(p, 1), 80935293);
		T_EQ_STR(pv_str(p, p->modules.path[0]), "/home/cppbench_server_main");
		pv_profile_free(p);
	}
	p = open_corpus(TD "cppbench.contention");
	if (p) {
		T_EQ_INT(p->samples.len, 6);
		T_EQ_INT(total(p, 0), 3500);
		T_EQ_INT(total(p, 1), 690508213);
		T_TRUE(has_diag(p, "duration 16502830000000 ns"));
		pv_profile_free(p);
	}
	p = open_corpus(TD "go.godoc.thread");
	if (p) {
		T_EQ_INT(p->samples.len, 7);
		T_EQ_INT(total(p, 0), 7);
		T_EQ_STR(pv_str(p, p->metrics.name[0]), "threadcreate");
		pv_profile_free(p);
	}
	p = open_corpus(TD "java.cpu");
	if (p) {
		T_EQ_INT(p->samples.len, 8);
		T_EQ_INT(total(p, 0), 7);
		T_EQ_INT(total(p, 1), 70000000);
		T_EQ_INT(p->modules.len, 0);
		T_EQ_STR(pv_str(p, p->meta.format_version), "java-cpu-32");
		pv_profile_free(p);
	}
}
