import type { Plugin } from 'vite';

/** Lit's three modules that carry the hooks. */
const LIT = /\/node_modules\/(lit-html\/lit-html|@lit\/reactive-element\/reactive-element|lit-element\/lit-element)\.js$/;
/**
 * `code` with the messages of the errors Lit throws at its caller's misuse (a template literal's strings
 * array forged, a CSSResult constructed): the CDN files export no Lit, so only the elements' own code could
 * cause them, and their tests would.
 */
const noMessages = (code: string) => code.replace(/\bError\("[^"]*"\)/g, 'Error()');

/**
 * What of reactive-element serves other classes than ours, each piece as Lit's production build writes it:
 * the decorators' initializers (`static addInitializer`, copied to subclasses and run by each constructor:
 * the elements declare `static properties`, no decorator), and the default converter's JSON for properties
 * of type Object or Array (each of ours is a string, a number, a boolean, or set as a property only); the
 * decorators' metadata (`Symbol.metadata`, `litPropertyMetadata`: where `@property` records its options, read
 * by `finalize`); and the `useDefault` option (an attribute's removal restoring a property's initial value,
 * kept in `_$Ej`), which no property of ours sets. Each pair: the piece, and what replaces it.
 */
const UNUSED_BY_OURS = [
  ['static addInitializer(t){this._$Ei(),(this.l??=[]).push(t)}', ''],
  ['void 0!==t.l&&(this.l=[...t.l]),', ''],
  [',this.constructor.l?.forEach(t=>t(this))', ''],
  ['case Object:case Array:t=null==t?t:JSON.stringify(t)', ''],
  ['case Object:case Array:try{i=JSON.parse(t)}catch(t){i=null}', ''],
  ['Symbol.metadata??=Symbol("metadata"),a.litPropertyMetadata??=new WeakMap;', ''],
  ['const t=this[Symbol.metadata];if(null!==t){const s=litPropertyMetadata.get(t);if(void 0!==s)for(const[t,i]of s)this.elementProperties.set(t,i)}', ''],
  ['useDefault:!1,', ''],
  ['this[e]=r??this._$Ej?.get(e)??r', 'this[e]=r'],
  ['||i.useDefault&&i.reflect&&h===this._$Ej?.get(t)&&!this.hasAttribute(r._$Eu(t,i))', ''],
  [
    '{useDefault:i,reflect:e,wrapped:h},r){i&&!(this._$Ej??=new Map).has(t)&&(this._$Ej.set(t,r??s??this[t]),!0!==h||void 0!==r)||(this._$AL.has(t)||(this.hasUpdated||i||(s=void 0)',
    '{reflect:e}){(this._$AL.has(t)||(this.hasUpdated||(s=void 0)',
  ],
] as const;

/**
 * What of lit-html serves the `svg` and `mathml` template tags (the wrapping of such a template's markup, and
 * its unwrapping): the elements' templates are all `html`, and the CDN files export no Lit to tag others.
 */
const UNUSED_IN_TEMPLATES = [
  ['l=2===i?"<svg>":3===i?"<math>":""', 'l=""'],
  ['+(2===i?"</svg>":3===i?"</math>":"")', ''],
  [',2===i||3===i){const t=this.el.content.firstChild;t.replaceWith(...t.childNodes)}', ',0);'],
] as const;

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
 * And what of reactive-element no class of ours uses (`UNUSED_BY_OURS`), and of lit-html no template of ours
 * (`UNUSED_IN_TEMPLATES`).
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
      if (id.endsWith('/reactive-element.js')) {
        for (const [piece, by] of UNUSED_BY_OURS) {
          if (!code.includes(piece)) throw new Error(`lit-hooks-off: ${piece} is not where it was in ${id}`);
          code = code.replace(piece, by);
        }
      }
      if (id.endsWith('/lit-html.js')) {
        for (const [piece, by] of UNUSED_IN_TEMPLATES) {
          if (!code.includes(piece)) throw new Error(`lit-hooks-off: ${piece} is not where it was in ${id}`);
          code = code.replace(piece, by);
        }
      }
      let out = code.replace(/\(\w+\.(litHtml|reactiveElement)Versions\s*\?\?=\s*\[\]\)\.push\("[^"]*"\)/g, '0');
      out = out.replace(/\w+\.(lit(Html|Element)PolyfillSupport|reactiveElementPolyfillSupport|litElementHydrateSupport)\b/g, '(void 0)');
      if (/(litHtml|reactiveElement)Versions|PolyfillSupport/.test(out) || out == code) throw new Error(`lit-hooks-off: Lit's hooks are not where they were in ${id}`);
      return { code: noMessages(out), map: null };
    },
  };
}
