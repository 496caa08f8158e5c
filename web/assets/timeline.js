// The timeline: one track per thread with its activity graph (api/activity: samples per time
// bucket, stacked by the leaf's category; the samples the query keeps drawn solid over the
// others faded) and its timeline-overview markers. Drag selects a range (the query's
// range=T0:T1), the zoom button commits it (breadcrumbs of zoomed ranges), clicking a thread's
// name selects that thread (ctrl-click: several). Ctrl/⌘+wheel zooms the view around the
// pointer inside the committed zoom (the URL does not change); the plain wheel scrolls.
import { api, isAbort } from './api.js';
import { ctx } from './ctx.js';
import * as S from './state.js';
import { h, clear, ink, categoryColor, fade, fitText, sizeCanvas, niceStep, fmtMs, debounce, WheelView } from './util.js';
import { showTooltip, hideTooltip, moveTooltip, showMenu } from './ui.js';
import { fetchMarker, markerDetails } from './views/markers.js';

const LABEL_W = 150;
const AXIS_H = 18;
const TRACK_H = 38;
const MARK_H = 6;
const GREY = '#b8b8bd';

// The note shown instead of the timeline when the profile has no time axis (api/profile's
// "timed": no sample and no marker has a time), null when it has one. An HPCToolkit database's
// samples are summary values per context; its trace, when it has one, has times of its own.
function untimedNote() {
  const p = ctx.profile;
  if (p.timed !== false) return null;
  return p.trace && p.trace.records
    ? 'This profile\'s samples have no times (summary values per context): no timeline. Its trace is on the Trace tab.'
    : 'This profile has no sample times: no timeline (every view works without it).';
}

export class Timeline {
  constructor() {
    this.canvas = document.getElementById('timeline-canvas');
    this.scroll = document.getElementById('timeline-scroll');
    this.crumbs = document.getElementById('zoom-crumbs');
    this.zoomBtn = document.getElementById('zoom-button');
    this.gen = 0;
    this.sampleGen = 0;
    this.sample = null;
    this.lastKey = null;
    this.full = null;
    this.sel = null;
    this.drag = null;
    this.canvas.addEventListener('mousedown', (e) => this.onDown(e));
    this.canvas.addEventListener('mousemove', (e) => this.onHover(e));
    this.canvas.addEventListener('mouseleave', () => hideTooltip());
    this.canvas.addEventListener('contextmenu', (e) => {
      const p = this.pos(e);
      const tr = this.trackAt(p.y);
      if (!tr) return;
      e.preventDefault();
      this.trackMenu(tr.th.index, e.clientX, e.clientY);
    });
    // tracks hidden by default: the idle ones (the profile's "idle": under 5 % of the busiest
    // thread's active cost, or no samples), unless the query selects them
    this.hidden = new Set();
    this.userHid = false;
    const sel = new Set(S.get('thread'));
    for (const th of ctx.profile.threads) if (th.idle && !sel.has('#' + th.index)) this.hidden.add(th.index);
    this.hiddenNote = document.getElementById('tracks-hidden');
    this.view = new WheelView(); // ctrl+wheel
    this.canvas.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    window.addEventListener('mousemove', (e) => this.onDrag(e));
    window.addEventListener('mouseup', (e) => this.onUp(e));
    this.zoomBtn.addEventListener('click', () => {
      const r = S.range();
      if (r) ctx.actions.zoomTo(r);
    });
    this.refetch = debounce(() => this.update(true), 200);
    this.lastW = 0;
    new ResizeObserver(() => {
      const w = this.scroll.clientWidth;
      if (this.full && Math.abs(w - this.lastW) > 60) this.refetch(); else this.draw();
    }).observe(this.scroll);
  }

  // the committed window (the last zoom crumb, else the whole profile)
  base() {
    const z = S.state.zoom;
    if (z.length) return z[z.length - 1];
    // the activity's own window: one sampling interval past the last sample, which it counts
    const p = ctx.profile;
    return [p.start, p.activity_end ?? p.end];
  }

