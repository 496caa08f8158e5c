/*
 * svg.c - a standalone interactive flame graph, as flamegraph.pl draws one (doc/export.md):
 * one box per call path merged by function name, as wide as its cost in one metric, children
 * in name order, the roots at the bottom; or an icicle (opts.icicle) of the bottom-up view: the
 * leaf functions at the top and their callers below. The page's script shows a box's name and
 * cost on hover, zooms into it on click (its ancestors span the width, "Reset Zoom" goes
 * back), and searches by regular expression (the "Search" button, Ctrl-F), colouring matches
 * and giving the share of the cost they hold.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "export/internal.h"
#include "pv/format.h"

#define WIDTH	1200
#define XPAD	10
#define FRAME_H 16
#define TOP	60
#define BOTTOM	40

struct node {
	pv_str_ix name;
	uint32_t parent, first_child, next, depth;
	int64_t cost;
	double x; /* offset in cost units from the left */
};

struct tree {
	struct node *n;
	uint32_t len, cap;
	struct u64map map; /* parent << 32 | name -> node */
};

static uint32_t child(struct tree *t, uint32_t parent, pv_str_ix name, int *oom)
{
	uint64_t key = (uint64_t)parent << 32 | name;
	uint32_t i = u64map_get(&t->map, key);
	if (i != UINT32_MAX)
		return i;
	if (t->len == t->cap) {
		uint32_t nc = t->cap ? t->cap * 2 : 1024;
		struct node *nn = pv_realloc(t->n, (size_t)nc * sizeof(*nn));
		if (!nn) {
			*oom = 1;
			return 0;
		}
		t->n = nn;
		t->cap = nc;
	}
	i = t->len++;
	t->n[i] = (struct node){.name = name,
				.parent = parent,
				.first_child = PV_NONE,
				.next = PV_NONE,
				.depth = t->n[parent].depth + 1};
	if (u64map_put(&t->map, key, i))
		*oom = 1;
	return i;
}

static void xml_text(FILE *out, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if (c < 0x20)
				fputc(' ', out);
			else
				fputc(c, out);
		}
	}
}

struct sort_ctx {
	const struct pv_profile *p;
	const struct node *n;
};

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const struct sort_ctx *c = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return strcmp(pv_str(c->p, c->n[x].name), pv_str(c->p, c->n[y].name));
}

/*
 * The page's script. Nothing runs per box when the page loads (the labels are written by
 * write_svg, the handlers are on the group of all boxes): opening a graph of 50,000 boxes costs
 * what drawing them costs. A zoom, a reset and a search visit each box once.
 */
