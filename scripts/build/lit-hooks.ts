import type { Plugin } from 'vite';

/** Lit's three modules that carry the hooks. */
const LIT = /\/node_modules\/(lit-html\/lit-html|@lit\/reactive-element\/reactive-element|lit-element\/lit-element)\.js$/;

/**
 * Drops from the Lit bundled in the CDN files what serves other pages than ours: each module pushing its
 * version onto a global list (read only by Lit's development build, to warn of two Lits on a page, and by
 * devtools) and the hooks a page's polyfill or SSR hydration script installs before Lit loads
 * (`litHtmlPolyfillSupport`, `reactiveElementPolyfillSupport`, `litElementPolyfillSupport`: the ShadyDOM
 * polyfill, for browsers without shadow DOM, which lack the ElementInternals and AbortSignal.any the elements
 * need anyway; `litElementHydrateSupport`: @lit-labs/ssr-client, for Lit rendered on the server, which these
 * elements are not). Every figure of `npm run check:size` loses about 100 B gzip. Each pattern must be found
 * in its module: a Lit release that changes them fails the build rather than keep them silently.
 */
export function litHooksOff(): Plugin {
  return {
    name: 'merchant-elements:lit-hooks-off',
    transform(code, id) {
      if (!LIT.test(id)) return null;
      let out = code.replace(/\(\w+\.\w+Versions\s*\?\?=\s*\[\]\)\.push\("[^"]*"\)/g, '0');
      out = out.replace(/\w+\.(lit(Html|Element)PolyfillSupport|reactiveElementPolyfillSupport|litElementHydrateSupport)\b/g, '(void 0)');
      if (out.includes('Versions') || out.includes('PolyfillSupport') || out == code) throw new Error(`lit-hooks-off: Lit's hooks are not where they were in ${id}`);
      return { code: out, map: null };
    },
  };
}
