// hpcviewer's per-thread plot: the selected row's cost on each thread (api/thread-costs),
// one bar per thread (total light, self dark), thread names on the left.
import { h, clear, sizeCanvas, fmtCost, fitText } from '../util.js';

export function renderThreadPlot(el, data, metricIndex, unit) {
  clear(el);
  const threads = data.threads || [];
  if (!threads.length) {
    el.append(h('div', { class: 'dim', text: 'No thread has this row.' }));
    return;
  }
  const m = metricIndex || 0;
  const max = Math.max(1e-12, ...threads.map((t) => t.total[m] || 0));
  const barH = threads.length > 40 ? 8 : 14;
  const gap = threads.length > 40 ? 1 : 3;
  const labelW = threads.length > 40 ? 0 : 90;
  const valueW = 62;
  const width = Math.max(200, el.clientWidth || 290);
  const height = threads.length * (barH + gap) + 4;
  const canvas = h('canvas');
  el.append(canvas);
  const ctx = sizeCanvas(canvas, width, height);
  ctx.font = '10.5px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const plotW = width - labelW - valueW - 8;
  threads.forEach((t, i) => {
    const y = 2 + i * (barH + gap);
    const tot = t.total[m] || 0, self = t.self[m] || 0;
    if (labelW) {
      ctx.fillStyle = '#4a4a4f';
      ctx.textAlign = 'left';
      ctx.fillText(fitText(ctx, t.name || `#${t.index}`, labelW - 4), 0, y + barH / 2);
    }
    ctx.fillStyle = '#e0e0e6';
    ctx.fillRect(labelW, y, plotW, barH);
    ctx.fillStyle = '#8fc3ff';
    ctx.fillRect(labelW, y, (plotW * tot) / max, barH);
    ctx.fillStyle = '#0a84ff';
    ctx.fillRect(labelW, y, (plotW * self) / max, barH);
    if (barH >= 10) {
      ctx.fillStyle = '#0c0c0d';
      ctx.textAlign = 'right';
      ctx.fillText(fmtCost(tot, unit), width - 2, y + barH / 2);
    }
  });
  const n = threads.filter((t) => (t.total[m] || 0) > 0).length;
  const vals = threads.map((t) => t.total[m] || 0);
  const mean = vals.reduce((a, b) => a + b, 0) / vals.length;
  el.append(h('div', { class: 'dim', style: { marginTop: '3px' } },
    `${n} of ${threads.length} threads · max ${fmtCost(max, unit)} · mean ${fmtCost(Math.round(mean * 1000) / 1000, unit)} · `,
    h('span', { style: { color: '#0a84ff' }, text: '■' }), ' self ',
    h('span', { style: { color: '#8fc3ff' }, text: '■' }), ' total'));
}
