/*
 * flame.c - the flame graph's nodes (pv/graphs.h): the heaviest rows of one or two trees, best
 * first, from a heap of candidates, each a (parent, position) pair. Children are sorted by
 * total, so a row's next sibling only becomes a candidate once the row is taken and the kept
 * children of a row are a prefix of its list.
 */
#include <string.h>

#include "base/alloc.h"
#include "pv/graphs.h"
#include "view/internal.h"
#include "view/naming.h"

struct node {
	uint32_t graph, row; /* row PV_NONE: the graph's virtual root over its roots */
	uint32_t first, last, next;
	uint64_t klen; /* the length of its key */
};

struct cand {
	int64_t w;
	uint64_t seq;
	uint32_t parent, pos;
};

struct flame {
	const struct pv_tree *t[2];
	int64_t min[2];	     /* a pixel of each graph's width */
	uint64_t key_budget; /* bytes of keys, at most */
	struct node *nodes;
	uint32_t len, cap;
	struct cand *heap;
	uint32_t hlen, hcap;
	uint64_t seq;
	uint32_t zoom; /* the zoomed row's node, 0: none */
	bool oom;
};

static bool cand_before(const struct cand *x, const struct cand *y)
{
	return x->w != y->w ? x->w > y->w : x->seq < y->seq;
}

static void node_list(const struct flame *fl, uint32_t n, const uint32_t **list, uint32_t *len)
{
	const struct node *nd = &fl->nodes[n];
	const struct pv_tree *t = fl->t[nd->graph];
	if (nd->row == PV_NONE) {
		*list = t->roots;
		*len = t->nr_roots;
	} else {
		*list = t->children + t->child_first[nd->row];
		*len = t->child_len[nd->row];
	}
}

static void heap_push(struct flame *fl, uint32_t parent, uint32_t pos)
{
	const uint32_t *list;
	uint32_t len;
	node_list(fl, parent, &list, &len);
	if (pos >= len || fl->oom)
		return;
	if (fl->hlen == fl->hcap) {
		uint32_t nc = fl->hcap ? fl->hcap * 2 : 64;
		struct cand *nh = pv_realloc(fl->heap, sizeof(*nh) * nc);
		if (!nh) {
			fl->oom = true;
			return;
		}
		fl->heap = nh;
		fl->hcap = nc;
	}
	uint32_t g = fl->nodes[parent].graph;
	const struct pv_tree *t = fl->t[g];
	int64_t w = t->total[0][list[pos]];
	if ((w < 0 ? -w : w) < fl->min[g])
		return; /* below a pixel: so are the siblings after it */
	struct cand c = {w, fl->seq++, parent, pos};
	uint32_t i = fl->hlen++;
	while (i > 0 && cand_before(&c, &fl->heap[(i - 1) / 2])) {
		fl->heap[i] = fl->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	fl->heap[i] = c;
}

static struct cand heap_pop(struct flame *fl)
{
	struct cand top = fl->heap[0], last = fl->heap[--fl->hlen];
	uint32_t i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= fl->hlen)
			break;
		if (c + 1 < fl->hlen && cand_before(&fl->heap[c + 1], &fl->heap[c]))
			c++;
		if (!cand_before(&fl->heap[c], &last))
			break;
		fl->heap[i] = fl->heap[c];
		i = c;
	}
	if (fl->hlen)
		fl->heap[i] = last;
	return top;
}

static uint32_t node_add(struct flame *fl, uint32_t graph, uint32_t row)
{
	if (fl->len == fl->cap) {
		uint32_t nc = fl->cap ? fl->cap * 2 : 64;
		struct node *nn = pv_realloc(fl->nodes, sizeof(*nn) * nc);
		if (!nn) {
			fl->oom = true;
			return PV_NONE;
		}
		fl->nodes = nn;
		fl->cap = nc;
	}
	fl->nodes[fl->len] = (struct node){graph, row, PV_NONE, PV_NONE, PV_NONE, 0};
	return fl->len++;
}

/* Node n's child: row r of its graph, its key's length from n's. */
static uint32_t child_add(struct flame *fl, uint32_t n, uint32_t r, uint64_t *keys)
{
	const struct node *pn0 = &fl->nodes[n];
	const struct pv_tree *t = fl->t[pn0->graph];
	char step[KEY_STEP_MAX];
	uint64_t klen =
	    pn0->klen + (pn0->row != PV_NONE) + key_step(step, t->kind[r], t->id[r], t->line[r]);
	if (*keys + klen > fl->key_budget)
		return PV_NONE;
	*keys += klen;
	uint32_t c = node_add(fl, pn0->graph, r);
	if (c == PV_NONE)
		return PV_NONE;
	fl->nodes[c].klen = klen;
	struct node *pn = &fl->nodes[n];
	if (pn->last == PV_NONE)
		pn->first = c;
	else
		fl->nodes[pn->last].next = c;
	pn->last = c;
	return c;
}

