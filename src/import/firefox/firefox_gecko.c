/*
 * firefox_gecko.c - the Firefox Profiler's raw "Gecko" format, what Firefox itself writes
 * (meta.version 5 to 36), and the old DevTools performance-panel export that wraps one
 * ({"profile": {meta, threads, ...}, "label": ..., "markers": ..., ...}).
 *
 * Shape (upstream src/types/gecko-profile.ts): {meta, libs, threads[], processes[], ...}. A thread
 * holds tables {"schema": {column: index}, "data": [[row...], ...]} (samples, stackTable,
 * frameTable, markers) and a stringTable they index; a frame is a location string that names its
 * function ("0x7fff1234", "name (in lib) + 12", "fn (url:line:col)", a label). processes[] are
 * nested profiles on their own clock (meta.startTime) and are shifted onto the root's.
 *
 * One streaming pass with the pull tokenizer, no DOM. A thread's tables are kept as small integer
 * rows until the thread object ends, because its stringTable comes last; then frames, stacks,
 * samples and markers go to the builder and the row buffers are reused for the next thread. Keys
 * in an unhelpful order (a table's data before its schema, threads before meta or libs) are
 * handled by remembering where the value starts, skipping it, and reading it again from there
 * with a second tokenizer once what it needs is known (the input stays mapped, so re-reading is
 * safe). The same re-read turns an index found bad only at the thread's end into an error at the
 * line and column of the bad cell.
 *
 * Where the Firefox Profiler's own import (src/profile-logic/process-profile.ts) decides what a
 * user sees, it is followed: function names and modules from location strings, lib-relative
 * addresses, old marker rows (Gecko < 20) turned into phases, markers sorted by time per thread,
 * the first sample of a marker's "stack" as its cause. Marker payloads are kept as compact JSON
 * without "stack" (it became the cause columns), with times of sub-processes shifted like the
 * marker's own, and with string-table indexes (unique-string fields) replaced by the string.
 *
 * This file holds the importer (probe, import and the rows of a thread's tables);
 * firefox_gecko_build.c reads the profile's sections and threads and turns a thread's markers,
 * payloads and samples into the model, firefox_gecko_locations.c location strings into
 * functions, and firefox_gecko_common.c has what they share: tables, tokens, meta and libs
 * (firefox_gecko.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/firefox/firefox.h"
#include "import/firefox/firefox_gecko.h"
#include "import/importer.h"
#include "import/json.h"
#include "import/script_url.h"
#include "import/symbols.h"

static const char *const sample_fields[] = {"stack",	  "time",	    "threadCPUDelta",
					    "eventDelay", "responsiveness", NULL};
static const char *const stack_fields[] = {"prefix", "frame", NULL};
static const char *const frame_fields[] = {"location", "line",	      "column",
					   "category", "subcategory", NULL};
static const char *const marker_fields[] = {"name",	"startTime", "endTime", "phase",
					    "category", "data",	     "time",	NULL};

/*
 * A sample read: its stack and time straight into the builder's columns past its samples (taken
 * at the thread's end), the rest into th->samples when the schema has it.
 */
static int put_sample(struct gk *g, const struct json *j, const struct table *t, uint32_t stack,
		      int64_t time, const struct gk_sample *s)
{
	struct gk_thread *th = &g->th;
	int rc = gk_sample_room(g, j);
	if (rc)
		return rc;
	struct pv_samples *ps = &g->b->p->samples;
	ps->stack[th->s_base + th->s_len] = stack;
	ps->time_ns[th->s_base + th->s_len] = time;
	th->s_len++;
	if (t->field_col[S_CPU] < 0 && t->field_col[S_DELAY] < 0 && t->field_col[S_RESP] < 0)
		return 0;
	return gk_push_row(g, &th->samples, s, sizeof(*s));
}

