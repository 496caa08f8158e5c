// The files the server was given (api/status): which one the page opens, the loading screen's
// list and the top bar's file menu. The page never waits on a file that failed: without a p
// in the URL it opens the first file that loads (one that failed is passed over, its error kept
// in the menu); with one it opens that file, or shows why it cannot beside every other file's
// state, each loaded one a link to open it.
import { api } from './api.js';
import { h, clear, fmtBytes } from './util.js';

const $ = (id) => document.getElementById(id);

// The profile to open from the server's files (api/status "files"): the asked one (the URL's
// p), else the first that loads. {p} to open, {wait: true} while that depends on a file still
// loading, {fail: "one line"} when none can be opened.
export function pickFile(files, asked) {
  // the importer's line names the file (or a file in its folder) already
  const why = (f) => (f.error && f.error.startsWith(f.path) ? f.error : `${f.path}: ${f.error || 'could not be loaded'}`);
  if (asked !== null) {
    const f = files[asked];
    if (!f) return { fail: `no profile ${asked}: the server has ${files.length}` };
    if (f.state === 'ready') return { p: asked };
    if (f.state === 'failed') return { fail: why(f) };
    return { wait: true };
  }
  for (let i = 0; i < files.length; i++) {
    if (files[i].state === 'ready') return { p: i };
    if (files[i].state !== 'failed') return { wait: true };
  }
  if (files.length === 1) return { fail: why(files[0]) };
  return { fail: `none of the ${files.length} files could be loaded` };
}

// The URL of the page on file i (its own query: another profile's filters may not apply).
export function fileUrl(i) {
  return location.pathname + (i ? `?p=${i}` : '?p=0');
}

function pctOf(f) {
  return f.total ? Math.min(100, (100 * f.done) / f.total) : (f.state === 'ready' ? 100 : 0);
}

// One line of a file's state: "loaded", "parsing · 3.2MB of 10MB · 32.0%", "failed: ...".
export function fileState(f) {
  if (f.state === 'failed') return `failed: ${f.error || 'could not be loaded'}`;
  if (f.state === 'ready') return `loaded · ${fmtBytes(f.total || f.done || 0)}`;
  const pct = pctOf(f);
  return `${f.phase || f.state} · ${fmtBytes(f.done || 0)} of ${fmtBytes(f.total || 0)} · ${pct.toFixed(1)}%`;
}

// The loading screen's list: every file with its progress and state; with links, a loaded
// file other than current opens on click (the page could not open the one asked for).
export function renderLoading(files, current, links) {
  const list = clear($('loading-files'));
  files.forEach((f, i) => {
    const row = h('div', { class: 'load-file', dataset: { state: f.state, i } },
      h('div', { class: 'load-path', text: f.path }),
      h('div', { class: 'progress' + (f.state === 'failed' ? ' failed' : '') }, h('div', { style: { width: pctOf(f).toFixed(1) + '%' } })),
      h('div', { class: 'load-info' + (f.state === 'failed' ? ' load-error' : ''), text: fileState(f) }));
    if (links && f.state === 'ready' && i !== current) {
      row.querySelector('.load-info').append(' · ', h('a', { href: fileUrl(i), class: 'file-open', text: 'open it' }));
    }
    list.append(row);
  });
}

// The top bar's file menu (several files): a button naming how many loaded, a panel listing
// each file's state and error; a loaded file other than the open one is a link.
export class FileMenu {
  constructor(current) {
    this.current = current;
    this.files = [];
    this.button = $('file-button');
    this.panel = $('file-menu');
    this.button.addEventListener('click', (e) => {
      e.stopPropagation();
      this.panel.hidden ? this.open() : this.close();
    });
    document.addEventListener('mousedown', (e) => {
      if (!this.panel.hidden && !this.panel.contains(e.target) && e.target !== this.button) this.close();
    });
    document.addEventListener('keydown', (e) => { if (e.key === 'Escape') this.close(); });
  }

  open() {
    this.render();
    const r = this.button.getBoundingClientRect();
    this.panel.hidden = false;
    this.panel.style.top = r.bottom + 2 + 'px';
    this.panel.style.left = Math.max(4, Math.min(r.left, window.innerWidth - this.panel.offsetWidth - 4)) + 'px';
  }
  close() { this.panel.hidden = true; }

  // files: api/status "files"; the menu shows itself when there are several (or one failed)
  set(files) {
    this.files = files;
    const n = files.length;
    this.button.hidden = n < 2;
    const failed = files.filter((f) => f.state === 'failed').length;
    const loading = files.filter((f) => f.state === 'loading').length;
    this.button.textContent = `${this.current + 1} of ${n} files` + (failed ? ` · ${failed} failed` : '') + (loading ? ` · ${loading} loading` : '');
    this.button.classList.toggle('has-failed', failed > 0);
    if (!this.panel.hidden) this.render();
  }

  render() {
    const p = clear(this.panel);
    this.files.forEach((f, i) => {
      const name = f.path.split('/').pop() || f.path;
      const here = i === this.current;
      const title = f.state === 'ready' && !here
        ? h('a', { href: fileUrl(i), class: 'file-open', text: name, title: `Open ${f.path}` })
        : h('span', { class: here ? 'file-current' : '', text: name, title: f.path });
      p.append(h('div', { class: 'file-row', dataset: { state: f.state, i } },
        h('span', { class: 'file-dot ' + f.state, 'aria-hidden': 'true' }),
        h('div', { class: 'file-text' }, title, here ? h('span', { class: 'dim', text: ' (open)' }) : null,
          h('div', { class: 'file-state' + (f.state === 'failed' ? ' load-error' : ''), text: fileState(f) }))));
    });
  }
}

// Polls api/status until no file is loading, calling onFiles(files) with each answer.
export async function watchFiles(onFiles) {
  for (;;) {
    let st;
    try {
      st = await api('status');
    } catch (e) {
      return;
    }
    const files = st.files || [];
    onFiles(files);
    if (!files.some((f) => f.state === 'loading')) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
}