/* The chain from graph 0's virtual root down to row zoom (PV_NONE: none): its last node. */
static uint32_t chain(struct flame *fl, uint32_t zoom, uint64_t *keys)
{
	const struct pv_tree *t = fl->t[0];
	uint32_t depth = 0, n = 0;
	for (uint32_t r = zoom; r != PV_NONE; r = t->parent[r])
		depth++;
	uint32_t *path = pv_malloc(sizeof(*path) * (depth ? depth : 1));
	if (!path) {
		fl->oom = true;
		return PV_NONE;
	}
	uint32_t i = depth;
	for (uint32_t r = zoom; r != PV_NONE; r = t->parent[r])
		path[--i] = r;
	for (i = 0; i < depth && n != PV_NONE; i++)
		n = child_add(fl, n, path[i], keys);
	pv_free(path);
	return n;
}

/* Keeps at most max rows of the graphs (nodes 0 and 1 are their virtual roots) below graph 0's
 * row zoom (PV_NONE: its roots). */
static void prune(struct flame *fl, uint32_t ngraphs, uint32_t max, uint32_t zoom)
{
	uint64_t keys = 0;
	for (uint32_t k = 0; k < ngraphs; k++)
		node_add(fl, k, PV_NONE);
	uint32_t z = chain(fl, zoom, &keys);
	if (z == PV_NONE)
		return;
	fl->zoom = z;
	heap_push(fl, z, 0);
	for (uint32_t k = 1; k < ngraphs; k++)
		heap_push(fl, k, 0);
	uint32_t kept = 0;
	while (fl->hlen && kept < max && !fl->oom) {
		struct cand c = heap_pop(fl);
		const uint32_t *list;
		uint32_t len;
		node_list(fl, c.parent, &list, &len);
		uint32_t n = child_add(fl, c.parent, list[c.pos], &keys);
		if (n == PV_NONE)
			break;
		kept++;
		heap_push(fl, n, 0);
		heap_push(fl, c.parent, c.pos + 1);
	}
}

void pv_flame_free(struct pv_flame *fl)
{
	if (!fl)
		return;
	pv_free(fl->graph);
	pv_free(fl->row);
	pv_free(fl->first);
	pv_free(fl->next);
	pv_free(fl);
}

static int64_t mag(int64_t x)
{
	return x < 0 ? -x : x;
}

/* The whole of tree t's graph: its roots' total, or row zoom's (PV_NONE: none). */
static int64_t graph_whole(const struct pv_tree *t, uint32_t zoom)
{
	if (zoom != PV_NONE)
		return mag(t->total[0][zoom]);
	int64_t whole = 0;
	for (uint32_t i = 0; t && i < t->nr_roots; i++)
		whole += mag(t->total[0][t->roots[i]]);
	return whole;
}

static int flame_of_trees(const struct pv_tree *t0, const struct pv_tree *t1,
			  const struct pv_flame_opts *o, uint32_t zoom, struct pv_flame **out)
{
	struct flame fl = {0};
	uint32_t ngraphs = t1 ? 2 : 1;
	fl.t[0] = t0;
	fl.t[1] = t1;
	fl.key_budget = pv_key_text_budget(o->max_nodes);
	for (uint32_t k = 0; o->width && k < ngraphs; k++) {
		/* a pixel of the graph: of the roots' total, of the center's row, of the zoom's */
		int64_t whole = graph_whole(fl.t[k], k ? PV_NONE : zoom);
		fl.min[k] = (whole + o->width - 1) / o->width;
	}
	prune(&fl, ngraphs, o->max_nodes, zoom);
	struct pv_flame *f = fl.oom ? NULL : pv_calloc(1, sizeof(*f));
	if (f) {
		uint32_t n = fl.len ? fl.len : 1;
		f->nr_graphs = ngraphs;
		f->len = fl.len;
		f->zoom = fl.zoom;
		f->graph = pv_malloc(n);
		f->row = pv_malloc(n * sizeof(*f->row));
		f->first = pv_malloc(n * sizeof(*f->first));
		f->next = pv_malloc(n * sizeof(*f->next));
		if (!f->graph || !f->row || !f->first || !f->next) {
			pv_flame_free(f);
			f = NULL;
		}
	}
	for (uint32_t i = 0; f && i < fl.len; i++) {
		f->graph[i] = (uint8_t)fl.nodes[i].graph;
		f->row[i] = fl.nodes[i].row;
		f->first[i] = fl.nodes[i].first;
		f->next[i] = fl.nodes[i].next;
	}
	pv_free(fl.nodes);
	pv_free(fl.heap);
	if (!f)
		return PV_ENOMEM;
	*out = f;
	return 0;
}

