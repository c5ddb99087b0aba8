import type { Plugin } from 'vite';

/** Lit's three modules that carry the hooks. */
const LIT = /\/node_modules\/(lit-html\/lit-html|@lit\/reactive-element\/reactive-element|lit-element\/lit-element)\.js$/;
/**
 * `code` with the messages of the errors Lit throws at its caller's misuse (a template literal's strings
 * array forged, a CSSResult constructed): the CDN files export no Lit, so only the elements' own code could
 * cause them, and their tests would.
 */
const noMessages = (code: string) => code.replace(/\bError\("[^"]*"\)/g, 'Error()');

/** Lit's module of styles, and its test of constructable style sheets. */
const CSS_TAG = /\/node_modules\/@lit\/reactive-element\/css-tag\.js$/;
const ADOPTS = /=(\w+)\.ShadowRoot&&\(void 0===\1\.ShadyCSS\|\|\1\.ShadyCSS\.nativeShadow\)&&"adoptedStyleSheets"in Document\.prototype&&"replace"in CSSStyleSheet\.prototype/;

/**
 * Drops from the Lit bundled in the CDN files what serves other pages than ours: lit-html and
 * reactive-element pushing their versions onto global lists (read only by Lit's development build and by
 * devtools; `litElementVersions` stays, the one list that says how many Lits a page runs, which the loader's
 * test counts) and the hooks a page's polyfill or SSR hydration script installs before Lit loads
 * (`litHtmlPolyfillSupport`, `reactiveElementPolyfillSupport`, `litElementPolyfillSupport`: the ShadyDOM
 * polyfill, for browsers without shadow DOM, which lack the ElementInternals and AbortSignal.any the elements
 * need anyway; `litElementHydrateSupport`: @lit-labs/ssr-client, for Lit rendered on the server, which these
 * elements are not). And Lit's test for constructable style sheets is taken as passed, so its fallback (a
 * `<style>` per shadow root, for browsers without `adoptedStyleSheets` or with the ShadyCSS polyfill) goes:
 * every browser with the custom states the elements set (`ElementInternals.states`) adopts style sheets.
 * Each pattern must be found in its module: a Lit release that changes them fails the build rather than
 * keep them silently.
 */
export function litHooksOff(): Plugin {
  return {
    name: 'merchant-elements:lit-hooks-off',
    transform(code, id) {
      if (CSS_TAG.test(id)) {
        if (!ADOPTS.test(code)) throw new Error(`lit-hooks-off: Lit's test of adoptedStyleSheets is not where it was in ${id}`);
        return { code: noMessages(code.replace(ADOPTS, '=!0')), map: null };
      }
      if (!LIT.test(id)) return null;
      let out = code.replace(/\(\w+\.(litHtml|reactiveElement)Versions\s*\?\?=\s*\[\]\)\.push\("[^"]*"\)/g, '0');
      out = out.replace(/\w+\.(lit(Html|Element)PolyfillSupport|reactiveElementPolyfillSupport|litElementHydrateSupport)\b/g, '(void 0)');
      if (/(litHtml|reactiveElement)Versions|PolyfillSupport/.test(out) || out == code) throw new Error(`lit-hooks-off: Lit's hooks are not where they were in ${id}`);
      return { code: noMessages(out), map: null };
    },
  };
}
