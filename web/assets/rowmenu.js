// What can be done with a call-tree row (context menu and keys): move the center, add a filter,
// copy the stack, open the source. Every action changes the URL's query (doc/api.md notation).
import { ctx } from './ctx.js';
import { showMenu } from './ui.js';
import { copyText } from './util.js';
import * as S from './state.js';

// The call path of a tree node as names, root first. Top-down: the ancestors; bottom-up
// (callers): the node is the outermost caller, so walking to the root goes root first.
export function stackOf(node, inverted) {
  const row = node.row;
  if (!inverted && row.path && row.path.startsWith('path:')) return row.path.slice(5).split(';');
  const names = [];
  for (let n = node; n; n = n.parent) names.push(n.row.name);
  return inverted ? names : names.reverse();
}

// A node of an inverted (callers) tree as the query's path:LEAF;CALLER;... from its root down
// (--focus-inverted), or null when a step is no function (a center, a loop) or cannot be written.
export function invertedPath(node) {
  const steps = [];
  for (let n = node; n; n = n.parent) {
    const r = n.row;
    if ((r.kind !== 'function' && r.kind !== 'inline') || !r.scope || r.scope.includes(';') ||
        /^(re|file|module|line|loop|path):/.test(r.scope)) return null;
    steps.push(r.scope);
  }
  return 'path:' + steps.reverse().join(';');
}

// The scope a row (a tree, list or flame graph node) is named by in the query: what a filter
// or the center built from the row takes. The one place the page reads it.
export function rowScope(row) {
  return row ? row.scope || null : null;
}

// A row's category name (its "category" index into the profile's categories, else its
// caller's: frames without one inherit it), or null.
export function categoryOf(node) {
  for (let n = node; n; n = n.parent) {
    const c = n.row && n.row.category;
    if (c !== undefined && c !== null) {
      const cat = ctx.profile && ctx.profile.categories ? ctx.profile.categories[c] : null;
      return cat ? cat.name : null;
    }
  }
  return null;
}

// The CLI's transforms (doc/views.md), named as the Firefox Profiler names them: the menu's
// label, the filter crumb's, the key on a selected row, and the argument a row gives (a scope
// by default; null: not for this row). Each adds a filter (the query's filter=KIND:ARG).
const TRANSFORMS = [
  { kind: 'merge', label: 'Merge function', crumb: 'Merge', key: 'm',
    title: 'Remove the function\'s frames: their cost goes to their callers' },
  { kind: 'focus-self', label: 'Focus on self only', crumb: 'Focus Self', key: '⇧F',
    title: 'Only the samples whose own frame (the leaf) is this function' },
  { kind: 'focus-category', label: (a) => (a ? `Focus on category ${a}` : 'Focus on category'), crumb: 'Focus category', key: 'g',
    arg: (node) => categoryOf(node), title: 'Only the frames of this category; the others merge into their callers' },
  { kind: 'collapse-subtree', label: 'Collapse function', crumb: 'Collapse subtree', key: 'x',
    title: 'Keep the function; the cost of its callees becomes its self cost' },
  { kind: 'collapse-module', label: (a) => (a ? `Collapse ${short(a)}` : 'Collapse its module'), crumb: 'Collapse', key: '⇧M',
    arg: (node) => node.row.module || null, title: 'Consecutive frames of the module become one frame' },
  { kind: 'collapse-recursion', label: 'Collapse recursion', crumb: 'Collapse recursion', key: 'r',
    title: 'A > B > A > C becomes A > C' },
  { kind: 'collapse-direct-recursion', label: 'Collapse direct recursion only', crumb: 'Collapse direct recursion only', key: '⇧R',
    title: 'A > A > B becomes A > B; A > B > A stays' },
  { kind: 'drop', label: 'Drop samples with this function', crumb: 'Drop', key: 'd',
    title: 'Drop every sample whose stack has the function' },
  { kind: 'prune', label: 'Prune function and its callees', crumb: 'Prune', key: '⇧P',
    title: 'Remove the function and its callees; their cost goes to its callers (hpcviewer\'s)' },
  { kind: 'include', label: 'Keep only samples with this function', crumb: 'Include', key: 'i',
    title: 'Only the samples whose stack has the function' },
];
const CRUMBS = { 'focus-inverted': 'Focus Node (inverted)' };
for (const t of TRANSFORMS) CRUMBS[t.kind] = t.crumb;