static const char *const script[] = {
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "'use strict';\n"
    "var W = 1200, PAD = 10, CHAR = 7;\n"
    "var frames = document.getElementById('frames'), details = "
    "document.getElementById('details');\n"
    "var matched = document.getElementById('matched'), unzoomBtn = "
    "document.getElementById('unzoom');\n"
    "/* the boxes and their places, read once at the first zoom or search */\n"
    "var boxes = null, X, WD, D, shown = [], lit = [];\n"
    "function all() {\n"
    "  if (boxes) return boxes;\n"
    "  boxes = Array.prototype.slice.call(frames.children); X = []; WD = []; D = [];\n"
    "  boxes.forEach(function (g, i) {\n"
    "    X[i] = +g.getAttribute('data-x'); WD[i] = +g.getAttribute('data-w'); D[i] = "
    "+g.getAttribute('data-d');\n"
    "  });\n"
    "  return boxes;\n"
    "}\n"
    "/* a box's label: its name cut to the width as the export cuts it (label() in svg.c) */\n"
    "function fit(g, x, w) {\n"
    "  var r = g.children[1], t = g.children[2];\n"
    "  r.setAttribute('x', x); r.setAttribute('width', Math.max(w, 0));\n"
    "  t.setAttribute('x', x + 3);\n"
    "  var name = g.getAttribute('data-n'), n = Math.floor((w - 6) / CHAR), s = '';\n"
    "  if (n >= 3) s = name.length <= n ? name : name.slice(0, n - 2) + '..';\n"
    "  if (t.textContent !== s) t.textContent = s;\n"
    "}\n"
    "/* back to the whole: only the boxes a zoom changed (the others kept their places) */\n"
    "function unzoom() {\n"
    "  frames.removeAttribute('class');\n"
    "  shown.forEach(function (i) {\n"
    "    var f = boxes[i];\n"
    "    f.setAttribute('class', 'f'); f.style.opacity = '';\n"
    "    fit(f, PAD + X[i] * (W - 2 * PAD), WD[i] * (W - 2 * PAD));\n"
    "  });\n"
    "  shown = [];\n"
    "  unzoomBtn.style.opacity = 0;\n"
    "}\n"
    "/* g spans the width, its ancestors too (faded); every other box is hidden by the class of\n"
    "   #frames, so only the boxes shown are touched */\n"
    "function zoom(g) {\n"
    "  all(); unzoom();\n"
    "  var x0 = +g.getAttribute('data-x'), w0 = +g.getAttribute('data-w'), d0 = "
    "+g.getAttribute('data-d');\n"
    "  var k = (W - 2 * PAD) / w0;\n"
    "  for (var i = 0; i < boxes.length; i++) {\n"
    "    var x = X[i], w = WD[i], d = D[i], f = boxes[i];\n"
    "    var inside = x >= x0 - 1e-9 && x + w <= x0 + w0 + 1e-9 && d >= d0;\n"
    "    var above = d < d0 && x <= x0 + 1e-9 && x + w >= x0 + w0 - 1e-9;\n"
    "    if (!inside && !above) continue;\n"
    "    shown.push(i); f.setAttribute('class', 'f in');\n"
    "    if (above) { f.style.opacity = 0.5; fit(f, PAD, W - 2 * PAD); }\n"
    "    else fit(f, PAD + (x - x0) * k, w * k);\n"
    "  }\n"
    "  frames.setAttribute('class', 'zoomed');\n"
    "  unzoomBtn.style.opacity = 1;\n"
    "}\n",
    "function search(term) {\n"
    "  if (term === undefined) term = prompt('Search (a regular expression)', '');\n"
    "  if (term === null) return;\n"
    "  var re; try { re = new RegExp(term); } catch (e) { matched.textContent = 'Bad expression'; "
    "return; }\n"
    "  all();\n"
    "  lit.forEach(function (l) { boxes[l[0]].children[1].setAttribute('fill', l[1]); });\n"
    "  lit = [];\n"
    "  var spans = [];\n"
    "  for (var i = 0; term !== '' && i < boxes.length; i++)\n"
    "    if (re.test(boxes[i].getAttribute('data-n'))) {\n"
    "      var r = boxes[i].children[1];\n"
    "      lit.push([i, r.getAttribute('fill')]); r.setAttribute('fill', 'rgb(230,0,230)');\n"
    "      spans.push([X[i], X[i] + WD[i]]);\n"
    "    }\n"
    "  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  var sum = 0, end = -1;\n"
    "  spans.forEach(function (s) { if (s[1] > end) { sum += s[1] - Math.max(s[0], end); end = "
    "s[1]; } });\n"
    "  matched.textContent = term === '' ? ' ' : 'Matched: ' + (100 * sum).toFixed(1) + '%';\n"
    "}\n"
    "/* the box (a child of #frames) an event happened in */\n"
    "function box(e) {\n"
    "  for (var n = e.target; n && n !== frames; n = n.parentNode)\n"
    "    if (n.parentNode === frames) return n;\n"
    "  return null;\n"
    "}\n"
    "frames.addEventListener('mouseover', function (e) {\n"
    "  var g = box(e); if (g) details.textContent = g.children[0].textContent; });\n"
    "frames.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "frames.addEventListener('click', function (e) { var g = box(e); if (g) zoom(g); });\n"
    "unzoomBtn.addEventListener('click', function () { if (boxes) unzoom(); });\n"
    "document.getElementById('search').addEventListener('click', function () { search(); });\n"
    "window.addEventListener('keydown', function (e) {\n"
    "  if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search(); }\n"
    "  if (e.key === 'Escape' && boxes) unzoom();\n"
    "});\n"
    "window.flamegraph = {zoom: zoom, unzoom: function () { if (boxes) unzoom(); }, search: "
    "search};\n"
    "]]></script>\n",
};

