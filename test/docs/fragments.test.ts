// The docs' `check` fragments that are not whole programs (a guide's test runs those): TypeScript and
// JavaScript type-checked as a reader would paste them, against the package's types (every
// `merchant-elements/…` specifier mapped to its source entry, whose declarations the package ships); HTML
// opened in Chromium with the CDN build, where every element must upgrade and render and every attribute
// written on it must be one the element declares; and csp.md's recommended header, which must be the
// policy test/proof/browser-security.test.ts runs the three elements under.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCdnIife } from '../../demo/server/cdn-build.js';
import { buildManifest } from '../../scripts/docs/elements.js';
import { strictCsp } from '../proof/browser-shop.js';
import { chromiumLaunchOptions } from '../support/chromium.mjs';
import { blocksOf, checkBlock, type CodeBlock, DOCS, kindOf, ROOT } from './markdown.js';

/** `merchant-elements/<subpath>` to its source entry, as package.json's `exports` maps it to dist. */
const ENTRIES: Record<string, string> = {
  'merchant-elements': 'src/elements/index.ts',
  'merchant-elements/otp-verify': 'src/elements/otp-verify/index.ts',
  'merchant-elements/pay-by-mobile': 'src/elements/pay-by-mobile/index.ts',
  'merchant-elements/checkout-button': 'src/elements/checkout-button/index.ts',
  'merchant-elements/translations/fr': 'src/elements/translations/fr.ts',
  'merchant-elements/react': 'src/react/index.ts',
  'merchant-elements/react/otp-verify': 'src/react/otp-verify.ts',
  'merchant-elements/react/pay-by-mobile': 'src/react/pay-by-mobile.ts',
  'merchant-elements/react/checkout-button': 'src/react/checkout-button.ts',
  'merchant-elements/vue': 'src/vue/index.ts',
  'merchant-elements/proxy': 'src/proxy/index.ts',
  'merchant-elements/provider': 'src/provider/index.ts',
  'merchant-elements/sandbox': 'src/sandbox/index.ts',
};

const checked = (lang: string): CodeBlock[] => DOCS.flatMap((doc) => blocksOf(doc).filter((b) => b.lang === lang && kindOf(b) === 'check'));

describe('the docs’ fragments', () => {
  it('TypeScript and JavaScript ones type-check against the package’s types, as pasted', () => {
    const files = new Map<string, string>();
    for (const b of [...checked('ts'), ...checked('tsx'), ...checked('js')]) {
      files.set(join(ROOT, `${b.doc}.line-${b.line + 1}.${b.lang}`), `${b.code}\nexport {};\n`);
    }
    expect(files.size).toBeGreaterThanOrEqual(8);
    const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const options: ts.CompilerOptions = {
      ...config.options,
      noEmit: true,
      allowJs: true,
      checkJs: true,
      paths: Object.fromEntries(Object.entries(ENTRIES).map(([spec, file]) => [spec, [join(ROOT, file)]])),
    };
    const host = ts.createCompilerHost(options);
    const { fileExists, readFile } = host;
    host.fileExists = (f) => files.has(f) || fileExists(f);
    host.readFile = (f) => files.get(f) ?? readFile(f);
    const program = ts.createProgram([...files.keys()], options, host);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && files.has(d.file.fileName))
      .map((d) => {
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start!);
        const [, doc, first] = /^(.*)\.line-(\d+)\.\w+$/.exec(d.file!.fileName.slice(ROOT.length))!;
        return `${doc}:${Number(first) + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
    // A whole program type-checked: a minute on an idle machine's core, several on a busy one.
  }, 300_000);

  it("csp.md's recommended policy is the one the elements are proven to run under", () => {
    expect(checkBlock('docs/csp.md', 'http').code.trim()).toBe(`Content-Security-Policy: ${strictCsp()}`);
  });

  describe('HTML ones, in Chromium with the CDN build', () => {
    let browser: Browser;
    let server: Server;
    let base: string;
    const blocks = checked('html');

    beforeAll(async () => {
      const [script] = await Promise.all([buildCdnIife()]);
      server = createServer((req, res) => {
        if (req.url === '/merchant-elements.iife.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
        const block = blocks[Number(/^\/block\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1)];
        if (!block) return void res.writeHead(404).end();
        // A block that loads no script of its own gets the CDN build, as its page would.
        const head = block.code.includes('merchant-elements.iife.js') ? '' : '<script src="/merchant-elements.iife.js" defer></script>';
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html lang="en"><head>${head}</head><body>${block.code}</body></html>`);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      browser = await chromium.launch(chromiumLaunchOptions());
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => server?.close(resolve));
    });

    it('each element upgrades and renders, and every attribute written on it is one it declares', async () => {
      expect(blocks.length).toBeGreaterThanOrEqual(3);
      const manifest = await buildManifest();
      const declared = new Map<string, Set<string>>();
      for (const d of manifest.modules.flatMap((m) => (m as { declarations?: { tagName?: string; attributes?: { name: string }[] }[] }).declarations ?? [])) {
        if (d.tagName) declared.set(d.tagName, new Set((d.attributes ?? []).map((a) => a.name)));
      }
      const problems: string[] = [];
      const page = await browser.newPage();
      page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
      for (const [i, block] of blocks.entries()) {
        await page.goto(`${base}/block/${i}`);
        await page.waitForFunction(() => [...document.querySelectorAll('*')].filter((e) => e.localName.includes('-')).every((e) => customElements.get(e.localName)));
        const found = await page.evaluate(() =>
          [...document.querySelectorAll('*')]
            .filter((e) => e.localName.includes('-'))
            .map((e) => ({ tag: e.localName, attributes: e.getAttributeNames(), rendered: !!e.shadowRoot?.childElementCount })),
        );
        if (found.length === 0) problems.push(`${block.doc}:${block.line}: no element`);
        for (const el of found) {
          if (!el.rendered) problems.push(`${block.doc}:${block.line}: <${el.tag}> did not render`);
          const own = declared.get(el.tag) ?? new Set();
          for (const name of el.attributes.filter((a) => !own.has(a) && !['id', 'class', 'style'].includes(a))) {
            problems.push(`${block.doc}:${block.line}: <${el.tag} ${name}> is no attribute of the element`);
          }
        }
      }
      expect(problems).toEqual([]);
    }, 60_000);
  });
});
