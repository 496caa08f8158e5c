/*
 * dhat.c - DHAT's JSON output (Valgrind's heap profiler, and the dhat crate for Rust), the file
 * dh_view.html reads: {dhatFileVersion: 2, mode, verb, bklt, bkacc, tu, Mtu, tuth, cmd, pid,
 * tg, te, pps: [program point], ftbl: [frame string]}. A program point (an allocation site) is
 * {tb, tbk, tl, mb, mbk, gb, gbk, eb, ebk, rb, wb, acc, fs}: its totals of bytes and blocks,
 * the blocks' total lifetime, its maximum, its share at the global maximum (t-gmax) and at the
 * end, the bytes read and written, and its frames fs (indices into ftbl, leaf first).
 *
 * What becomes what: one thread (the command, its pid); one sample per program point, on the
 * stack command > frames root first (the command is the root, as the Firefox Profiler does),
 * weighing each figure the file has as a metric of its own ("total bytes" the default; the
 * lifetime in the file's time unit: instructions, or microseconds made ns). A frame string
 * "0xADDR: NAME (FILE:LINE:COL)" is a function NAME of source FILE at line LINE, column COL,
 * address ADDR; "0xADDR: NAME (in OBJECT)" a function of module OBJECT; any other string a
 * function of that name. Kept out, each a lossy line: the exact per-offset access counts (acc).
 *
 * The tokenizer reads the file once; ftbl comes after pps in what DHAT writes, so the program
 * points are held (their frame indices and figures) and turned into stacks at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/json.h"

enum { F_TB, F_TBK, F_TL, F_MB, F_MBK, F_GB, F_GBK, F_EB, F_EBK, F_RB, F_WB, NR_FIG };

static const struct {
	const char *key, *name, *desc;
	enum pv_unit unit;
} figs[NR_FIG] = {
    [F_TB] = {"tb", "total bytes", "bytes allocated at the site over the run", PV_UNIT_BYTES},
    [F_TBK] = {"tbk", "total blocks", "blocks allocated at the site over the run", PV_UNIT_COUNT},
    [F_TL] = {"tl", "lifetime", "total lifetime of the site's blocks", PV_UNIT_OTHER},
    [F_MB] = {"mb", "max bytes", "the site's most bytes live at once", PV_UNIT_BYTES},
    [F_MBK] = {"mbk", "max blocks", "the site's most blocks live at once", PV_UNIT_COUNT},
    [F_GB] = {"gb", "bytes at global max", "the site's bytes live at the global maximum (t-gmax)",
	      PV_UNIT_BYTES},
    [F_GBK] = {"gbk", "blocks at global max",
	       "the site's blocks live at the global maximum (t-gmax)", PV_UNIT_COUNT},
    [F_EB] = {"eb", "bytes at end", "the site's bytes still live at the end (t-end)",
	      PV_UNIT_BYTES},
    [F_EBK] = {"ebk", "blocks at end", "the site's blocks still live at the end (t-end)",
	       PV_UNIT_COUNT},
    [F_RB] = {"rb", "reads", "bytes read from the site's blocks", PV_UNIT_BYTES},
    [F_WB] = {"wb", "writes", "bytes written to the site's blocks", PV_UNIT_BYTES},
};

struct pp {
	int64_t fig[NR_FIG];
	uint32_t fs_first, fs_count;
	size_t fs_at; /* byte offset of its fs array, for errors */
};

struct dh {
	struct pv_builder *b;
	struct pv_input *in;
	struct pv_error *err;
	struct json j;
	struct vec pps;	 /* struct pp */
	struct vec fs;	 /* uint32 */
	struct vec ftbl; /* pv_func_ix and frame: struct dframe */
	struct sbuf cmd, tu, tmp;
	unsigned present; /* figures some program point has */
	bool have_version, have_pps, have_ftbl;
	int64_t pid;
	uint64_t acc;
};

struct dframe {
	pv_frame_ix frame;
};

static int oom(struct dh *d)
{
	return json_fail(&d->j, NULL, "out of memory");
}

/* ---- frame strings ---- */

static bool digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static uint32_t num(const char *s, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n && v <= UINT32_MAX; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	return v > UINT32_MAX ? 0 : (uint32_t)v;
}

/*
 * "0xADDR: NAME (LOC)" read as the Firefox Profiler's pattern does: NAME runs to the last " ("
 * that leaves a location before the closing ')', LOC may start with "in ", and ends in at most
 * two ":DIGITS" (line, column) after a file of at least one byte.
 */