/* The width of one character of a label (Verdana 12px, about): the script's CHAR. */
#define CHAR_W 7

/*
 * A box's label w pixels wide: its name, cut to what fits with ".." (nothing below 3
 * characters), characters counted as UTF-8 code points; the script's fit() cuts it so again on
 * a zoom.
 */
static void label(FILE *out, const char *name, double w)
{
	double fits = (w - 6) / CHAR_W;
	long n = fits < 0 ? 0 : (long)fits;
	if (n < 3)
		return;
	size_t chars = 0, len = strlen(name), cut = len;
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)name[i] & 0xC0) != 0x80) {
			if (chars == (size_t)n - 2 && cut == len)
				cut = i;
			chars++;
		}
	if (chars <= (size_t)n) {
		xml_text(out, name, len);
		return;
	}
	xml_text(out, name, cut);
	fputs("..", out);
}

/* The page: the title and buttons, a box per node (node 0, the whole, is not drawn), the script. */
static void write_svg(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
		      pv_metric_ix m, const struct tree *tp, uint32_t tree_depth)
{
	const struct tree t = *tp;
	int64_t total = t.n[0].cost;
	uint32_t height = TOP + BOTTOM + tree_depth * FRAME_H;
	const char *title = o->title ? o->title : o->icicle ? "Icicle Graph" : "Flame Graph";
	enum pv_unit u = (enum pv_unit)p->metrics.unit[m];
	const char *metric = pv_str(p, p->metrics.name[m]);
	/* a cost's unit: the one the CLI prints it in; a count's, the metric's name ("samples") */
	const char *unit =
	    u == PV_UNIT_COUNT || u == PV_UNIT_OTHER ? metric : pv_format_cost_unit(u);
	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
		"g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
		"#frames.zoomed > g { display: none; }\n"
		"#frames.zoomed > g.in { display: inline; }\n"
		"#title { font-size: 17px; text-anchor: middle; }\n"
		"#subtitle { fill: #666; text-anchor: middle; }\n"
		".button { cursor: pointer; fill: #333; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"24\">",
		WIDTH, height, WIDTH, height, WIDTH / 2);
	xml_text(out, title, 500);
	char cost[64];
	pv_format_cost(cost, sizeof(cost), total, u);
	fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"44\">metric: ", WIDTH / 2);
	xml_text(out, metric, 500);
	fprintf(out, " (%s), total %s</text>\n", pv_format_cost_unit(u), cost);
	fprintf(out,
		"<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"24\" style=\"opacity:0\">"
		"Reset Zoom</text>\n"
		"<text id=\"search\" class=\"button\" x=\"%d\" y=\"24\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%u\"> </text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n",
		XPAD, WIDTH - XPAD - 60, WIDTH - XPAD - 140, height - 14, XPAD, height - 14);
	/*
	 * the boxes in one group: a <title> in a <g> right under the root <svg> made Chromium's
	 * load quadratic in the boxes (10,000: 6.2 s, in a group 0.96 s)
	 */
	fputs("<g id=\"frames\">\n", out);
	for (uint32_t i = 1; i < t.len; i++) {
		const struct node *n = &t.n[i];
		const char *name = pv_str(p, n->name);
		if (!*name)
			name = "[unknown]";
		double fx = total ? n->x / (double)total : 0,
		       fw = total ? (double)n->cost / (double)total : 0;
		uint32_t y = o->icicle ? TOP + (n->depth - 1) * FRAME_H
				       : height - BOTTOM - n->depth * FRAME_H;
		uint64_t h = hash_bytes(name, strlen(name));
		char color[32];
		snprintf(color, sizeof(color), "rgb(%u,%u,%u)", 205 + (unsigned)(h % 51),
			 (unsigned)((h >> 8) % 231), (unsigned)((h >> 16) % 56));
		pv_format_cost(cost, sizeof(cost), n->cost, u);
		double x = XPAD + fx * (WIDTH - 2 * XPAD), w = fw * (WIDTH - 2 * XPAD);
		fputs("<g class=\"f\" data-n=\"", out);
		xml_text(out, name, 4096);
		fprintf(out, "\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\"><title>", fx, fw,
			n->depth);
		xml_text(out, name, 4096);
		fputs(" (", out);
		fputs(cost, out);
		fputc(' ', out);
		xml_text(out, unit, 500);
		fprintf(out,
			", %.2f%%)</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" "
			"height=\"%d\" fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%u\">",
			100 * fw, x, y, w, FRAME_H - 1, color, x + 3, y + FRAME_H - 4);
		label(out, name, w);
		fputs("</text></g>\n", out);
	}
	fputs("</g>\n", out);
	for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++)
		fputs(script[i], out);
	fputs("</svg>\n", out);
}

