// cdn/loader.js, the one script a shop puts on every page:
//
//   <script type="module" src="https://…/merchant-elements/cdn/loader.js"></script>
//
// It defines each element the first time its tag appears, in the document or in a shadow root, by importing
// that element's module from its own folder (so the folder may be served under any path); the element
// modules share one chunk, Lit included, fetched once. An element whose language is French (its `lang`, the
// nearest `lang` around it, else `<html lang>`, as the elements themselves read it) also brings `fr.js`.
// It exports nothing and adds no global: the elements' own API is theirs (events, properties).

/** The file name of the chunk the element modules share (hashed by content), set by the build. */
declare const SHARED_CHUNK: string;

const TAGS = ['otp-verify', 'pay-by-mobile', 'checkout-button'];
const SELECTOR = TAGS.join();
const loads: Record<string, Promise<unknown> | undefined> = {};

/** Imports a file of the loader's folder once; a failed one is tried again when a tag next appears. */
function load(file: string): Promise<unknown> {
  return (loads[file] ??= import(new URL(file, import.meta.url).href).catch((e: unknown) => {
    loads[file] = undefined;
    console.error(`merchant-elements: could not load ${file}`, e);
  }));
}

/** One of our tags is in a tree: its module, and French when its words are French. */
function found(el: HTMLElement) {
  if (/^fr\b/i.test(el.lang || el.closest<HTMLElement>('[lang]')?.lang || document.documentElement.lang)) {
    // An element defined before French arrived rendered in English: it renders again.
    void load('fr.js').then(() => (el as { requestUpdate?(): void }).requestUpdate?.());
  }
  if (!customElements.get(el.localName)) {
    // Asked for beside the element's module, which imports it: both on their way at once.
    void load(SHARED_CHUNK);
    void load(`${el.localName}.js`);
  }
}

/** Every tag of ours at or under `node`. */
function discover(node: ParentNode) {
  if ((node as Element).matches?.(SELECTOR)) found(node as HTMLElement);
  node.querySelectorAll<HTMLElement>(SELECTOR).forEach(found);
}

// Added nodes, and a `lang` changed on the way to an element (French may now be wanted).
const observer = new MutationObserver((records) => {
  for (const record of records) {
    if (record.type == 'attributes') discover(record.target as Element);
    else record.addedNodes.forEach((node) => node.nodeType == 1 && discover(node as Element));
  }
});

function observe(root: Document | ShadowRoot) {
  observer.observe(root, { childList: true, subtree: true, attributeFilter: ['lang'] });
  discover(root);
}

// A MutationObserver does not see into shadow roots: each root attached from now on is observed as well
// (ours excepted: they hold none of these tags), and the open roots already there are found below.
const attachShadow = Element.prototype.attachShadow;
Element.prototype.attachShadow = function (this: Element, init: ShadowRootInit) {
  const root = attachShadow.call(this, init);
  if (!TAGS.includes(this.localName)) observe(root);
  return root;
};

const walk = (root: Document | ShadowRoot) => {
  observe(root);
  root.querySelectorAll('*').forEach((el) => el.shadowRoot && walk(el.shadowRoot));
};
walk(document);
