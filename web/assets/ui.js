// Context menu, tooltip and the one-line error bar.
import { h, clear } from './util.js';

const menu = () => document.getElementById('menu');
const tip = () => document.getElementById('tooltip');

let menuItems = [];
let menuHot = -1;
let menuClose = null;

// items: [{label, key, action, disabled, title}] or 'sep'. Shown at the mouse position (or x, y).
export function showMenu(x, y, items, onClose) {
  hideTooltip();
  const m = menu();
  clear(m);
  menuItems = [];
  menuHot = -1;
  menuClose = onClose || null;
  for (const it of items) {
    if (it === 'sep') { m.append(h('div', { class: 'msep' })); continue; }
    const el = h('div', { class: 'mi' + (it.disabled ? ' disabled' : ''), role: 'menuitem', 'data-label': it.label, title: it.title },
      h('span', { text: it.label }), it.key ? h('span', { class: 'key', text: it.key }) : null);
    if (!it.disabled) {
      el.addEventListener('mousedown', (e) => e.preventDefault());
      el.addEventListener('click', (e) => {
        e.stopPropagation();
        hideMenu();
        it.action();
      });
    }
    menuItems.push({ el, it });
    m.append(el);
  }
  m.hidden = false;
  const r = m.getBoundingClientRect();
  const W = window.innerWidth, H = window.innerHeight;
  m.style.left = Math.max(0, Math.min(x, W - r.width - 4)) + 'px';
  m.style.top = Math.max(0, Math.min(y, H - r.height - 4)) + 'px';
}

// A menu of checkboxes (metric choice): onToggle(value, checked). Many options get a filter box
// and scroll; extra (an element, e.g. a form) goes below them.
export function showChecks(x, y, options, onToggle, extra) {
  hideTooltip();
  const m = menu();
  clear(m);
  menuItems = [];
  const list = h('div', { class: 'checks', style: { maxHeight: Math.max(120, window.innerHeight - y - (extra ? 110 : 20)) + 'px' } });
  const labels = [];
  for (const o of options) {
    const cb = h('input', { type: 'checkbox' });
    cb.checked = o.checked;
    cb.addEventListener('change', () => onToggle(o.value, cb.checked));
    const el = h('label', { class: 'mi', 'data-value': o.value }, cb, h('span', { text: o.label }));
    labels.push([el, o.label.toLowerCase()]);
    list.append(el);
  }
  if (options.length > 12) {
    const find = h('input', { type: 'search', class: 'checks-find', placeholder: `Filter ${options.length} metrics`, 'aria-label': 'Filter the metrics' });
    find.addEventListener('input', () => {
      const t = find.value.trim().toLowerCase();
      for (const [el, text] of labels) el.hidden = Boolean(t) && !text.includes(t);
    });
    m.append(find);
  }
  m.append(list);
  if (extra) m.append(h('div', { class: 'msep' }), extra);
  m.hidden = false;
  m.style.left = Math.min(x, window.innerWidth - m.getBoundingClientRect().width - 4) + 'px';
  m.style.top = y + 'px';
}

export function hideMenu() {
  const m = menu();
  if (m.hidden) return;
  m.hidden = true;
  const c = menuClose;
  menuClose = null;
  if (c) c();
}
export function menuOpen() { return !menu().hidden; }

document.addEventListener('mousedown', (e) => {
  if (!menu().hidden && !menu().contains(e.target)) hideMenu();
});
document.addEventListener('keydown', (e) => {
  if (menu().hidden) return;
  const live = menuItems.filter((x) => !x.it || !x.it.disabled);
  if (e.key === 'Escape') { hideMenu(); e.preventDefault(); e.stopPropagation(); return; }
  if (!live.length || !live[0].it) return;
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    menuHot = (menuHot + (e.key === 'ArrowDown' ? 1 : live.length - 1)) % live.length;
    live.forEach((x, i) => x.el.classList.toggle('hot', i === menuHot));
    e.preventDefault(); e.stopPropagation();
  } else if (e.key === 'Enter' && menuHot >= 0) {
    const it = live[menuHot].it;
    hideMenu();
    it.action();
    e.preventDefault(); e.stopPropagation();
  }
}, true);
window.addEventListener('blur', hideMenu);

// ---- tooltip ----

export function showTooltip(x, y, content) {
  const t = tip();
  clear(t);
  if (typeof content === 'string') t.textContent = content; else t.append(content);
  t.hidden = false;
  moveTooltip(x, y);
}
export function moveTooltip(x, y) {
  const t = tip();
  if (t.hidden) return;
  const r = t.getBoundingClientRect();
  let left = x + 14, top = y + 16;
  if (left + r.width > window.innerWidth - 4) left = Math.max(4, x - r.width - 10);
  if (top + r.height > window.innerHeight - 4) top = Math.max(4, y - r.height - 10);
  t.style.left = left + 'px';
  t.style.top = top + 'px';
}
export function hideTooltip() { tip().hidden = true; }

// ---- errors ----

export function showError(msg) {
  const bar = document.getElementById('errorbar');
  document.getElementById('error-text').textContent = msg;
  bar.hidden = false;
}
export function clearError() { document.getElementById('errorbar').hidden = true; }
document.addEventListener('DOMContentLoaded', () => {
  document.getElementById('error-close').addEventListener('click', clearError);
});

// An error inside a pane (the rest of the page keeps working).
export function paneError(el, msg) {
  clear(el);
  el.append(h('div', { class: 'pane-error', role: 'alert', text: msg }));
}

// A pane's update failed: it forgets what it showed (the next update fetches again), hides
// content and shows the error in its place, in pane.errorEl (made at the end of pane.el).
export function paneFailed(pane, content, msg) {
  pane.lastKey = null;
  content.hidden = true;
  if (!pane.errorEl) { pane.errorEl = h('div'); pane.el.append(pane.errorEl); }
  paneError(pane.errorEl, msg);
}

// A pane's update came through: the error (if any) goes, content shows again.
export function paneOk(pane, content) {
  if (pane.errorEl) { pane.errorEl.remove(); pane.errorEl = null; }
  content.hidden = false;
}