int pv__flame_of_trees(const struct pv_tree *t0, const struct pv_tree *t1,
		       const struct pv_flame_opts *o, struct pv_flame **out)
{
	return flame_of_trees(t0, t1, o, PV_NONE, out);
}

int pv_flame_build(const struct pv_view *v, const struct pv_flame_opts *o, struct pv_flame **out)
{
	bool two = pv_view_kind(v->q.view)->outputs & PV_OUT_CALLERS;
	int rc = flame_of_trees(v->tree, two ? v->callers : NULL, o, PV_NONE, out);
	if (!rc)
		(*out)->v = v;
	return rc;
}

int pv_flame_build_zoomed(const struct pv_view *v, const struct pv_flame_opts *o, uint32_t row,
			  struct pv_flame **out)
{
	if ((pv_view_kind(v->q.view)->outputs & PV_OUT_CALLERS) || row >= v->tree->len)
		return PV_EINVAL;
	int rc = flame_of_trees(v->tree, NULL, o, row, out);
	if (!rc)
		(*out)->v = v;
	return rc;
}

/* The parent of every node (PV_NONE for a virtual root): a child comes after its parent. */
static void parents(const struct pv_flame *fl, uint32_t *par)
{
	for (uint32_t k = 0; k < fl->len; k++)
		if (fl->row[k] == PV_NONE)
			par[k] = PV_NONE;
	for (uint32_t k = 0; k < fl->len; k++)
		for (uint32_t c = fl->first[k]; c != PV_NONE; c = fl->next[c])
			par[c] = k;
}

static uint32_t column(int64_t off, double scale, uint32_t width)
{
	double x = (double)off * scale + 0.5;
	return x >= (double)width ? width : (uint32_t)x;
}

int pv_flame_layout(const struct pv_flame *fl, uint32_t width, uint32_t *x0, uint32_t *x1,
		    uint32_t *depth)
{
	if (fl->diff)
		return PV_EINVAL;
	size_t n = fl->len ? fl->len : 1;
	int64_t *off = pv_malloc(sizeof(*off) * n);
	uint32_t *par = pv_malloc(sizeof(*par) * n);
	uint8_t *spans = pv_calloc(n, 1);
	if (!off || !par || !spans) {
		pv_free(off);
		pv_free(par);
		pv_free(spans);
		return PV_ENOMEM;
	}
	const struct pv_tree *t[2] = {fl->v->tree, fl->v->callers};
	parents(fl, par);
	/* the zoomed node and its ancestors span the width: the graph's whole is the zoom's */
	uint32_t span = fl->zoom;
	double scale[2];
	for (uint32_t g = 0; g < fl->nr_graphs; g++) {
		int64_t whole = graph_whole(t[g], g || !span ? PV_NONE : fl->row[span]);
		scale[g] = whole > 0 ? (double)width / (double)whole : 0;
	}
	for (uint32_t z = span; z && z != PV_NONE; z = par[z])
		spans[z] = 1;
	for (uint32_t k = 0; k < fl->len; k++) {
		depth[k] = par[k] == PV_NONE ? 0 : depth[par[k]] + 1;
		if (spans[k] || fl->row[k] == PV_NONE) {
			off[k] = 0;
			x0[k] = 0;
			x1[k] = width;
		}
		/* the children from k's start, each as wide as its total */
		int64_t cx = off[k];
		const struct pv_tree *tg = t[fl->graph[k]];
		for (uint32_t c = fl->first[k]; c != PV_NONE; c = fl->next[c]) {
			off[c] = cx;
			x0[c] = column(cx, scale[fl->graph[k]], width);
			cx += mag(tg->total[0][fl->row[c]]);
			x1[c] = column(cx, scale[fl->graph[k]], width);
		}
	}
	pv_free(off);
	pv_free(par);
	pv_free(spans);
	return 0;
}
