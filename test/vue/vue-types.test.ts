import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildManifest } from '../../scripts/docs/elements.js';
import { VUE_TYPES, vueTypes } from '../../scripts/vue-types.js';

describe('merchant-elements/vue', () => {
  it('is what the custom-elements manifest says of each element (npm run vue:types)', async () => {
    const manifest = await buildManifest();
    // When this fails, run `npm run vue:types` and commit src/vue/index.ts.
    expect(vueTypes(manifest as never)).toBe(await readFile(VUE_TYPES, 'utf8'));
  }, 60_000);
});
