import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { transform } from 'esbuild';
import ts from 'typescript';
import type { Plugin } from 'vite';
import { ROOT } from './bundles.js';

/** Lit's production modules as the browser builds bundle them: a name they use is never renamed. */
const LIT_FILES = ['lit-html/lit-html.js', '@lit/reactive-element/reactive-element.js', '@lit/reactive-element/css-tag.js', 'lit-element/lit-element.js'];

const words = (text: string) => text.match(/[A-Za-z_$][\w$]*/g) ?? [];

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((f) => f.isFile() && f.name.endsWith('.ts'))
    .map((f) => join(f.parentPath, f.name));
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** True for the text of an `html` tagged template. */
function inHtml(node: ts.Node) {
  let tagged = node.parent;
  while (tagged && (ts.isTemplateSpan(tagged) || ts.isTemplateExpression(tagged))) tagged = tagged.parent;
  return !!tagged && ts.isTaggedTemplateExpression(tagged) && tagged.tag.getText() == 'html';
}

/**
 * What a node may name a property by: an identifier; a string or a template's text that is a name as a
 * whole (`changed.has('name')`, `tokenClaims(token)['msisdn']`, `'OTPCredential' in window`); in an `html`
 * template, the name of a property binding (`.name=${…}`). Not the words of other text (`part=check-button`,
 * an event's type, a sentence): no code reads a property by them.
 */
function names(node: ts.Node): string[] {
  if (ts.isIdentifier(node)) return [node.text];
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) {
    if (inHtml(node)) return [...node.text.matchAll(/\.([A-Za-z_$][\w$]*)/g)].map((m) => m[1]!);
    return IDENTIFIER.test(node.text) ? [node.text] : [];
  }
  return [];
}

/** True for the object of a Lit element's `static properties = {…}`. */
const declaresProperties = (object: ts.Node) =>
  ts.isPropertyDeclaration(object.parent) && ts.isIdentifier(object.parent.name) && object.parent.name.text === 'properties' && has(object.parent, ts.SyntaxKind.StaticKeyword);

const has = (node: ts.Node, kind: ts.SyntaxKind) => ts.canHaveModifiers(node) && !!ts.getModifiers(node)?.some((m) => m.kind === kind);

/**
 * The elements' members that only the elements' own code names: declared `private` or `protected` (not
 * `override`: Lit calls those by name) in a class of src/elements, and named nowhere else that could reach
 * them from outside: not a public member of any class there, not a field of an interface or type there (an
 * event's detail, a note in storage) nor a key of an object literal (a strings table, which a page's
 * `strings` and translations override by name), not a string there that is a name as a whole nor a property
 * binding of a template (see {@link names}), not a name in src/protocol
 * (what the proxy sends and reads), not a word of Lit's code nor of the DOM's and JavaScript's
 * declarations (TypeScript's libraries). Names of one or two characters gain nothing.
 */
export function internalMembers(): string[] {
  const { candidates, reserved } = memberNames();
  return [...candidates].filter((name) => name.length > 2 && !reserved.has(name)).sort();
}

/** The private and protected members of the elements' classes, and every name that holds one back (see {@link internalMembers}). */
export function memberNames(): { candidates: Set<string>; reserved: Set<string> } {
  const candidates = new Set<string>();
  const reserved = new Set<string>();
  for (const file of sources(`${ROOT}src/elements`)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const name = (node as { name?: ts.Node }).name;
      const text = name && ts.isIdentifier(name) ? name.text : undefined;
      if (text && (ts.isClassElement(node) || ts.isParameter(node))) {
        const hidden = has(node, ts.SyntaxKind.PrivateKeyword) || has(node, ts.SyntaxKind.ProtectedKeyword);
        if (hidden && !has(node, ts.SyntaxKind.OverrideKeyword)) candidates.add(text);
        else if (ts.isClassElement(node)) reserved.add(text);
      }
      // A field of an interface or type, a key of an object literal (a strings table, which pages override).
      // (Not the keys of `static properties`: there Lit declares the members themselves.)
      if (text && (ts.isTypeElement(node) || (ts.isObjectLiteralExpression(node.parent) && !declaresProperties(node.parent)))) reserved.add(text);
      if (!ts.isIdentifier(node)) names(node).forEach((w) => reserved.add(w));
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  for (const file of sources(`${ROOT}src/protocol`)) {
    const visit = (node: ts.Node): void => (names(node).forEach((w) => reserved.add(w)), ts.forEachChild(node, visit));
    visit(ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true));
  }
  for (const file of LIT_FILES) words(readFileSync(`${ROOT}node_modules/${file}`, 'utf8')).forEach((w) => reserved.add(w));
  // The DOM's and JavaScript's own (`reader.read()`, `form.reset()`): every member TypeScript's libraries declare,
  // one a line (`  readonly name: …`, `  name(…): …`).
  const libs = dirname(createRequire(import.meta.url).resolve('typescript/lib/lib.dom.d.ts'));
  for (const file of readdirSync(libs).filter((f) => /^lib\..*\.d\.ts$/.test(f))) {
    for (const [, name] of readFileSync(join(libs, file), 'utf8').matchAll(/^\s+(?:readonly\s+)?(?:[gs]et\s+)?["']?([A-Za-z_$][\w$]*)["']?\??\s*[:(<]/gm)) reserved.add(name!);
  }
  return { candidates, reserved };
}

/** What follows the `$` of a renamed member: 64 names of two characters before any of three. */
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$';

/**
 * Renames the elements' internal members (see {@link internalMembers}) in the minified builds, the same way
 * in every build and chunk: `$` and one character (a letter, a digit, `_` or `$`) or two, the most used first, which no name of Lit or of
 * the DOM takes. Not in the npm build (an application's bundler minifies it, and its readers read it), nor
 * in the tests, which run src.
 */
export function mangleMembers(): Plugin {
  // The most used first: past 64 names, the rarely used take the names of three characters.
  const text = sources(`${ROOT}src/elements`).map((file) => readFileSync(file, 'utf8')).join('\n');
  const uses = (name: string) => text.split(new RegExp(`\\b${name}\\b`)).length;
  const names = internalMembers()
    .map((name) => [name, uses(name)] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([name]) => name);
  const cache = Object.fromEntries(names.map((name, i) => [name, `$${i >= LETTERS.length ? LETTERS[Math.floor(i / LETTERS.length) - 1] : ''}${LETTERS[i % LETTERS.length]}`]));
  const lit = new Set(LIT_FILES.flatMap((file) => words(readFileSync(`${ROOT}node_modules/${file}`, 'utf8'))));
  const taken = Object.values(cache).filter((short) => lit.has(short));
  if (taken.length) throw new Error(`mangled names that Lit uses: ${taken.join(', ')}`);
  const mangleProps = new RegExp(`^(${names.join('|')})$`);
  return {
    name: 'merchant-elements:mangle-members',
    enforce: 'post',
    transform: {
      filter: { id: /[\\/]src[\\/]elements[\\/].*\.ts$/ },
      async handler(code) {
        const result = await transform(code, { loader: 'js', mangleProps, mangleCache: { ...cache }, mangleQuoted: false });
        return { code: result.code, map: null };
      },
    },
  };
}