// The filter crumb's label of a filter kind ("Merge", "Focus Self", ...).
export function crumbLabel(kind) {
  return CRUMBS[kind] || kind;
}

// The menu items of the transforms for a node ({row, parent}), each adding its filter.
export function transformItems(node) {
  const a = ctx.actions;
  return TRANSFORMS.map((t) => {
    const arg = t.arg ? t.arg(node) : rowScope(node.row);
    return { label: typeof t.label === 'function' ? t.label(arg) : t.label, key: t.key, title: t.title,
      disabled: !arg, action: () => a.addFilter(t.kind, arg) };
  });
}

export function rowItems(node, opts = {}) {
  const row = node.row;
  const a = ctx.actions;
  const scope = rowScope(row);
  const noScope = !scope;
  // the Firefox Profiler's "Focus on subtree only": the call path as the center (top-down), the
  // node of the inverted tree as a filter (bottom-up)
  const inv = opts.inverted ? invertedPath(node) : null;
  const items = [
    { label: 'Set as center', key: 'c', disabled: noScope, action: () => a.setCenter(scope),
      title: 'The Firefox Profiler\'s "Focus on function": every call of it merged, as the root' },
    { label: 'Add to center', key: '⇧C', disabled: noScope, action: () => a.addCenter(scope) },
    opts.inverted
      ? { label: 'Focus on subtree only', key: 'f', disabled: !inv, action: () => a.addFilter('focus-inverted', inv),
        title: 'Only the samples whose stack ends with this path of callers' }
      : { label: 'Focus on subtree only', key: 'p', disabled: !row.path, action: () => a.setCenter(row.path),
        title: 'This call path as the center' },
    'sep',
    ...transformItems(node),
    'sep',
    { label: 'Copy stack', key: 'Ctrl+C', action: () => copyText(stackOf(node, opts.inverted).join('\n')) },
    { label: 'Copy name', action: () => copyText(row.name) },
  ];
  if (opts.tree) {
    items.push({ label: 'Expand all below', key: '*', disabled: !(row.children > 0), action: () => opts.tree.expandAll(node) });
  }
  const src = sourceOf(row);
  items.push({ label: 'Show source', disabled: src === null, action: () => a.openSource(src, row.line) });
  return items;
}

export function rowMenu(node, x, y, opts) {
  showMenu(x, y, rowItems(node, opts), () => opts && opts.tree && opts.tree.focus());
}

// Keys on a selected row; returns true when handled.
export function rowKey(e, node, opts = {}) {
  if (!node) return false;
  const row = node.row;
  const a = ctx.actions;
  const scope = rowScope(row);
  if ((e.ctrlKey || e.metaKey) && (e.key === 'c' || e.key === 'C')) {
    copyText(stackOf(node, opts.inverted).join('\n'));
    return true;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return false;
  switch (e.key) {
    case 'c': if (scope) a.setCenter(scope); return true;
    case 'C': if (scope) a.addCenter(scope); return true;
    case 'p': if (row.path) a.setCenter(row.path); return true;
    case 'f': {
      const inv = opts.inverted ? invertedPath(node) : null;
      if (inv) a.addFilter('focus-inverted', inv);
      return Boolean(inv);
    }
    default: {
      // a transform's key ("⇧M" is M)
      const t = TRANSFORMS.find((x) => x.key.replace('⇧', '') === e.key);
      if (!t) return false;
      const arg = t.arg ? t.arg(node) : scope;
      if (arg) a.addFilter(t.kind, arg);
      return true;
    }
  }
}

// The source id of a row's file, when the profile names it and the server can show it.
export function sourceOf(row) {
  if (!row || !row.file || !ctx.profile || !ctx.profile.sources) return null;
  const s = ctx.profile.sources.find((x) => x.path === row.file);
  return s && s.available ? s.id : null;
}

// Is the row in the center? (a center row, or a row named by one of the center's scopes)
export function inCenter(row) {
  if (row.kind === 'center' || row.in_center) return true;
  const cs = S.centers();
  if (!cs.length) return false;
  return (row.scope && cs.includes(row.scope)) || (row.path && cs.includes(row.path));
}

function short(s) { return s.length > 40 ? '…' + s.slice(-39) : s; }
