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

export function rowItems(node, opts = {}) {
  const row = node.row;
  const a = ctx.actions;
  const scope = row.scope;
  const noScope = !scope;
  const items = [
    { label: 'Set as center', key: 'c', disabled: noScope, action: () => a.setCenter(scope) },
    { label: 'Add to center', key: '⇧C', disabled: noScope, action: () => a.addCenter(scope) },
    { label: 'Center on this call path', key: 'p', disabled: !row.path, action: () => a.setCenter(row.path) },
    'sep',
    { label: 'Include only samples with it', key: 'i', disabled: noScope, action: () => a.addFilter('include', scope) },
    { label: 'Drop samples with it', key: 'd', disabled: noScope, action: () => a.addFilter('drop', scope) },
    { label: 'Merge it', key: 'm', disabled: noScope, action: () => a.addFilter('merge', scope) },
    { label: 'Collapse recursion', key: 'r', disabled: noScope, action: () => a.addFilter('collapse-recursion', scope) },
    { label: row.module ? `Collapse module ${short(row.module)}` : 'Collapse its module', key: '⇧M', disabled: !row.module,
      action: () => a.addFilter('collapse-module', row.module) },
  ];
  if (opts.inverted) {
    const inv = invertedPath(node);
    items.push({ label: 'Focus on this node (inverted)', key: 'f', disabled: !inv, action: () => a.addFilter('focus-inverted', inv) });
  }
  items.push(
    'sep',
    { label: 'Copy stack', key: 'Ctrl+C', action: () => copyText(stackOf(node, opts.inverted).join('\n')) },
    { label: 'Copy name', action: () => copyText(row.name) },
  );
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
  const scope = row.scope;
  if ((e.ctrlKey || e.metaKey) && (e.key === 'c' || e.key === 'C')) {
    copyText(stackOf(node, opts.inverted).join('\n'));
    return true;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return false;
  switch (e.key) {
    case 'c': if (scope) a.setCenter(scope); return true;
    case 'C': if (scope) a.addCenter(scope); return true;
    case 'p': if (row.path) a.setCenter(row.path); return true;
    case 'i': if (scope) a.addFilter('include', scope); return true;
    case 'd': if (scope) a.addFilter('drop', scope); return true;
    case 'm': if (scope) a.addFilter('merge', scope); return true;
    case 'r': if (scope) a.addFilter('collapse-recursion', scope); return true;
    case 'M': if (row.module) a.addFilter('collapse-module', row.module); return true;
    case 'f': {
      const inv = opts.inverted ? invertedPath(node) : null;
      if (inv) a.addFilter('focus-inverted', inv);
      return Boolean(inv);
    }
    default: return false;
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
