/**
 * The frame of every page: navigation, the live-update control and the one inline script, which
 * listens to the server's events and swaps in the page's `<main>` when the store changed (unless
 * paused, or a form in it is being filled in). The script and the style carry the request's nonce,
 * the only ones the Content-Security-Policy lets run.
 */
import { GRAPH_STYLE } from './graph-layout.js';
import { html, Html } from './html.js';

export interface PageFrame {
  readonly title: string;
  /** Where the studio is mounted (`''` at the root): every link starts with it. */
  readonly base: string;
  readonly nonce: string;
  /** The store's version the page shows: the script refreshes when the server announces another. */
  readonly version: number;
  readonly current: 'runs' | 'inbox' | 'run' | 'start';
  readonly readOnly: boolean;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{display:flex;gap:1.5rem;align-items:center;padding:.6rem 1.2rem;background:#1f2937;color:#fff}
header a{color:#fff}header nav{display:flex;gap:1rem}header .live{margin-left:auto;display:flex;gap:.6rem;align-items:center}
main{padding:1rem 1.2rem;max-width:1200px}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
pre{background:#f3f3f3;padding:.5rem;overflow:auto;max-height:24rem;margin:.2rem 0}
.status-succeeded{color:#146c2e}.status-failed{color:#b00020}.status-waiting{color:#8a5a00}.status-cancelled{color:#555}
.filters{display:flex;flex-wrap:wrap;gap:.8rem;align-items:end;margin-bottom:1rem}.filters label{display:flex;flex-direction:column}
.field{margin:.5rem 0;display:flex;flex-direction:column;max-width:28rem}.field input[type=checkbox]{align-self:flex-start}
.description{color:#555;font-size:.9em}.error{background:#ffe3e3;border:1px solid #b00020;padding:.5rem;margin:.5rem 0}
.notice{background:#e7f5ff;border:1px solid #1c7ed6;padding:.5rem;margin:.5rem 0}
fieldset{margin:.5rem 0}.graph text.id{font:600 13px system-ui}.graph text.state,.graph text.label{font:12px system-ui;fill:#333}
.graph .edge{fill:none;stroke:#444;marker-end:url(#arrow)}.graph .edge.taken{stroke-width:2.5}.graph .edge.not-taken{stroke:#999;stroke-dasharray:5 4}
.graph .frame{fill:#f5f7fa;stroke:#9aa5b1;stroke-dasharray:3 3}.legend{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;padding:0}.legend li{display:flex;gap:.3rem;align-items:center}.card{background:#fff;border:1px solid #ddd;padding:.8rem;margin:.8rem 0}
${GRAPH_STYLE}
`;

const SCRIPT = `
(() => {
  const main = document.querySelector('main');
  const button = document.getElementById('pause');
  const status = document.getElementById('live-status');
  let paused = false, stale = false, dirty = false;
  document.addEventListener('input', () => { dirty = true; });
  button.addEventListener('click', () => {
    paused = !paused;
    button.setAttribute('aria-pressed', String(paused));
    status.textContent = paused ? 'Live updates paused' : 'Live';
    if (!paused && stale) refresh();
  });
  async function refresh() {
    stale = false;
    const response = await fetch(location.href, { credentials: 'same-origin' });
    if (!response.ok) return;
    const next = new DOMParser().parseFromString(await response.text(), 'text/html').querySelector('main');
    if (!next) return;
    main.replaceWith(next);
    status.textContent = 'Live: updated ' + new Date().toLocaleTimeString();
  }
  // A form's lists: add a blank item (its template, the index filled in), remove one, renumber the labels.
  const renumber = (list) => [...list.children].forEach((item, index) =>
    item.querySelectorAll('[data-n]').forEach((n) => { if (n.closest('[data-item]') === item) n.textContent = String(index + 1); }));
  document.addEventListener('click', (event) => {
    const add = event.target.closest('[data-add]');
    const remove = event.target.closest('[data-remove]');
    if (add) {
      const array = add.closest('[data-array]');
      const list = array.querySelector(':scope > [data-items]');
      const index = Number(list.dataset.next);
      list.dataset.next = String(index + 1);
      const blank = array.querySelector(':scope > template');
      const made = document.createElement('template');
      made.innerHTML = blank.innerHTML.split(list.dataset.placeholder).join(String(index));
      list.append(made.content);
      renumber(list);
      list.lastElementChild.querySelector('input,select,textarea,button')?.focus();
      dirty = true;
    } else if (remove) {
      const item = remove.closest('[data-item]');
      const list = item.parentElement;
      item.remove();
      renumber(list);
      list.closest('[data-array]').querySelector(':scope > [data-add]').focus();
      dirty = true;
    }
  });
  const events = new EventSource(document.body.dataset.events);
  events.onmessage = (event) => {
    const current = document.querySelector('main');
    if (event.data === current.dataset.version) return;
    if (paused) { stale = true; status.textContent = 'Live updates paused: the store changed'; return; }
    if (dirty && current.querySelector('form[data-answer]')) { status.textContent = 'The store changed: reload to see it (your form is kept until then)'; return; }
    refresh();
  };
})();
`;

/** A whole page around `body`. */
export function page(frame: PageFrame, body: Html): Html {
  const link = (to: 'runs' | 'inbox' | 'start', label: string) =>
    html`<a href="${frame.base}/${to}" ${frame.current === to ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${frame.title} &middot; toolgen studio</title>
        <style nonce="${frame.nonce}">
          ${new Html(STYLE)}
        </style>
      </head>
      <body data-events="${frame.base}/events">
        <header>
          <strong>toolgen studio</strong>
          <nav aria-label="Studio">${link('runs', 'Runs')}${link('inbox', 'Inbox')}${link('start', 'Start a run')}</nav>
          ${frame.readOnly ? html`<span>read-only</span>` : ''}
          <div class="live">
            <span id="live-status" role="status">Live</span
            ><button type="button" id="pause" aria-pressed="false">Pause live updates</button>
          </div>
        </header>
        <main data-version="${String(frame.version)}">${body}</main>
        <script nonce="${frame.nonce}">
          ${new Html(SCRIPT)};
        </script>
      </body>
    </html>`;
}