  // what is drawn: the wheel's view inside the committed window
  window() { return this.view.window(this.base()); }

  onWheel(e) {
    if (!(e.ctrlKey || e.metaKey)) return; // the plain wheel scrolls the tracks
    const p = this.pos(e);
    if (p.x < LABEL_W || !this.full) return;
    e.preventDefault();
    this.view.zoom(this.base(), this.t(p.x, p.width), e.deltaY);
    this.draw(); // the graph in hand, stretched; its buckets for the new view follow
    this.refetch();
  }

  // after: a promise to wait for before asking the server (the active pane's update: its
  // answer comes first when both would share a small machine's cores).
  async update(force, after) {
    this.renderCrumbs();
    const [w0, w1] = this.window();
    const width = this.scroll.clientWidth || 1000;
    // a bucket no narrower than the sampling interval (a sparse profile stays readable)
    const iv = ctx.profile.interval_ns ? ctx.profile.interval_ns / 1e6 : 0;
    let buckets = Math.floor((width - LABEL_W) / 2);
    if (iv > 0) buckets = Math.min(buckets, Math.ceil((w1 - w0) / iv));
    buckets = Math.max(20, Math.min(4000, buckets));
    const win = [['buckets', buckets], ['start', S.fmtMsParam(w0)], ['end', S.fmtMsParam(w1)]];
    const filtered = S.queryParams(null, { noRange: true, noThread: true });
    const hasFilter = filtered.some(([k]) => k === 'center' || k === 'filter' || k === 'inside-markers');
    const key = JSON.stringify([win, filtered]);
    if (!force && key === this.lastKey) { this.draw(); return; }
    const gen = ++this.gen;
    const untimed = untimedNote();
    if (untimed || !(w1 > w0)) {
      // no sample or marker times (collapsed stacks, callgrind, HPCToolkit's summary values):
      // nothing to draw against time, and no 0..1 ns axis made up for it
      this.full = null;
      this.error = null;
      this.note = untimed || 'This window is empty: no timeline.';
      this.lastKey = key;
      this.draw();
      this.canvas.dataset.state = 'ready';
      return;
    }
    this.canvas.dataset.state = 'busy'; // "ready" once this answer is drawn (tests wait for it)
    try {
      if (after) {
        await after;
        if (gen !== this.gen) return;
      }
      // the whole profile's graph does not change with the center or the filters: kept
      const fullKey = JSON.stringify([win, onlyMetric(filtered)]);
      const [full, sel] = await Promise.all([
        !force && this.full && this.fullKey === fullKey ? this.full : api('activity', [...onlyMetric(filtered), ...win]),
        hasFilter ? api('activity', [...filtered, ...win]) : null,
      ]);
      if (gen !== this.gen) return;
      this.fullKey = fullKey;
      this.lastKey = key;
      this.lastW = width;
      this.full = full;
      this.note = null;
      this.sel = sel;
      this.error = null;
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      this.error = e.message;
      this.lastKey = null;
    }
    this.draw();
    this.canvas.dataset.state = 'ready';
  }

  renderCrumbs() {
    this.window(); // drops a wheel view of another committed window
    clear(this.crumbs);
    if (untimedNote()) return; // no time axis: no range to zoom
    const p = ctx.profile;
    const z = S.state.zoom;
    const items = [{ label: `Full range (${fmtMs(p.end - p.start)})`, n: 0 }];
    z.forEach((r, i) => items.push({ label: fmtMs(r[1] - r[0]), n: i + 1 }));
    items.forEach((it, i) => {
      if (i) this.crumbs.append(h('span', { class: 'crumb-sep', text: '›' }));
      const last = i === items.length - 1;
      const b = h('button', { class: 'crumb' + (last ? ' last' : ''), text: it.label, 'data-zoom': it.n });
      if (!last) b.addEventListener('click', () => ctx.actions.popZoom(it.n));
      this.crumbs.append(b);
    });
    const vp = this.view.vp;
    if (vp) {
      this.crumbs.append(h('span', { class: 'crumb-sep', text: '›' }),
        h('span', { class: 'dim', text: `view ${fmtMs(vp[1] - vp[0])}`, title: 'Ctrl/⌘+wheel zoom (not in the URL); ctrl+wheel down zooms out' }));
    }
    const r = S.range();
    if (r) {
      const zr = z.length ? z[z.length - 1] : null;
      const same = zr && Math.abs(zr[0] - r[0]) < 1e-6 && Math.abs(zr[1] - r[1]) < 1e-6;
      if (!same) this.crumbs.append(h('span', { class: 'crumb-sep', text: '›' }), h('span', { class: 'dim', text: `selection ${fmtMs(r[1] - r[0])}` }));
    }
  }