static pv_frame_ix frame_of(struct dh *d, const char *s, size_t n)
{
	struct pv_builder *b = d->b;
	size_t i = 0;
	uint64_t addr = 0;
	if (n > 3 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		i = 2;
		while (i < n && ((s[i] >= '0' && s[i] <= '9') ||
				 ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'f'))) {
			int c = s[i] | 32;
			addr = addr * 16 + (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
			i++;
		}
	}
	size_t open = 0;
	bool ok = i > 2 && i + 1 < n && s[i] == ':' && s[i + 1] == ' ' && s[n - 1] == ')' &&
		  !memchr(s, '\n', n);
	if (ok) {
		size_t name0 = i + 2;
		ok = false;
		/* the last " (" with a name before it and a location after it */
		for (size_t k = n - 2; k > name0; k--)
			if (s[k] == '(' && s[k - 1] == ' ' && k + 1 < n - 1) {
				open = k;
				ok = true;
				break;
			}
		if (ok) {
			const char *name = s + name0;
			size_t name_len = open - 1 - name0;
			const char *loc = s + open + 1;
			size_t loc_len = n - 1 - (open + 1);
			bool in = false;
			if (loc_len > 3 && (loc[0] | 32) == 'i' && (loc[1] | 32) == 'n' &&
			    loc[2] == ' ') {
				loc += 3;
				loc_len -= 3;
				in = true;
			}
			uint32_t nums[2] = {0, 0};
			int nn = 0;
			while (nn < 2) {
				const char *c = memrchr(loc, ':', loc_len);
				if (!c || c == loc ||
				    !digits(c + 1, (size_t)(loc + loc_len - c - 1)))
					break;
				nums[nn++] = num(c + 1, (size_t)(loc + loc_len - c - 1));
				loc_len = (size_t)(c - loc);
			}
			uint32_t line = nn == 2 ? nums[1] : nn == 1 ? nums[0] : 0;
			uint32_t col = nn == 2 ? nums[0] : 0;
			pv_str_ix fname = builder_str(b, name, name_len);
			pv_str_ix file = builder_str(b, loc, loc_len);
			pv_module_ix mod = PV_NONE;
			pv_source_ix src = PV_NONE;
			if (in && nn == 0) {
				const char *base = memrchr(loc, '/', loc_len);
				base = base ? base + 1 : loc;
				mod = builder_module(
				    b, builder_str(b, base, (size_t)(loc + loc_len - base)), file,
				    PV_MODULE_UNKNOWN);
			} else {
				src = builder_source(b, file);
			}
			pv_func_ix f = builder_func(b, fname, mod, src, 0);
			struct frame_key k = {.func = f,
					      .line = line,
					      .column = col,
					      .addr = addr,
					      .category = PV_NONE};
			return builder_frame(b, &k);
		}
	}
	return builder_func_frame(b, builder_func(b, builder_str(b, s, n), PV_NONE, PV_NONE, 0));
}

/* ---- reading ---- */

static int read_fs(struct dh *d, struct pp *p)
{
	struct json *j = &d->j;
	p->fs_first = d->fs.len;
	for (;;) {
		if (vec_resize(&d->fs, sizeof(uint32_t), d->fs.len + 4096))
			return oom(d);
		d->fs.len -= 4096;
		enum json_run stop;
		size_t got =
		    json_run_u32(j, VEC(d->fs, uint32_t) + d->fs.len, 4096, false, 0, &stop);
		d->fs.len += (uint32_t)got;
		if (stop == JSON_RUN_END)
			break;
		if (stop == JSON_RUN_FULL)
			continue;
		struct json_tok t;
		int rc = json_next(j, &t);
		if (rc)
			return rc;
		if (t.kind == JSON_END)
			break;
		int64_t v;
		if (t.kind != JSON_NUMBER)
			return json_fail_at(j, &t, "expected a frame index (a number), found %s",
					    json_kind_name(t.kind));
		if ((rc = json_i64(j, &t, &v)))
			return rc;
		if (v < 0 || v >= UINT32_MAX)
			return json_fail_at(j, &t, "expected a frame index, found %lld",
					    (long long)v);
		VEC(d->fs, uint32_t)[d->fs.len++] = (uint32_t)v;
	}
	p->fs_count = d->fs.len - p->fs_first;
	return 0;
}

