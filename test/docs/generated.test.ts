// The generated parts of the docs (docs/elements.md's reference, docs/troubleshooting.md's codes,
// docs/operations.md's defaults, docs/webhooks.md's delivery sentence, docs/server-api.md's routes) and the
// OpenAPI document are what `npm run docs` makes from their sources today. When this fails, run
// `npm run docs` and commit what it wrote.
import { describe, expect, it } from 'vitest';
import { buildManifest } from '../../scripts/docs/elements.js';
import { BLOCKS, generated } from '../../scripts/docs/generate.js';
import { PROXY_ERROR_CODES } from '../../src/protocol/codes.js';
import { readDoc } from './markdown.js';

describe('generated docs', () => {
  it('are up to date with their sources (npm run docs)', async () => {
    const stale = (await generated()).filter((f) => f.current !== f.next).map((f) => f.path);
    expect(stale).toEqual([]);
  }, 60_000);

  it("name every attribute, event, part and state of the elements' manifest, so a new one cannot go undocumented", async () => {
    const manifest = await buildManifest();
    const reference = readDoc(BLOCKS.elements!.doc);
    const declarations = manifest.modules.flatMap((m) => (m as { declarations?: Record<string, unknown>[] }).declarations ?? []).filter((d) => d.customElement && d.tagName);
    expect(declarations.map((d) => d.tagName).sort()).toEqual(['checkout-button', 'otp-verify', 'pay-by-mobile']);
    for (const d of declarations) {
      const names = ['attributes', 'events', 'cssParts', 'cssStates'].flatMap((k) => ((d[k] as { name: string }[] | undefined) ?? []).map((x) => x.name));
      for (const name of names) expect(reference, `${d.tagName as string}: ${name}`).toContain(`\`${name}\``);
    }
  }, 60_000);

  it('troubleshooting has a section on every error code of the protocol, each with the log and the fix', () => {
    const page = readDoc('docs/troubleshooting.md');
    for (const code of PROXY_ERROR_CODES) {
      const section = new RegExp(`^### \`${code}\`\\n\\n([\\s\\S]*?)(?=^### |(?![\\s\\S]))`, 'm').exec(page)?.[1] ?? '';
      expect(section, code).toMatch(/\*\*Log\*\*/);
      expect(section, code).toMatch(/\*\*Fix\*\*/);
    }
  });
});
