import { unsafeCSS } from 'lit';

// Written compactly on purpose (strings are not minified; the size budget counts every byte), a rule a line
// (the minifier joins the lines).
// Logical properties only, so right-to-left pages work; 44px targets for thumbs on small phones.
/** Layout, controls, focus rings and motion shared by the elements. */
const BASE =
  ':host{--d-accent:#1d4ed8;--d-radius:8px;--d-surface:#fff;--d-text:#1b1f24;--d-danger:#b42318;--d-success:#067647}' +
  '@media(prefers-color-scheme:dark){:host{--d-accent:#8ab4f8;--d-surface:#1f2328;--d-text:#e6edf3;--d-danger:#ffb4a9;--d-success:#6ee7a8}}' +
  ':host{display:block;font-family:var(--font);color:var(--text);line-height:1.5}' +
  ':host([hidden]){display:none}' +
  '*{box-sizing:border-box;font:inherit;margin:0}' +
  'form,div{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}' +
  '.field{flex:1 1 12rem}' +
  'label{font-weight:600}' +
  'input,button{min-block-size:44px;padding-inline:.75rem;border:1px solid;border-radius:var(--radius)}' +
  'input{inline-size:100%;background:var(--surface);color:inherit}' +
  'button{font-weight:600;color:var(--surface);background:var(--accent);border-color:var(--accent);cursor:pointer}' +
  '.link{color:var(--accent);background:none;border-color:#0000;text-decoration:underline;padding-inline:0;font-weight:400}' +
  '.links{flex:1 1 100%;gap:0 .75rem;font-size:.9375em;align-items:center}' +
  '.links>*{min-block-size:36px}' +
  ':disabled{opacity:.6}' +
  ':focus-visible{outline:3px solid var(--accent);outline-offset:2px}' +
  'p{margin-block-start:.5rem}' +
  'p:empty{margin:0}' +
  '[part~=error-message]{color:var(--danger)}' +
  '[aria-invalid=true]{border-color:var(--danger)}' +
  '.ok{color:var(--success)}' +
  '.spin::before{content:"";display:inline-block;width:1em;height:1em;margin-inline-end:.5em;vertical-align:-.15em;border:2px solid;border-inline-end-color:#0000;border-radius:50%;animation:spin 1s linear infinite}' +
  '@keyframes spin{to{transform:rotate(1turn)}}' +
  '@media(prefers-reduced-motion:reduce){*,::before{transition:none!important;animation:none!important}}';

/**
 * An element's styles, one sheet: its theme, where for each token an internal property (`--accent`) is taken
 * from the element's own (`--otp-verify-accent`), else the library's (`--me-accent`), else the default of
 * the base styles (`--d-accent`), light or dark after `prefers-color-scheme`; the base styles; then `own`.
 * `font` has no default: unset, the element inherits the page's. Plain strings, not Lit's `css` tag: the
 * text is ours and static, and the tag's checks cost bytes on every page.
 */
export const elementStyles = (tag: string, own: string) =>
  unsafeCSS(
    `:host{${'accent radius font surface text danger success'
      .split(' ')
      .map((k) => `--${k}:var(--${tag}-${k},var(--me-${k},var(--d-${k})))`)
      .join(';')}}${BASE}${own}`,
  );