static int read_pp(struct dh *d)
{
	struct json *j = &d->j;
	struct pp *p = vec_push(&d->pps, sizeof(*p));
	if (!p)
		return oom(d);
	memset(p, 0, sizeof(*p));
	p->fs_first = d->fs.len;
	bool have_fs = false;
	size_t at = (size_t)(j->p - d->in->data);
	struct json_tok k, v;
	int rc;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		int f = -1;
		for (int i = 0; i < NR_FIG; i++)
			if (json_is(&k, figs[i].key))
				f = i;
		if (f >= 0) {
			if (v.kind != JSON_NUMBER)
				return json_fail_at(j, &v, "expected '%s' (a number), found %s",
						    figs[f].key, json_kind_name(v.kind));
			if ((rc = json_i64(j, &v, &p->fig[f])))
				return rc;
			d->present |= 1u << f;
		} else if (json_is(&k, "fs")) {
			if ((rc = json_want(j, &v, JSON_ARRAY, "'fs' (an array of frame indices)")))
				return rc;
			/* pps may repeat a program point's keys: the last fs is its frames */
			struct pp *q = VEC(d->pps, struct pp) + d->pps.len - 1;
			q->fs_at = (size_t)(v.s - d->in->data);
			if ((rc = read_fs(d, q)))
				return rc;
			p = VEC(d->pps, struct pp) + d->pps.len - 1;
			have_fs = true;
		} else {
			if (json_is(&k, "acc"))
				d->acc++;
			if ((rc = json_skip(j, &v)))
				return rc;
		}
	}
	if (rc)
		return rc;
	if (!have_fs)
		return json_fail(j, d->in->data + at, "a program point without 'fs' (its frames)");
	return 0;
}

static int read_top(struct dh *d)
{
	struct json *j = &d->j;
	struct json_tok t, k, v;
	int rc = json_expect(j, &t, JSON_OBJECT, "a DHAT object ('{')");
	if (rc)
		return rc;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		if (json_is(&k, "dhatFileVersion")) {
			int64_t ver;
			if (v.kind != JSON_NUMBER)
				return json_fail_at(
				    j, &v, "expected 'dhatFileVersion' (a number), found %s",
				    json_kind_name(v.kind));
			if ((rc = json_i64(j, &v, &ver)))
				return rc;
			if (ver != 2)
				return json_fail_at(j, &v,
						    "expected dhatFileVersion 2 (the version DHAT "
						    "writes since Valgrind 3.15), found %lld",
						    (long long)ver);
			d->have_version = true;
		} else if (json_is(&k, "cmd") || json_is(&k, "tu")) {
			if ((rc = json_want(j, &v, JSON_STRING, "a string")))
				return rc;
			if (json_text(j, &v, json_is(&k, "cmd") ? &d->cmd : &d->tu))
				return oom(d);
		} else if (json_is(&k, "pid")) {
			if (v.kind != JSON_NUMBER)
				return json_fail_at(j, &v, "expected 'pid' (a number), found %s",
						    json_kind_name(v.kind));
			if ((rc = json_i64(j, &v, &d->pid)))
				return rc;
		} else if (json_is(&k, "pps")) {
			if ((rc = json_want(j, &v, JSON_ARRAY,
					    "'pps' (an array of program points)")))
				return rc;
			struct json_tok e;
			while (!(rc = json_next(j, &e)) && e.kind != JSON_END) {
				if ((rc = json_want(j, &e, JSON_OBJECT, "a program point ('{')")) ||
				    (rc = read_pp(d)))
					return rc;
			}
			if (rc)
				return rc;
			d->have_pps = true;
		} else if (json_is(&k, "ftbl")) {
			if ((rc = json_want(j, &v, JSON_ARRAY,
					    "'ftbl' (an array of frame strings)")))
				return rc;
			struct json_tok e;
			while (!(rc = json_next(j, &e)) && e.kind != JSON_END) {
				if ((rc = json_want(j, &e, JSON_STRING, "a frame (a string)")))
					return rc;
				const char *s;
				size_t n;
				if ((rc = json_str(j, &e, &s, &n)))
					return rc;
				struct dframe *f = vec_push(&d->ftbl, sizeof(*f));
				if (!f)
					return oom(d);
				f->frame = frame_of(d, s, n);
			}
			if (rc)
				return rc;
			d->have_ftbl = true;
		} else if ((rc = json_skip(j, &v))) {
			return rc;
		}
	}
	if (rc)
		return rc;
	const char *miss = !d->have_version ? "'dhatFileVersion'"
			   : !d->have_pps   ? "'pps' (the program points)"
			   : !d->have_ftbl  ? "'ftbl' (the frame table)"
					    : NULL;
	if (miss)
		return json_fail(j, NULL, "the DHAT object ends without %s", miss);
	return 0;
}

