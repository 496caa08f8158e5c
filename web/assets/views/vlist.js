// A virtualised list: only the rows in view (plus a margin) exist as absolutely positioned
// divs over a spacer as tall as every row, so 100,000 rows scroll as smoothly as 100.
import { h } from '../util.js';

export class VList {
  // body: the scrolling element; render(div, index) fills a row div (reused between rows).
  constructor(body, rowH, render) {
    this.body = body;
    this.rowH = rowH;
    this.render = render;
    this.n = 0;
    this.spacer = h('div', { class: 'tt-spacer' });
    body.append(this.spacer);
    this.pool = [];
    this.first = 0;
    this.pending = false;
    body.addEventListener('scroll', () => this.refresh());
    this.ro = new ResizeObserver(() => this.refresh());
    this.ro.observe(body);
  }

  setCount(n) {
    this.n = n;
    this.spacer.style.height = n * this.rowH + 'px';
    this.refresh(true);
  }

  // Redraw on the next frame (force: redraw rows even when the window did not move).
  refresh(force) {
    if (force) this.dirty = true;
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.draw();
    });
  }

  // Row i is drawn by pool[i % pool.length]: a div keeps its row while the row stays in the
  // window, so a scroll of a few rows renders only the rows that come into view.
  draw() {
    const top = this.body.scrollTop;
    const height = this.body.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / this.rowH) - 8);
    const last = Math.min(this.n, Math.ceil((top + height) / this.rowH) + 8);
    const count = Math.max(0, last - first);
    if (this.pool.length < count) {
      while (this.pool.length < count) {
        const div = h('div', { class: 'tt-row' });
        this.body.append(div);
        this.pool.push(div);
      }
      this.dirty = true; // the ring changed size: every row moves to another div
    }
    const size = this.pool.length;
    const pass = (this.pass = (this.pass || 0) + 1);
    for (let i = first; i < last; i++) {
      const div = this.pool[i % size];
      div._pass = pass;
      if (div.hidden) div.hidden = false;
      if (div._y !== i) {
        div._y = i;
        div.style.transform = `translateY(${i * this.rowH}px)`;
      }
      if (this.dirty || div._index !== i) {
        div._index = i;
        this.render(div, i);
      }
    }
    for (const div of this.pool) {
      if (div._pass !== pass && !div.hidden) {
        div.hidden = true;
        div._index = -1;
        delete div.dataset.index;
      }
    }
    this.dirty = false;
    this.first = first;
  }

  // Synchronous redraw (tests and keyboard navigation want the rows now).
  drawNow() {
    this.dirty = true;
    this.draw();
  }

  scrollTo(i) {
    const y = i * this.rowH;
    const b = this.body;
    if (y < b.scrollTop) b.scrollTop = y;
    else if (y + this.rowH > b.scrollTop + b.clientHeight) b.scrollTop = y + this.rowH - b.clientHeight;
    this.refresh();
  }

  destroy() { this.ro.disconnect(); }
}