  // The tracks drawn: the answer's threads less the hidden ones, grouped by process (in the
  // order of each process's first thread), then in thread order.
  threads() {
    if (!this.full) return [];
    const shown = this.full.threads.filter((th) => !this.hidden.has(th.index));
    const info = ctx.profile.threads;
    const order = new Map();
    for (const th of shown) {
      const k = processKey(info[th.index]);
      if (!order.has(k)) order.set(k, order.size);
    }
    return shown.map((th, i) => ({ th, i, g: order.get(processKey(info[th.index])) }))
      .sort((a, b) => a.g - b.g || a.i - b.i).map((x) => x.th);
  }

  // "Web Content — GeckoMain 27844": the process, the thread's name and tid (tests read it).
  trackLabel(index) {
    const th = ctx.profile.threads[index];
    if (!th) return `thread ${index}`;
    const tid = th.tid !== null && th.tid !== undefined ? ' ' + th.tid : '';
    return (th.process ? th.process + ' — ' : '') + (th.name || `thread ${index}`) + tid;
  }
  trackLabels() { return this.threads().map((th) => this.trackLabel(th.index)); }

  renderHidden() {
    const n = this.full ? this.full.threads.filter((th) => this.hidden.has(th.index)).length : 0;
    const el = this.hiddenNote;
    if (!el) return;
    clear(el);
    el.hidden = !n;
    if (!n) return;
    el.append(h('span', { text: `${n} ${this.userHid ? '' : 'idle '}track${n === 1 ? '' : 's'} hidden` }),
      h('button', { class: 'small', text: 'Show', title: 'Show every track', onclick: () => this.showAll() }));
  }

  showAll() {
    this.hidden.clear();
    this.userHid = false;
    this.draw();
  }

  // The track context menu: only this thread, merge it with the selection, hide it.
  trackMenu(index, x, y) {
    const id = '#' + index;
    const cur = S.get('thread');
    const items = [
      { label: 'Only this thread', action: () => { S.set('thread', [id]); ctx.actions.queryChanged(); } },
      { label: cur.includes(id) ? 'Remove from the selection' : 'Merge with the selection', disabled: !cur.length,
        action: () => ctx.actions.selectThread(id, true) },
      { label: 'Merge all threads', disabled: !cur.length, action: () => { S.set('thread', null); ctx.actions.queryChanged(); } },
      'sep',
      { label: 'Hide this track', action: () => { this.hidden.add(index); this.userHid = true; this.draw(); } },
      { label: 'Show all tracks', disabled: !this.hidden.size, action: () => this.showAll() },
    ];
    showMenu(x, y, items);
  }

  x(t, width) {
    const [w0, w1] = this.window();
    return LABEL_W + ((t - w0) / (w1 - w0)) * (width - LABEL_W);
  }
  t(x, width) {
    const [w0, w1] = this.window();
    return w0 + ((x - LABEL_W) / (width - LABEL_W)) * (w1 - w0);
  }

  selectedThreads() { return new Set(S.get('thread')); }
  threadId(th) { return '#' + th.index; }

