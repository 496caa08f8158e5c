// '?': every key of the page, in one overlay (Escape or '?' closes it). The lists name what the
// views' handlers do (tree.js, rowmenu.js, timeline.js, views/trace.js, views/stackchart.js, app.js).
import { h, clear } from './util.js';

const KEYS = [
  ['Anywhere', [
    ['?', 'this list of keys'],
    ['/', 'the search box of the tab (tree tabs: find in the rows shown)'],
    ['s', 'the whole-profile search box (every function of the query)'],
    ['Esc', 'leave a box; close a menu; cancel an expand-all'],
  ]],
  ['Search box', [
    ['↑ ↓', 'choose a match'],
    ['Enter', 'open the heaviest path to the chosen match, or to each match listed'],
    ['⇧Enter', 'set the text typed (a function or a scope) as the center'],
  ]],
  ['Tree rows (top-down, bottom-up, butterfly)', [
    ['↑ ↓ PgUp PgDn Home End', 'move the selection'],
    ['→ ←', 'open / close a row, or go to its child / parent'],
    ['Enter', 'open or close the row'],
    ['*', 'expand everything below the row (one request; Esc cancels)'],
    ['h', 'open the hot path from the row (hpcviewer\'s)'],
    ['c', 'set the row as the center'],
    ['⇧C', 'add the row to the center'],
    ['p', 'focus on subtree only: center on the row\'s call path'],
    ['f', 'focus on subtree only (bottom-up): the stacks ending with the row\'s callers'],
    ['m d i', 'merge function / drop samples with it / keep only samples with it'],
    ['⇧F g', 'focus on self only / on the row\'s category'],
    ['x ⇧P', 'collapse function (its callees\' cost as its self) / prune it and its callees'],
    ['r ⇧R', 'collapse recursion / direct recursion only'],
    ['⇧M', 'collapse the row\'s module'],
    ['Ctrl+C', 'copy the row\'s call stack'],
  ]],
  ['Timeline', [
    ['drag', 'select a time range (Zoom in commits it)'],
    ['Ctrl/⌘+wheel', 'zoom around the pointer'],
    ['click a track\'s name', 'that thread only (Ctrl: add it to the selection)'],
    ['right-click a track', 'only this thread, merge, hide, show all'],
    ['hover / click the graph', 'the sample\'s stack / select its call node'],
  ]],
  ['Flame graph, marker chart', [
    ['click / double-click', 'select / zoom into a box'],
    ['Esc', 'reset the flame graph\'s zoom'],
    ['right-click', 'the box\'s menu (center, filters, copy)'],
  ]],
  ['Trace', [
    ['← → ↑ ↓', 'pan'],
    ['⇧↑ ⇧↓', 'zoom the contexts'],
    ['+ -', 'zoom time around the crosshair'],
    ['[ ]', 'depth'],
    ['0', 'the whole trace'],
    ['z / Z (Ctrl+Z / Ctrl+Y)', 'undo / redo a window change'],
  ]],
  ['Stack chart', [
    ['wheel / drag', 'zoom around the pointer / to the dragged times'],
    ['⇧drag, ← →', 'pan'],
    ['+ -', 'zoom'],
    ['0', 'the timeline\'s selection (or the whole profile)'],
    ['click', 'select the box\'s call node in the top-down tree'],
  ]],
];

let box = null;

export function helpOpen() { return !!(box && !box.hidden); }

export function toggleHelp() {
  if (!box) {
    box = h('div', { id: 'help', class: 'help', role: 'dialog', 'aria-label': 'Keys', hidden: true });
    box.addEventListener('click', (e) => { if (e.target === box) box.hidden = true; });
    document.body.append(box);
  }
  if (!box.hidden) { box.hidden = true; return; }
  clear(box);
  const card = h('div', { class: 'help-card' }, h('h3', { text: 'Keys' }));
  for (const [title, keys] of KEYS) {
    const t = h('table');
    for (const [k, what] of keys) t.append(h('tr', null, h('td', { class: 'help-key', text: k }), h('td', { text: what })));
    card.append(h('h4', { text: title }), t);
  }
  card.append(h('div', { class: 'dim', text: 'Esc or ? closes this list.' }));
  box.append(card);
  box.hidden = false;
}

export function closeHelp() { if (box) box.hidden = true; }
