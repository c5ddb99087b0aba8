/** Small helpers for the sandbox's HTML pages (hosted checkout, phone). */

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes a value for HTML text and double- or single-quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/**
 * Tagged template that escapes every interpolated value, except `RawHtml` (the output of another `html`
 * call) and arrays of it.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): RawHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new RawHtml(out);
}

/** Markup that is already safe (built by `html`). */
export class RawHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

function render(value: unknown): string {
  if (value instanceof RawHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(value);
}

export interface PageOptions {
  title: string;
  /**
   * Seconds between the page's reads of itself (see {@link WATCH_SCRIPT}), none when absent. Never a
   * `<meta http-equiv="refresh">`: that reloads the page under a reader's feet, loses focus and scroll.
   */
  watchSeconds?: number;
  /** Extra CSS appended to the shared base. */
  css?: string;
}

const BASE_CSS = `
  :root { color-scheme: light dark; --accent: #0b6e4f; --on-accent: #fff; --muted: #666; --danger: #b3261e; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, sans-serif; background: Canvas; color: CanvasText; }
  main { max-width: 28rem; margin: 2rem auto; padding: 1.5rem; }
  h1 { font-size: 1.4rem; margin: 0 0 .5rem; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input { width: 100%; padding: .6rem; font: inherit; border: 1px solid #888; border-radius: .4rem; }
  button { font: inherit; padding: .6rem 1.2rem; border-radius: .4rem; border: 1px solid var(--accent); cursor: pointer; }
  button.primary { background: var(--accent); color: var(--on-accent); }
  button.secondary { background: transparent; color: inherit; border-color: #888; }
  button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; }
  .muted { color: var(--muted); }
  .error { color: var(--danger); font-weight: 600; }
  .actions { display: flex; gap: .75rem; margin-top: 1.25rem; flex-wrap: wrap; }
  .actions form { margin: 0; }
  @media (prefers-color-scheme: dark) { :root { --accent: #3fb68b; --on-accent: #0d1a14; --muted: #aaa; --danger: #f2b8b5; } }
`;

/**
 * A watched page reads itself again every few seconds and, when its `<main>` changed, puts the new content in
 * place: no reload, no flash, focus and scroll kept (a focused button found again by its form's action). A
 * redirect (a settled checkout going back to the merchant, often on another origin) is followed by reloading. Without script, the page's
 * {@link refreshLink} does the same by hand.
 */
const watchScript = (ms: number) => `
const main = document.querySelector('main');
const strip = (root) => root.querySelectorAll('.refresh-link').forEach((p) => p.remove());
strip(document);
setTimeout(async function read() {
  try {
    // Not followed here: the redirect goes to the merchant's return URL, usually another origin, which a fetch
    // may not read (CORS); reloading lets the browser follow it as a navigation.
    const res = await fetch(location.href, { cache: 'no-store', redirect: 'manual', headers: { accept: 'text/html' } });
    if (res.type == 'opaqueredirect') return location.reload();
    const next = new DOMParser().parseFromString(await res.text(), 'text/html').querySelector('main');
    if (next) strip(next);
    if (res.ok && next && next.innerHTML != main.innerHTML) {
      const form = main.contains(document.activeElement) ? document.activeElement.closest('form') : null;
      main.innerHTML = next.innerHTML;
      if (form) [...main.querySelectorAll('form')].find((f) => f.action == form.action)?.querySelector('button')?.focus();
    }
  } catch {}
  setTimeout(read, ${ms});
}, ${ms});
`;

/** The link that reads a watched page again where script does not run (the script removes it). */
export const refreshLink = html`<p class="refresh-link"><a href="">Refresh</a></p>`;

/** A complete, small HTML document. */
export function page(options: PageOptions, body: RawHtml): string {
  const refresh = options.watchSeconds === undefined ? '' : html`<script type="module">${new RawHtml(watchScript(options.watchSeconds * 1000))}</script>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${refresh}
<title>${options.title}</title>
<style>${new RawHtml(BASE_CSS + (options.css ?? ''))}</style>
</head>
<body>
${body}
</body>
</html>
`.value;
}