  draw() {
    this.renderHidden();
    const width = this.scroll.clientWidth || 1000;
    const threads = this.threads();
    const height = AXIS_H + Math.max(1, threads.length) * TRACK_H + 2;
    const msg = this.error || this.note;
    const c = sizeCanvas(this.canvas, width, msg ? AXIS_H + TRACK_H : height);
    c.clearRect(0, 0, width, height);
    c.font = '11px system-ui, sans-serif';
    c.textBaseline = 'middle';
    if (msg) {
      c.fillStyle = this.error ? '#a4000f' : ink('#737373');
      c.fillText(msg, 8, AXIS_H + TRACK_H / 2);
      return;
    }
    if (!this.full) {
      c.fillStyle = ink('#737373');
      c.fillText('loading…', 8, AXIS_H + 10);
      return;
    }
    const [w0, w1] = this.window();
    const z = ctx.profile.start;
    // axis
    c.fillStyle = ink('#f9f9fa');
    c.fillRect(0, 0, width, AXIS_H);
    const step = niceStep(w1 - w0, Math.max(2, (width - LABEL_W) / 100));
    c.strokeStyle = ink('#e6e6ea');
    c.fillStyle = ink('#737373');
    c.textAlign = 'left';
    for (let t = Math.ceil((w0 - z) / step) * step + z; t <= w1; t += step) {
      const x = Math.round(this.x(t, width)) + 0.5;
      c.beginPath(); c.moveTo(x, AXIS_H - 5); c.lineTo(x, height); c.stroke();
      c.fillText(fmtMs(t - z), x + 3, AXIS_H / 2);
    }
    c.strokeStyle = ink('#d7d7db');
    c.beginPath(); c.moveTo(0, AXIS_H - 0.5); c.lineTo(width, AXIS_H - 0.5); c.stroke();
    const cats = this.full.categories || ctx.profile.categories || [];
    const colors = cats.map((k) => categoryColor(k.color));
    const fadedColors = colors.map((k) => fade(k, 0.3));
    const selThreads = this.selectedThreads();
    const selByIndex = new Map();
    if (this.sel) for (const t of this.sel.threads) selByIndex.set(t.index, t);
    const overview = new Map();
    for (const m of this.full.overview || []) {
      if (!overview.has(m.thread)) overview.set(m.thread, []);
      overview.get(m.thread).push(m);
    }
    const graphW = width - LABEL_W;
    threads.forEach((th, ti) => {
      const y = AXIS_H + ti * TRACK_H;
      const info = ctx.profile.threads[th.index] || {};
      const picked = !selThreads.size || selThreads.has(this.threadId(th)) || selThreads.has(th.name) ||
        (info.tid !== null && info.tid !== undefined && selThreads.has(String(info.tid)));
      // label: the thread's name and tid, then its process; a line between processes
      c.fillStyle = picked && selThreads.size ? ink('#e8f2ff') : ink('#fff');
      c.fillRect(0, y, LABEL_W, TRACK_H);
      c.fillStyle = picked ? ink('#0c0c0d') : ink('#9a9aa0');
      c.font = (picked && selThreads.size ? '600 ' : '') + '11.5px system-ui, sans-serif';
      const tid = info.tid !== null && info.tid !== undefined ? ' ' + info.tid : '';
      c.fillText(fitText(c, (th.name || `thread ${th.index}`) + tid, LABEL_W - 12), 8, y + 13);
      c.font = '10.5px system-ui, sans-serif';
      c.fillStyle = ink('#8a8a90');
      const sub = `${info.process ? info.process + ' · ' : ''}${(th.samples || 0).toLocaleString('en-US')} samples`;
      c.fillText(fitText(c, sub, LABEL_W - 12), 8, y + 27);
      if (ti && processKey(info) !== processKey(ctx.profile.threads[threads[ti - 1].index])) {
        c.fillStyle = ink('#b1b1b3');
        c.fillRect(0, y, width, 1.5);
      }
      c.font = '11px system-ui, sans-serif';
      // overview markers
      const ms = overview.get(th.index) || [];
      for (const m of ms) {
        const x0 = this.x(m.start, width);
        const x1 = m.end === null || m.end === undefined ? x0 + 1 : Math.max(x0 + 1, this.x(m.end, width));
        if (x1 < LABEL_W || x0 > width) continue;
        c.fillStyle = categoryColor(m.color);
        c.fillRect(Math.max(LABEL_W, x0), y + 2, Math.min(width, x1) - Math.max(LABEL_W, x0), MARK_H);
      }
      // activity graph
      const gy = y + MARK_H + 4, gh = TRACK_H - MARK_H - 7;
      const buckets = th.buckets || [];
      const nb = buckets.length;
      let max = 0;
      for (const b of buckets) {
        let s = 0;
        for (const [, v] of b) s += v;
        if (s > max) max = s;
      }
      if (!nb || !max) return;
      const selTh = selByIndex.get(th.index);
      const faded = !!this.sel || !picked;
      // the buckets span the answer's window (the view before a wheel zoom's answer is in)
      const gx0 = this.x(this.full.start ?? w0, width);
      const gw = this.x(this.full.end ?? w1, width) - gx0;
      c.save();
      c.beginPath();
      c.rect(LABEL_W, y, graphW, TRACK_H);
      c.clip();
      drawStacked(c, buckets, gx0, gw / nb, gy, gh, max, faded ? fadedColors : colors, faded ? fade(GREY, 0.3) : GREY);
      if (selTh && picked) {
        const sb = selTh.buckets || [];
        drawStacked(c, sb, gx0, gw / Math.max(1, sb.length), gy, gh, max, colors, GREY);
      }
      c.restore();
      c.strokeStyle = ink('#ececf0');
      c.beginPath(); c.moveTo(0, y + TRACK_H - 0.5); c.lineTo(width, y + TRACK_H - 0.5); c.stroke();
    });
    c.strokeStyle = ink('#d7d7db');
    c.beginPath(); c.moveTo(LABEL_W - 0.5, 0); c.lineTo(LABEL_W - 0.5, height); c.stroke();
    // selection (the query's range, or the one being dragged)
    const r = this.drag && this.drag.moved ? [Math.min(this.drag.t0, this.drag.t1), Math.max(this.drag.t0, this.drag.t1)] : S.range();
    this.zoomBtn.hidden = true;
    if (r) {
      const x0 = Math.max(LABEL_W, this.x(r[0], width)), x1 = Math.min(width, this.x(r[1], width));
      const full = x0 <= LABEL_W + 0.5 && x1 >= width - 0.5;
      if (!full && x1 > x0 - 1) {
        c.fillStyle = 'rgba(12,12,13,0.12)';
        c.fillRect(LABEL_W, AXIS_H, x0 - LABEL_W, height - AXIS_H);
        c.fillRect(x1, AXIS_H, width - x1, height - AXIS_H);
        c.strokeStyle = '#0a84ff';
        c.beginPath();
        c.moveTo(x0 + 0.5, AXIS_H); c.lineTo(x0 + 0.5, height);
        c.moveTo(x1 - 0.5, AXIS_H); c.lineTo(x1 - 0.5, height);
        c.stroke();
        const label = fmtMs(r[1] - r[0]);
        c.font = '600 11px system-ui, sans-serif';
        const tw = c.measureText(label).width + 8;
        const lx = Math.min(width - tw, Math.max(LABEL_W, (x0 + x1) / 2 - tw / 2));
        c.fillStyle = '#0a84ff';
        c.fillRect(lx, 1, tw, AXIS_H - 2);
        c.fillStyle = '#fff'; // on the selection's blue
        c.fillText(label, lx + 4, AXIS_H / 2);
        if (!this.drag) this.placeZoomButton(x0, x1, width);
      }
    }
  }

