import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildManifest, elementsBlock, END, START, withElementsBlock } from '../../scripts/readme-elements.js';

describe('README element reference', () => {
  it('matches what the custom-elements manifest says of each element', async () => {
    const manifest = await buildManifest();
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    // When this fails, run `npm run readme:elements` and commit the README.
    expect(withElementsBlock(readme, elementsBlock(manifest))).toBe(readme);
  }, 60_000);

  it('lists every attribute, event, part and state of the manifest, so a new one cannot go undocumented', async () => {
    const manifest = await buildManifest();
    const block = elementsBlock(manifest);
    const declarations = manifest.modules.flatMap((m) => m.declarations ?? []).filter((d) => d.customElement && d.tagName);
    expect(declarations.map((d) => d.tagName).sort()).toEqual(['checkout-button', 'otp-verify', 'pay-by-mobile']);
    for (const d of declarations) {
      for (const name of [...(d.attributes ?? []), ...(d.events ?? []), ...(d.cssParts ?? []), ...(d.cssStates ?? [])].map((x) => x.name)) {
        expect(block).toContain(`\`${name}\``);
      }
    }
    expect(block.startsWith(START) && block.endsWith(END)).toBe(true);
  }, 60_000);
});
