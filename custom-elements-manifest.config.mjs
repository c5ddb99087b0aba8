// `npm run analyze`: custom-elements.json from the elements' JSDoc contracts (attributes, properties,
// events, parts, CSS properties, custom states), for Storybook docs and the React wrappers.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The analyzer's Lit support lists every entry of `static properties` as an attribute, internal reactive
 * state (`{ state: true }`) included: drop those, with what the elements inherit. It also reads the base
 * class's `emit(type, detail)` as an event named `type`: the real events are in each element's JSDoc.
 */
function litInternalState() {
  const internal = new Map(); // class name -> names of its `{ state: true }` properties
  return {
    name: 'lit-internal-state',
    analyzePhase({ ts, node }) {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      for (const member of node.members) {
        const isStatic = member.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
        if (!isStatic || member.name?.getText() !== 'properties' || !member.initializer) continue;
        for (const prop of member.initializer.properties ?? []) {
          const options = prop.initializer?.properties ?? [];
          if (options.some((o) => o.name?.getText() === 'state' && o.initializer.kind === ts.SyntaxKind.TrueKeyword)) {
            if (!internal.has(node.name.text)) internal.set(node.name.text, new Set());
            internal.get(node.name.text).add(prop.name.getText());
          }
        }
      }
    },
    packageLinkPhase({ customElementsManifest }) {
      for (const mod of customElementsManifest.modules) {
        for (const decl of mod.declarations ?? []) {
          const isInternal = (name, from) => internal.get(from ?? decl.name)?.has(name);
          decl.attributes = decl.attributes?.filter((a) => !isInternal(a.fieldName ?? a.name, a.inheritedFrom?.name));
          decl.events = decl.events?.filter((e) => e.name !== 'type');
          for (const m of decl.members ?? []) if (isInternal(m.name, m.inheritedFrom?.name)) delete m.attribute;
        }
      }
    },
  };
}

/**
 * Only what a page may use: the analyzer lists private and protected members too (an element's state
 * machine, its proxy client, the base classes' plumbing), which Storybook's docs and editors' completions
 * would offer as if they were API.
 */
function publicMembersOnly() {
  const internal = (m) => m.privacy === 'private' || m.privacy === 'protected' || m.name?.startsWith('#');
  return {
    name: 'public-members-only',
    packageLinkPhase({ customElementsManifest }) {
      for (const mod of customElementsManifest.modules) {
        for (const decl of mod.declarations ?? []) {
          if (decl.members) decl.members = decl.members.filter((m) => !internal(m));
        }
      }
    },
  };
}

/**
 * The modules in one order, whatever the file system's: globby lists files as its walk meets them, which
 * differs between two runs on one checkout, and the manifest's module order with it (so two builds of one
 * commit packed different bytes). Sorted by path, parsed as the analyzer itself does.
 */
export function modulesInPathOrder({ ts, globs }) {
  return [...globs].sort().map((glob) => ts.createSourceFile(glob, readFileSync(resolve(glob), 'utf8'), ts.ScriptTarget.ES2015, true));
}

export default {
  globs: ['src/elements/**/*.ts'],
  exclude: ['src/elements/**/*.test.ts'],
  outdir: '.',
  litelement: true,
  plugins: [litInternalState(), publicMembersOnly()],
  overrideModuleCreation: modulesInPathOrder,
};
