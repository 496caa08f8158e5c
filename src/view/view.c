/*
 * view.c - the view a query computes, as a value: its rows' names, places and functions, its
 * base, and its release. The bottom layer of src/view: the engine and the builders fill a view,
 * every reader (rows, flame, stats, the front ends) reads it through these; nothing here calls
 * back into the engine.
 */
#include "view/engine.h"

void pv_free_keep(uint8_t *keep)
{
	pv_free(keep);
}

void pv_view_free(struct pv_view *v)
{
	if (!v)
		return;
	eng_tree_free(v->tree, v->nr_metrics);
	eng_tree_free(v->callers, v->nr_metrics);
	if (v->flat) {
		pv_free(v->flat->kind);
		pv_free(v->flat->id);
		pv_free(v->flat->line);
		pv_free(v->flat->level);
		pv_free(v->flat->in_center);
		pv_free(v->flat->inlined);
		for (uint32_t m = 0; m < v->nr_metrics; m++) {
			pv_free(v->flat->total[m]);
			pv_free(v->flat->self[m]);
		}
		pv_free(v->flat->total);
		pv_free(v->flat->self);
		pv_free(v->flat);
	}
	pv_free(v->threads);
	pv_free(v->center_label);
	pv_free(v->note);
	pv_free(v->priv->pseudo_module);
	pv__derived_free(v->priv->derived);
	pv_query_release(&v->q);
	pv_free(v);
}

const char *pv_view_row_name(const struct pv_view *v, enum pv_row_kind kind, uint32_t id, char *buf,
			     size_t len, uint32_t line)
{
	const struct pv_profile *p = v->p;
	switch (kind) {
	case PV_ROW_CENTER: return v->center_label ? v->center_label : "";
	case PV_ROW_NOSTACK: return "(no stack)";
	case PV_ROW_FILE: return id == PV_NONE ? PV_UNKNOWN_FILE : pv_str(p, p->sources.path[id]);
	case PV_ROW_MODULE:
		return id == PV_NONE ? PV_UNKNOWN_MODULE : pv_str(p, p->modules.name[id]);
	case PV_ROW_LINE:
		if (line)
			snprintf(buf, len, "%s:%u", fn_name(v, id), line);
		else
			snprintf(buf, len, "%s:?", fn_name(v, id)); /* frames without a line */
		return buf;
	case PV_ROW_LOOP: {
		pv_source_ix s = vf_source(v, id);
		const char *path = s == PV_NONE ? PV_UNKNOWN_FILE : pv_str(p, p->sources.path[s]);
		const char *base = strrchr(path, '/');
		snprintf(buf, len, "loop at %s:%u", base ? base + 1 : path, vf_line(v, id));
		return buf;
	}
	default: return fn_name(v, id);
	}
}

const char *pv_view_row_label(const struct pv_view *v, enum pv_row_kind kind, uint32_t id,
			      char *buf, size_t len, uint32_t line)
{
	const struct pv_profile *p = v->p;
	pv_source_ix s = kind == PV_ROW_LINE   ? (line ? fn_source(v, id) : PV_NONE)
			 : kind == PV_ROW_LOOP ? vf_source(v, id)
					       : PV_NONE;
	if (s == PV_NONE) /* no file to name: the row's name ("f:12", a function) */
		return pv_view_row_name(v, kind, id, buf, len, line);
	const char *path = pv_str(p, p->sources.path[s]);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (kind == PV_ROW_LINE)
		snprintf(buf, len, "%s: %u", base, line);
	else
		snprintf(buf, len, "loop at %s: %u", base, vf_line(v, id));
	return buf;
}

pv_func_ix pv_view_row_function(const struct pv_view *v, enum pv_row_kind kind, uint32_t id)
{
	if (kind == PV_ROW_LINE)
		return id;
	if (kind == PV_ROW_LOOP)
		return vf_func(v, id);
	return PV_NONE;
}

const char *pv_view_row_function_name(const struct pv_view *v, pv_func_ix f)
{
	return fn_name(v, f);
}

const char *pv_row_kind_name(enum pv_row_kind kind, bool inlined)
{
	static const char *const names[] = {"function", "line",	   "file", "module",
					    "center",	"nostack", "loop"};
	if (kind == PV_ROW_FUNCTION && inlined)
		return "inline";
	return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "function";
}

void pv_view_row_place(const struct pv_view *v, enum pv_row_kind kind, uint32_t id,
		       pv_module_ix *module, pv_source_ix *source, uint32_t *line)
{
	*module = PV_NONE;
	*source = PV_NONE;
	*line = 0;
	if (kind == PV_ROW_FUNCTION || kind == PV_ROW_LINE) {
		*module = fn_module(v, id);
		*source = fn_source(v, id);
		if (id < v->p->funcs.len)
			*line = pv_func_line(v->p, id);
	} else if (kind == PV_ROW_LOOP) {
		*module = fn_module(v, vf_func(v, id));
		*source = vf_source(v, id);
		*line = vf_line(v, id);
	} else if (kind == PV_ROW_FILE) {
		*source = id;
	} else if (kind == PV_ROW_MODULE) {
		*module = id;
	}
}

uint32_t pv_view_row_column(const struct pv_view *v, enum pv_row_kind kind, uint32_t id)
{
	return kind == PV_ROW_FUNCTION && id < v->p->funcs.len ? pv_func_column(v->p, id) : 0;
}

void eng_tree_free(struct pv_tree *t, uint32_t nm)
{
	if (!t)
		return;
	pv_free(t->kind);
	pv_free(t->id);
	pv_free(t->line);
	pv_free(t->parent);
	pv_free(t->depth);
	pv_free(t->inlined);
	for (uint32_t m = 0; m < nm; m++) {
		if (t->total)
			pv_free(t->total[m]);
		if (t->self)
			pv_free(t->self[m]);
	}
	pv_free(t->total);
	pv_free(t->self);
	pv_free(t->child_first);
	pv_free(t->child_len);
	pv_free(t->children);
	pv_free(t->roots);
	pv_free(t->estimated);
	pv_free(t);
}

void pv__tree_free(struct pv_tree *t, uint32_t nm)
{
	eng_tree_free(t, nm);
}