static int sample_row(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		      const struct json_tok *c)
{
	struct gk_sample s;
	uint32_t stack;
	int64_t time;
	int rc = gk_cell_index(j, &c[S_STACK], row, &stack, "a stack index or null");
	if (!rc)
		rc = gk_cell_time(j, &c[S_TIME], &time, "a time in milliseconds");
	/* the Firefox Profiler reads eventDelay when the schema has it, else responsiveness */
	if (!rc)
		rc = gk_cell_time(j, &c[t->field_col[S_DELAY] >= 0 ? S_DELAY : S_RESP], &s.delay,
				  "an event delay in milliseconds or null");
	s.cpu = PV_TIME_NONE;
	if (!rc && !gk_tok_null(&c[S_CPU]) && c[S_CPU].kind != JSON_NUMBER)
		rc = json_fail_at(j, &c[S_CPU], "expected a CPU delta (a number) or null, found %s",
				  json_kind_name(c[S_CPU].kind));
	else if (!rc && c[S_CPU].kind == JSON_NUMBER)
		rc = json_fixed(j, &c[S_CPU], 3, &s.cpu);
	return rc ? rc : put_sample(g, j, t, stack, time, &s);
}

/*
 * The columns of a sample row as json_run_row reads them, when every column is a known field
 * (no unknown or repeated column): their number, else -1.
 */
static int sample_run_cells(struct table *t)
{
	int n = 0;
	for (int f = 0; t->fields[f]; f++)
		if (t->field_col[f] >= n)
			n = t->field_col[f] + 1;
	if (n > GK_RUN_COLS)
		return -1;
	for (int c = 0; c < n; c++) {
		int f = t->col_field[c];
		if (f < 0 || t->field_col[f] != c)
			return -1;
		t->run_cell[c] = (struct json_run_cell){
		    .index = f == S_STACK,
		    .pow10 = (int8_t)(f == S_STACK ? 0
				      : f == S_CPU ? 3
						   : 6),
		};
	}
	return n ? n : -1;
}

/* A sample row of plain numbers read whole (json_run_row), as sample_row reads it. */
static int sample_run(struct gk *g, struct json *j, struct table *t, bool *took)
{
	if (!t->run_n)
		t->run_n = sample_run_cells(t);
	int64_t v[GK_RUN_COLS];
	*took = t->run_n > 0 && json_run_row(j, t->run_cell, (unsigned)t->run_n, PV_TIME_NONE, v);
	if (!*took)
		return 0;
	const int8_t *fc = t->field_col;
	int d = fc[S_DELAY] >= 0 ? fc[S_DELAY] : fc[S_RESP];
	int64_t stack = fc[S_STACK] >= 0 ? v[fc[S_STACK]] : PV_TIME_NONE;
	struct gk_sample s = {
	    .cpu = fc[S_CPU] >= 0 ? v[fc[S_CPU]] : PV_TIME_NONE,
	    .delay = d >= 0 ? v[d] : PV_TIME_NONE,
	};
	return put_sample(g, j, t, stack == PV_TIME_NONE ? PV_NONE : (uint32_t)stack,
			  fc[S_TIME] >= 0 ? v[fc[S_TIME]] : PV_TIME_NONE, &s);
}

static int stack_row(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		     const struct json_tok *c)
{
	struct gk_stack s;
	int rc = gk_cell_index(j, &c[K_PREFIX], row, &s.prefix, "a stack prefix or null");
	if (!rc)
		rc = gk_cell_index(j, &c[K_FRAME], row, &s.frame, "a frame index");
	if (rc)
		return rc;
	/* parents come first, so one pass in row order sees a prefix before its children */
	if (s.prefix != PV_NONE && s.prefix >= t->rows)
		return json_fail_at(
		    j, &c[K_PREFIX],
		    "expected a stack prefix below %u (the row's own index) or null, found %u",
		    t->rows, s.prefix);
	if (s.frame == PV_NONE)
		return json_fail_at(j, gk_cell_at(&c[K_FRAME], row),
				    "expected a frame index, found %s",
				    c[K_FRAME].kind == JSON_EOF ? "no cell" : "null");
	return gk_push_row(g, &g->th.stacks, &s, sizeof(s));
}

static int frame_row(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		     const struct json_tok *c)
{
	(void)t;
	struct gk_frame f;
	int rc = gk_cell_index(j, &c[F_LOCATION], row, &f.loc, "a location (a string index)");
	if (!rc)
		rc = gk_cell_index(j, &c[F_LINE], row, &f.line, "a line number or null");
	if (!rc)
		rc = gk_cell_index(j, &c[F_COLUMN], row, &f.column, "a column number or null");
	if (!rc)
		rc = gk_cell_index(j, &c[F_CATEGORY], row, &f.cat, "a category index or null");
	if (!rc)
		rc =
		    gk_cell_index(j, &c[F_SUBCATEGORY], row, &f.sub, "a subcategory index or null");
	if (rc)
		return rc;
	if (f.loc == PV_NONE)
		return json_fail_at(j, gk_cell_at(&c[F_LOCATION], row),
				    "expected a location (a string index), found %s",
				    c[F_LOCATION].kind == JSON_EOF ? "no cell" : "null");
	return gk_push_row(g, &g->th.frames, &f, sizeof(f));
}