static int build(struct dh *d)
{
	struct pv_builder *b = d->b;
	const char *cmd = d->cmd.len ? d->cmd.buf : "(dhat)";
	/* the lifetime's unit: instructions (Valgrind) or microseconds (the dhat crate) */
	int64_t tl_scale = 1;
	enum pv_unit tl_unit = PV_UNIT_OTHER;
	if (strcmp(d->tu.len ? d->tu.buf : "", "instrs") == 0)
		tl_unit = PV_UNIT_INSTRUCTIONS;
	else if (strcmp(d->tu.len ? d->tu.buf : "", "µs") == 0 ||
		 strcmp(d->tu.len ? d->tu.buf : "", "us") == 0)
		tl_unit = PV_UNIT_NS, tl_scale = 1000;
	int fig_metric[NR_FIG];
	uint32_t nm = 0;
	for (int f = 0; f < NR_FIG; f++) {
		fig_metric[f] = -1;
		if (!(d->present & (1u << f)) && f != F_TB)
			continue;
		pv_metric_ix m = builder_metric(b, builder_cstr(b, figs[f].name),
						f == F_TL ? tl_unit : figs[f].unit);
		if (f == F_TL && tl_unit == PV_UNIT_OTHER)
			builder_metric_description(b, m,
						   builder_strf(b, "%s (in %s)", figs[f].desc,
								d->tu.len ? d->tu.buf : "?"));
		else
			builder_metric_description(b, m, builder_cstr(b, figs[f].desc));
		fig_metric[f] = (int)nm++;
	}
	b->p->meta.default_metric = 0;
	b->p->meta.product = builder_strf(b, "%s (dhat)", cmd);
	b->p->meta.format_version = builder_cstr(b, "2");
	pv_str_ix cmd_s = builder_cstr(b, cmd);
	pv_thread_ix th = builder_thread(b, cmd_s, d->pid, PV_ID_NONE, cmd_s);
	pv_frame_ix root = builder_func_frame(b, builder_func(b, cmd_s, PV_NONE, PV_NONE, 0));
	pv_stack_ix root_st = builder_stack(b, PV_NONE, root);
	const struct dframe *ft = VEC(d->ftbl, struct dframe);
	const uint32_t *fs = VEC(d->fs, uint32_t);
	int64_t w[NR_FIG];
	for (uint32_t i = 0; i < d->pps.len; i++) {
		const struct pp *p = VEC(d->pps, struct pp) + i;
		pv_stack_ix st = root_st;
		for (uint32_t k = p->fs_count; k-- > 0;) {
			uint32_t x = fs[p->fs_first + k];
			if (x >= d->ftbl.len)
				return input_fail(
				    d->in, d->err, PV_EPARSE, d->in->data + p->fs_at,
				    "program point %u: frame index %u is past the frame "
				    "table ('ftbl' has %u frames)",
				    i, x, d->ftbl.len);
			st = builder_stack(b, st, ft[x].frame);
		}
		for (int f = 0; f < NR_FIG; f++)
			if (fig_metric[f] >= 0) {
				int64_t v = p->fig[f];
				if (f == F_TL && __builtin_mul_overflow(v, tl_scale, &v))
					return input_fail(
					    d->in, d->err, PV_ELIMIT, d->in->data + p->fs_at,
					    "program point %u: lifetime out of range", i);
				w[fig_metric[f]] = v;
			}
		builder_sample(b, th, st, PV_TIME_NONE, w);
	}
	builder_lossy(b, d->acc,
		      "program points' exact per-offset access counts ('acc', DHAT's access "
		      "histogram): not kept");
	return 0;
}

/* ---- probe and import ---- */

static int probe(const struct pv_input *in)
{
	if (probe_first_char(in) != '{')
		return 0;
	return probe_has(in, 4096, "\"dhatFileVersion\"") ? 90 : 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct dh *d = pv_calloc(1, sizeof(*d));
	if (!d)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	d->b = b;
	d->in = in;
	d->err = err;
	d->pid = PV_ID_NONE;
	json_init(&d->j, in, err);
	int rc = read_top(d);
	if (!rc)
		rc = build(d);
	json_release(&d->j);
	vec_free(&d->pps);
	vec_free(&d->fs);
	vec_free(&d->ftbl);
	sbuf_release(&d->cmd);
	sbuf_release(&d->tu);
	sbuf_release(&d->tmp);
	pv_free(d);
	return rc;
}

const struct importer importer_dhat = {
    .name = "dhat",
    .description = "DHAT heap profile JSON (Valgrind's dh_view format, dhat-rs)",
    .probe = probe,
    .import = import,
};