int pv__export_svg(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
		   struct pv_lossy *lossy, struct pv_error *err)
{
	pv_metric_ix m = pv__export_metric(p, o);
	pv__export_lossy_common(p, m, false, false, false, "svg", lossy);
	struct tree t = {0};
	int oom = 0;
	uint64_t nostack = 0, negative = 0;
	uint32_t maxd = 0;
	uint32_t *depth = pv__stack_depths(p, &maxd);
	pv_frame_ix *fr = depth ? pv_malloc(((size_t)maxd + 1) * sizeof(*fr)) : NULL;
	t.n = pv_malloc(1024 * sizeof(*t.n));
	if (!fr || !t.n)
		oom = 1;
	else {
		t.cap = 1024;
		t.len = 1; /* node 0: the whole, depth 0 (not drawn as a function) */
		t.n[0] = (struct node){.parent = PV_NONE, .first_child = PV_NONE, .next = PV_NONE};
	}
	for (uint32_t s = 0; !oom && s < p->samples.len; s++) {
		pv_stack_ix st = p->samples.stack[s];
		int64_t w = pv_sample_weight(p, m, s);
		if (st == PV_NONE || w < 0) {
			nostack += st == PV_NONE;
			negative += st != PV_NONE;
			continue;
		}
		uint32_t k = pv__stack_frames(p, st, fr, maxd + 1);
		uint32_t at = 0;
		t.n[0].cost += w;
		for (uint32_t j = 0; j < k && !oom; j++) {
			pv_frame_ix f = fr[o->icicle ? k - 1 - j : j];
			at = child(&t, at, p->funcs.name[p->frames.func[f]], &oom);
			if (!oom)
				t.n[at].cost += w;
		}
	}
	u64map_release(&t.map);
	/* children in name order, then the x of each node: the parent's plus its elder siblings' */
	uint32_t *kids = oom ? NULL : pv_malloc((size_t)t.len * sizeof(*kids));
	uint32_t *nk = oom ? NULL : pv_calloc(t.len, sizeof(*nk));
	uint32_t *first = oom ? NULL : pv_malloc((size_t)t.len * sizeof(*first));
	if (!kids || !nk || !first)
		oom = 1;
	uint32_t tree_depth = 0;
	if (!oom) {
		for (uint32_t i = 1; i < t.len; i++)
			nk[t.n[i].parent]++;
		uint32_t acc = 0;
		for (uint32_t i = 0; i < t.len; i++) {
			first[i] = acc;
			acc += nk[i];
			nk[i] = 0;
		}
		for (uint32_t i = 1; i < t.len; i++) {
			uint32_t pa = t.n[i].parent;
			kids[first[pa] + nk[pa]++] = i;
			if (t.n[i].depth > tree_depth)
				tree_depth = t.n[i].depth;
		}
		struct sort_ctx c = {p, t.n};
		for (uint32_t i = 0; i < t.len; i++) {
			if (nk[i] > 1)
				qsort_r(kids + first[i], nk[i], sizeof(*kids), cmp_name, &c);
			double x = t.n[i].x;
			for (uint32_t k = 0; k < nk[i]; k++) {
				t.n[kids[first[i] + k]].x = x;
				x += (double)t.n[kids[first[i] + k]].cost;
			}
		}
	}
	if (!oom)
		write_svg(out, p, o, m, &t, tree_depth);
	pv_free(t.n);
	pv_free(kids);
	pv_free(nk);
	pv_free(first);
	pv_free(fr);
	pv_free(depth);
	if (oom)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	pv_lossy_add(lossy, nostack, "samples without a stack (no box to draw)");
	pv_lossy_add(lossy, negative, "samples of negative weight (no box to draw)");
	return pv__export_check(out, err);
}