  // The "Zoom in" button over the middle of the selection x0..x1, below the time axis (never
  // on it: the canvas starts below the crumbs and the hidden tracks' note, and scrolls), inside
  // the graph's width.
  placeZoomButton(x0, x1, width) {
    const b = this.zoomBtn;
    b.hidden = false;
    const top = this.scroll.offsetTop; // the scrolled area's top in #timeline
    const below = top + AXIS_H - this.scroll.scrollTop + 3; // under the axis while it shows
    b.style.top = Math.max(top + 2, below) + 'px';
    const w = b.offsetWidth || 70;
    b.style.left = Math.max(LABEL_W + 2, Math.min(width - w - 2, (x0 + x1) / 2 - w / 2)) + 'px';
  }

  pos(e) {
    const r = this.canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top, width: r.width };
  }

  trackAt(y) {
    const i = Math.floor((y - AXIS_H) / TRACK_H);
    const th = this.threads();
    return i >= 0 && i < th.length ? { th: th[i], i, yIn: y - AXIS_H - i * TRACK_H } : null;
  }

  onDown(e) {
    if (e.button !== 0) return;
    const p = this.pos(e);
    if (p.x < LABEL_W) {
      const tr = this.trackAt(p.y);
      if (tr) ctx.actions.selectThread(this.threadId(tr.th), e.ctrlKey || e.metaKey || e.shiftKey);
      return;
    }
    if (!this.full) return; // nothing drawn against time (the note): no range to select
    e.preventDefault();
    const t = this.t(p.x, p.width);
    this.drag = { x0: p.x, t0: t, t1: t, moved: false, width: p.width };
  }

  onDrag(e) {
    if (!this.drag) return;
    const p = this.pos(e);
    const x = Math.max(LABEL_W, Math.min(p.width, p.x));
    if (Math.abs(x - this.drag.x0) > 3) this.drag.moved = true;
    this.drag.t1 = this.t(x, p.width);
    if (this.drag.moved) this.draw();
  }

  onUp(e) {
    if (!this.drag) return;
    const d = this.drag;
    this.drag = null;
    if (d.moved) {
      const a = Math.min(d.t0, d.t1), b = Math.max(d.t0, d.t1);
      if (b > a) ctx.actions.setRange([a, b]);
      return;
    }
    // a click: an overview marker selects its range; elsewhere clears the selection
    const p = this.pos(e);
    const hit = this.markerAt(p);
    const tr = !hit && p.y >= AXIS_H ? this.trackAt(p.y) : null;
    const key = tr && this.sample && this.sample.index === tr.th.index ? this.sampleKey() : null;
    if (key) {
      // a sample: its call node in the top-down tree
      ctx.actions.reveal([key]);
    } else if (hit) {
      S.state.mk = hit.i;
      if (hit.end !== null && hit.end !== undefined && hit.end > hit.start) ctx.actions.setRange([hit.start, hit.end]);
      else S.commit('mk', false);
    } else if (S.range() && p.y >= AXIS_H) {
      const z = S.state.zoom;
      ctx.actions.setRange(z.length ? z[z.length - 1] : null);
    }
  }

  // The sample under the pointer (the Firefox Profiler's tooltip): the call stack in force at
  // that time on that thread (api/trace-stack: the thread's last sample at or before it, as
  // 'profview trace --context N --at T' prints), leaf first; whether the query keeps it.
  hoverSample(index, t, cx, cy) {
    const gen = ++this.sampleGen;
    clearTimeout(this.sampleTimer);
    this.sampleTimer = setTimeout(async () => {
      const params = [...S.queryParams(null, { noRange: true, noThread: true }), ['context', index], ['at', Math.round(t * 1e6)]];
      let st;
      try {
        st = await api('trace-stack', params);
      } catch (err) {
        return;
      }
      if (gen !== this.sampleGen) return;
      const frames = st.frames.filter((f) => f.depth !== null);
      this.sample = st.record === null || !frames.length ? null : { index, t, st, frames };
      const head = `${fmtMs(t - ctx.profile.start)} · ${this.trackLabel(index)}`;
      if (!this.sample) { showTooltip(cx, cy, head + '\n(no sample)'); return; }
      const box = h('div', { class: 'sample-tip' },
        h('div', { class: 'dim', text: `${head} · sample at ${fmtMs(st.start - ctx.profile.start)}${st.shown ? '' : ' · left out by the query'}` }),
        h('div', { class: 'stack', text: frames.slice().reverse().map((f) => f.name).join('\n') }),
        h('div', { class: 'dim', text: 'click: select this call node in the top-down tree' }));
      showTooltip(cx, cy, box);
      moveTooltip(cx, cy);
    }, 40);
  }

  // The top-down row key of the hovered sample's stack: its code frames' functions from the
  // root (a plain tree; with a center, the frames after the last one the center names).
  sampleKey() {
    const s = this.sample;
    if (!s) return null;
    let fr = s.frames;
    const cs = S.centers();
    if (cs.length) {
      let last = -1;
      fr.forEach((f, i) => { if (cs.includes(f.scope) || cs.includes(f.function)) last = i; });
      if (last < 0) return null;
      return ['c', ...fr.slice(last + 1).map((f) => 'f' + f.id)].join('/');
    }
    if ((S.get1('by') || 'function') !== 'function') return null;
    return fr.map((f) => 'f' + f.id).join('/');
  }

  markerAt(p) {
    if (!this.full || p.x < LABEL_W) return null;
    const tr = this.trackAt(p.y);
    if (!tr || tr.yIn > MARK_H + 3) return null;
    let best = null;
    for (const m of this.full.overview || []) {
      if (m.thread !== tr.th.index) continue;
      const x0 = this.x(m.start, p.width);
      const x1 = m.end === null || m.end === undefined ? x0 + 1 : Math.max(x0 + 1, this.x(m.end, p.width));
      if (p.x >= x0 - 2 && p.x <= x1 + 2 && (!best || (x1 - x0) < best.w)) best = { m, w: x1 - x0 };
    }
    return best ? best.m : null;
  }

  async onHover(e) {
    if (this.drag) return;
    const p = this.pos(e);
    const m = this.markerAt(p);
    this.canvas.style.cursor = p.x < LABEL_W ? 'pointer' : 'crosshair';
    if (!m) {
      this.hoverI = null;
      const tr = p.x >= LABEL_W && this.full && p.y >= AXIS_H ? this.trackAt(p.y) : null;
      if (tr) {
        const t = this.t(p.x, p.width);
        showTooltip(e.clientX, e.clientY, fmtMs(t - ctx.profile.start));
        this.hoverSample(tr.th.index, t, e.clientX, e.clientY);
      } else {
        this.sample = null;
        hideTooltip();
      }
      return;
    }
    this.hoverI = m.i;
    const cx = e.clientX, cy = e.clientY;
    showTooltip(cx, cy, m.name);
    try {
      const full = await fetchMarker(m.i);
      if (this.hoverI !== m.i) return;
      showTooltip(cx, cy, markerDetails(full, true));
      moveTooltip(cx, cy);
    } catch (err) { /* the short tooltip stays */ }
  }
}

// The timeline's graph shows every sample of the chosen metric (no filter, no center).
// One thread's activity graph: per bucket, its categories stacked from the bottom. One path
// per colour (a few fills instead of a fillRect and a fillStyle per bucket and category: the
// graph of a long profile has tens of thousands of those, a visible stall on every redraw).
function drawStacked(c, buckets, x0, bw, gy, gh, max, colors, other) {
  const paths = new Map();
  const w = Math.ceil(bw);
  for (let i = 0; i < buckets.length; i++) {
    let acc = 0;
    const x = x0 + i * bw;
    for (const [cat, v] of buckets[i]) {
      const hh = (v / max) * gh;
      const col = colors[cat] || other;
      let p = paths.get(col);
      if (!p) paths.set(col, (p = new Path2D()));
      p.rect(x, gy + gh - acc - hh, w, hh);
      acc += hh;
    }
  }
  for (const [col, p] of paths) {
    c.fillStyle = col;
    c.fill(p);
  }
}

function processKey(info) {
  if (!info) return '';
  return info.pid !== null && info.pid !== undefined ? 'pid ' + info.pid : 'process ' + (info.process || '');
}

function onlyMetric(params) {
  return params.filter(([k]) => k === 'metric' || k === 'p');
}