/* ---- the importer ---- */

static int probe(const struct pv_input *in)
{
	if (probe_first_char(in) != '{')
		return 0;
	if (probe_has(in, PROBE_WINDOW, "\"preprocessedProfileVersion\""))
		return 0;
	if (probe_has(in, PROBE_WINDOW, "\"meta\"") &&
	    ((probe_has(in, PROBE_WINDOW, "\"schema\"") &&
	      probe_has(in, PROBE_WINDOW, "\"stringTable\"")) ||
	     probe_has(in, PROBE_WINDOW, "\"threads\"")))
		return 80;
	/* a DevTools export whose profile starts past the window: it ends with its file type */
	if (in->len > PROBE_WINDOW) {
		size_t tail = 4096;
		const char *t = in->data + in->len - tail;
		if (memmem(t, tail, "\"Recorded Performance Data\"", 27))
			return 70;
	}
	return 0;
}

static void release(struct gk *g)
{
	struct gk_thread *th = &g->th;
	vec_free(&th->samples);
	vec_free(&th->stacks);
	vec_free(&th->frames);
	vec_free(&th->markers);
	vec_free(&th->members);
	vec_free(&th->str_off);
	vec_free(&th->str_len);
	vec_free(&th->locs);
	vec_free(&th->frame_map);
	vec_free(&th->stack_map);
	vec_free(&th->emits);
	sbuf_release(&th->ptext);
	sbuf_release(&th->stext);
	vec_free(&g->exts);
	vec_free(&g->strfields);
	vec_free(&g->schemas);
	sbuf_release(&g->schema_json);
	sbuf_release(&g->out);
	symz_free(g->z);
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct gk g = {.b = b, .in = in, .err = err, .cpu_metric = PV_NONE};
	struct gk_thread *th = &g.th;
	gk_table_init(&th->t_samples, "samples", sample_fields, sample_row, NULL, NULL);
	th->t_samples.run = sample_run;
	gk_table_init(&th->t_stacks, "stackTable", stack_fields, stack_row, NULL, NULL);
	gk_table_init(&th->t_frames, "frameTable", frame_fields, frame_row, NULL, NULL);
	gk_table_init(&th->t_markers, "markers", marker_fields, gk_marker_row, gk_marker_cell,
		      NULL);
	builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
	struct json j;
	json_init(&j, in, err);
	struct json_tok t;
	int rc = json_next(&j, &t);
	if (!rc && t.kind != JSON_OBJECT)
		rc = json_fail_at(&j, &t, "expected a Gecko profile (a JSON object), found %s",
				  json_kind_name(t.kind));
	if (!rc)
		rc = gk_parse_profile(&g, &j, &t, true, true);
	if (!rc && !g.have_root)
		rc = json_fail_at(&j, &t, "expected a \"meta\" object in the Gecko profile");
	if (!rc && g.schemas.len) {
		if (sbuf_put(&g.schema_json, "]", 1))
			rc = gk_oom(&g);
		else
			b->p->meta.marker_schema =
			    builder_str(b, g.schema_json.buf, g.schema_json.len);
	}
	if (!rc && !(rc = json_next(&j, &t)) && t.kind != JSON_EOF)
		rc = json_fail_at(&j, &t, "expected the end of the input, found %s",
				  json_kind_name(t.kind));
	if (!rc && g.native_named)
		builder_lossy(b, g.native_named,
			      "native addresses named from the libraries on this machine");
	if (!rc && g.native_unnamed)
		builder_lossy(b, g.native_unnamed, "native addresses of libraries not named: %s",
			      symz_status_text((enum symz_status)g.native_why));
	json_release(&j);
	release(&g);
	return rc;
}

const struct importer importer_firefox_gecko = {
    .name = "firefox-gecko",
    .description = "Firefox Profiler raw Gecko profile (what Firefox writes), DevTools export",
    .probe = probe,
    .import = import,
};
