import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPackage } from '../../scripts/check-package.js';
import { CEILINGS } from '../../scripts/check-size.js';
import { benchmarksBlock, reactWrappersBlock, wrapperSizes } from '../../scripts/measure-install.js';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { buildPackage, ROOT, runNode, runScript, type BuiltPackage } from './built-package.js';
import { deadLinks, importedPackages, packAndUnpack, reachableDeclarations, repositoryFiles, shipsTypes, type PackedTarball } from './packed-tarball.js';
import { chromiumLaunchOptions } from '../support/chromium.mjs';

/** Every code entry point, with names it must export. */
const ENTRY_POINTS: Record<string, string[]> = {
  '.': ['OtpVerify', 'PayByMobile', 'CheckoutButton', 'registerTranslation'],
  './otp-verify': ['OtpVerify'],
  './pay-by-mobile': ['PayByMobile'],
  './checkout-button': ['CheckoutButton'],
  './translations/fr': ['fr'],
  './react': ['OtpVerify', 'PayByMobile', 'CheckoutButton'],
  './react/otp-verify': ['OtpVerify'],
  './react/pay-by-mobile': ['PayByMobile'],
  './react/checkout-button': ['CheckoutButton'],
  './vue': [],
  './proxy': ['createMerchantProxy', 'configFromEnv'],
  './provider': ['createProviderClient'],
  './sandbox': ['startSandbox'],
};
const BROWSER_ENTRY_POINTS = ['.', './otp-verify', './pay-by-mobile', './checkout-button', './translations/fr'];
const TAGS = ['otp-verify', 'pay-by-mobile', 'checkout-button'];

/** `merchant-elements/react` for `./react`. */
const specifier = (entry: string) => `merchant-elements${entry.slice(1)}`;

let built: BuiltPackage;
const target = (entry: string, condition: 'types' | 'default') => {
  const value = built.pkg.exports[entry];
  return typeof value === 'string' ? value : value?.[condition];
};

beforeAll(async () => {
  built = await buildPackage();
}, 240_000);
afterAll(() => built?.remove());

describe('npm run build', () => {
  it('builds every entry point', () => {
    expect(built.build.stderr).toBe('');
    expect(built.build.code).toBe(0);
  });

  it('has a JavaScript file and a .d.ts for each entry point of `exports`', () => {
    // The CDN builds are files to serve, not modules to type (see the tarball's own tests below).
    const codeEntries = Object.keys(built.pkg.exports).filter((k) => !k.endsWith('.json') && !/^\.\/(dist\/)?cdn\//.test(k));
    expect(codeEntries).toEqual(Object.keys(ENTRY_POINTS));
    for (const entry of codeEntries) {
      expect(target(entry, 'types'), entry).toMatch(/\.d\.ts$/);
      expect(target(entry, 'default'), entry).toMatch(/\.js$/);
      for (const file of [target(entry, 'types')!, target(entry, 'default')!]) expect(existsSync(join(built.dir, file)), file).toBe(true);
    }
    const cdn = ['merchant-elements.js', 'merchant-elements.iife.js', 'loader.js', 'otp-verify.js', 'pay-by-mobile.js', 'checkout-button.js', 'fr.js'];
    for (const file of [...cdn.map((f) => `dist/cdn/${f}`), 'custom-elements.json']) {
      expect(existsSync(join(built.dir, file)), file).toBe(true);
    }
  });

  it('ships a custom-elements.json of the public API only: no private or protected member', () => {
    type Member = { name: string; privacy?: string };
    type Declaration = { tagName?: string; members?: Member[] };
    const manifest = JSON.parse(readFileSync(join(built.dir, 'custom-elements.json'), 'utf8')) as { modules: { declarations?: Declaration[] }[] };
    const declarations = manifest.modules.flatMap((m) => m.declarations ?? []);
    const members = declarations.flatMap((d) => d.members ?? []);
    expect(members.filter((m) => m.privacy === 'private' || m.privacy === 'protected' || m.name.startsWith('#'))).toEqual([]);
    const otp = declarations.find((d) => d.tagName === 'otp-verify');
    expect(otp?.members?.map((m) => m.name)).toEqual(expect.arrayContaining(['value', 'token', 'proxy', 'lang', 'state']));
  });

  it('imports every entry point in Node through the package name, and the sandbox runs from dist', async () => {
    // Run inside the package folder, so `merchant-elements/...` resolves through its own `exports`.
    const script = `
      const names = {};
      for (const s of ${JSON.stringify(Object.keys(ENTRY_POINTS).map(specifier))}) names[s] = Object.keys(await import(s));
      const registered = ${JSON.stringify(TAGS)}.filter((tag) => customElements.get(tag));
      const { startSandbox } = await import('merchant-elements/sandbox');
      const sandbox = await startSandbox();
      const status = (await fetch(sandbox.url + '/__sandbox/payments')).status;
      await sandbox.close();
      console.log(JSON.stringify({ names, registered, status }));`;
    const run = await runNode(['--input-type=module', '-e', script], built.dir, 30_000);
    expect(run.stderr).toBe('');
    const { names, registered, status } = JSON.parse(run.stdout);
    for (const [entry, expected] of Object.entries(ENTRY_POINTS)) expect(names[specifier(entry)], entry).toEqual(expect.arrayContaining(expected));
    // Lit's Node build shims customElements: importing an element entry registers it there too.
    expect(registered).toEqual(TAGS);
    expect(status).toBe(200);
  }, 40_000);

  it('a per-element React entry registers its element only, and bundles smaller than the three', async () => {
    const script = `
      await import('merchant-elements/react/checkout-button');
      console.log(JSON.stringify(${JSON.stringify(TAGS)}.filter((tag) => customElements.get(tag))));`;
    const run = await runNode(['--input-type=module', '-e', script], built.dir, 30_000);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual(['checkout-button']);

    // What an application's bundler (esbuild here) makes of an import, React left out, minified and gzipped:
    // CheckoutButton alone, from its own entry and from the one of all three, against all three used. The
    // figures docs/benchmarks.md gives are these (npm run measure:install writes them).
    const sizes = await wrapperSizes(built.dir);
    const { own, shaken, three } = sizes;
    expect(await benchmarksBlock('react-wrappers'), 'docs/benchmarks.md: run npm run measure:install').toBe(reactWrappersBlock(sizes));
    expect(three - own).toBeGreaterThan(3 * 1024);
    expect(three - shaken).toBeGreaterThan(3 * 1024);
  }, 40_000);

  it("marks every React module a client component: 'use client' first in each dist/react/*.js (Next.js renders them from server components)", () => {
    const modules = readdirSync(join(built.dir, 'dist/react')).filter((f) => f.endsWith('.js'));
    expect(modules).toEqual(expect.arrayContaining(['index.js', 'otp-verify.js', 'pay-by-mobile.js', 'checkout-button.js']));
    for (const file of modules) expect(readFileSync(join(built.dir, 'dist/react', file), 'utf8'), file).toMatch(/^(?:\/\/[^\n]*\n|\s)*["']use client["'];/);
    // Only the React modules: the elements are for any page, with a framework or none.
    expect(readFileSync(join(built.dir, 'dist/elements/index.js'), 'utf8')).not.toMatch(/use client/);
  });

  it('runs the CLI from the compiled package (no src/ there, no tsx)', async () => {
    const run = await runNode(['bin/merchant-elements.js', 'help'], built.dir, 30_000);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: merchant-elements <command>/);
  }, 40_000);

  it("gives a strict application's TypeScript (skipLibCheck off) the types of every entry point, and React 19 JSX the tags", async () => {
    await writeFile(
      join(built.dir, 'consumer.ts'),
      `import { OtpVerify, type OtpVerifiedEvent } from 'merchant-elements';
       import type { PayByMobile } from 'merchant-elements/pay-by-mobile';
       import type { CheckoutButton } from 'merchant-elements/checkout-button';
       import 'merchant-elements/otp-verify';
       import { fr } from 'merchant-elements/translations/fr';
       import { OtpVerify as OtpVerifyReact, type PaymentCompletedEvent } from 'merchant-elements/react';
       import { createMerchantProxy, type ProxyConfig } from 'merchant-elements/proxy';
       import { createProviderClient } from 'merchant-elements/provider';
       import { startSandbox, type StartedSandbox } from 'merchant-elements/sandbox';
       export const proof = (e: OtpVerifiedEvent): string => e.detail.proof;
       export const amount = (e: PaymentCompletedEvent): number => e.detail.amount;
       export const otp: OtpVerify = document.createElement('otp-verify');
       export const pay: PayByMobile | null = document.querySelector('pay-by-mobile');
       export const checkout: CheckoutButton | null = document.querySelector('checkout-button');
       document.addEventListener('otp-verified', (e) => proof(e));
       export const parts = [fr.send, OtpVerifyReact, createMerchantProxy, createProviderClient, startSandbox] as const;
       export type Parts = [ProxyConfig, StartedSandbox];
       // @ts-expect-error a payment-completed detail has no proof
       export const wrong = (e: PaymentCompletedEvent): string => e.detail.proof;`,
    );
    // The tags in a React 19 page, typed by merchant-elements/react's JSX declarations, beside the wrapper.
    await writeFile(
      join(built.dir, 'react-app.tsx'),
      `import type {} from 'merchant-elements/react';
       import { PayByMobile } from 'merchant-elements/react/pay-by-mobile';
       export const tag = <pay-by-mobile token="t" amount={12.5} currency="GHS" onpayment-completed={(e) => e.detail.amount.toFixed(2)} />;
       export const otp = <otp-verify token="t" name="proof" required onotp-verified={(e) => e.detail.proof.length} />;
       export const button = <checkout-button token="t" mode="popup" class="pay">Pay</checkout-button>;
       export const wrapper = <PayByMobile token="t" amount={12.5} onPaymentCompleted={(e) => e.detail.amount} />;
       // @ts-expect-error a misspelt attribute
       export const typo = <pay-by-mobile tokn="t" />;
       // @ts-expect-error a payment's detail has no proof
       export const wrong = <pay-by-mobile onpayment-completed={(e) => e.detail.proof} />;
       // @ts-expect-error mode is redirect, popup or tab
       export const mode = <checkout-button mode="window" />;
       // The wrappers' props are the documented API: the read-only state and Lit's internals are no props.
       // @ts-expect-error state is read-only, set by the element
       export const state = <PayByMobile state="completed" />;
       // @ts-expect-error a Lit internal
       export const internal = <PayByMobile requestUpdate={() => undefined} />;
       // @ts-expect-error a Lit internal
       export const root = <PayByMobile renderRoot={document.body} />;
       export const documented = <PayByMobile id="pay" className="wide" style={{ margin: 0 }} lang="fr" currency="GHS" timeout={60} lateInterval={5000} strings={{}} onPaymentBlocked={(e) => e.detail} />;
       // @ts-expect-error a misspelt prop
       export const misspelt = <PayByMobile tokn="t" />;`,
    );
    // skipLibCheck off, the strictest an application sets: every declaration the package ships is checked, and
    // an import of a package it does not depend on is an error rather than a silent `any`.
    const options = ['--jsx', 'react-jsx', '--module', 'nodenext', '--target', 'es2022', '--lib', 'es2023,dom,dom.iterable', '--types', 'node'];
    const tsc = join(built.dir, 'node_modules/typescript/bin/tsc');
    const run = await runNode([tsc, '--noEmit', '--strict', ...options, 'consumer.ts', 'react-app.tsx'], built.dir, 120_000);
    expect(run.stdout + run.stderr).toBe('');
  }, 130_000);

  it('keeps the elements within their size budgets (gzip -9 of minified bundles with Lit)', async () => {
    const run = await runScript('check-size.ts');
    process.stdout.write(run.stdout);
    expect(run.stdout).toMatch(/all three elements/);
    expect(run.stdout).not.toMatch(/OVER BUDGET/);
    expect(run.code).toBe(0);
    // A ceiling follows its figure down: one left more than 100 B above what it holds is lowered, never kept
    // as room to grow into.
    for (const [name, ceiling] of Object.entries(CEILINGS)) {
      const figure = Number(new RegExp(`^${name.replace(/[<>+:,]/g, '.')}\\s+\\d+\\s+(\\d+)`, 'm').exec(run.stdout)?.[1]);
      expect(ceiling - figure, `${name}: ${figure} B under a ceiling of ${ceiling} B`).toBeLessThanOrEqual(100);
    }
  }, 60_000);

  it('is publint clean and packs what users need and nothing else', async () => {
    const { files, problems } = await checkPackage(built.dir);
    expect(problems).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'bin/merchant-elements.js', 'custom-elements.json', 'dist/cdn/merchant-elements.iife.js']),
    );
    expect(files.filter((f) => /^(src|test|stories|demo|scripts|\.ci|node_modules)\/|\.map$|\.test\.|(?<!\.d)\.ts$/.test(f))).toEqual([]);
    // The browser package holds nothing of the server: that is merchant-elements-server's.
    expect(files.filter((f) => /^dist\/(proxy|provider|sandbox|cli)\/|^dist\/protocol\/(schemas|errors|index)\./.test(f))).toEqual([]);
  }, 60_000);

  it('builds merchant-elements-server beside it: publint clean, the Node half only, released with the same version', async () => {
    const { files, problems } = await checkPackage(built.serverDir);
    expect(problems).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'bin/merchant-elements-server.js', 'dist/proxy/index.js', 'dist/cli/main.js']));
    expect(files.filter((f) => /^dist\/(elements|react|cdn)\/|\.map$|(?<!\.d)\.ts$/.test(f))).toEqual([]);
    expect(built.serverPkg['version']).toBe(built.pkg['version']);
    expect((built.pkg['peerDependencies'] as Record<string, string>)['merchant-elements-server']).toBe(built.pkg['version']);
    // The server's dependencies are the checkout's (devDependencies there), with the same ranges.
    const dev = built.pkg['devDependencies'] as Record<string, string>;
    for (const [name, range] of Object.entries(built.serverPkg['dependencies'] as Record<string, string>)) expect(dev[name], name).toBe(range);
  }, 60_000);

  it('the browser package depends on Lit only (@lit/react is bundled into the React entries): a page-only install pulls nothing of the server', () => {
    expect(Object.keys(built.pkg['dependencies'] as object).sort()).toEqual(['lit', 'lit-html']);
  });
});

describe('the tarballs npm pack makes, unpacked', () => {
  let tarball: PackedTarball;
  let serverTarball: PackedTarball;
  beforeAll(async () => {
    serverTarball = await packAndUnpack(built.serverDir);
    tarball = await packAndUnpack(built.dir, { 'merchant-elements-server': serverTarball.dir });
    for (const [name, t] of [['merchant-elements', tarball], ['merchant-elements-server', serverTarball]] as const) {
      console.info(`npm pack ${name}: ${(t.size / 1024).toFixed(0)} kB, ${(t.unpackedSize / 1024).toFixed(0)} kB unpacked, ${t.files.length} files`);
    }
  }, 60_000);
  afterAll(async () => {
    await tarball?.remove();
    await serverTarball?.remove();
  });

  it('ship code and the guides as text, no picture or example shop; every link of their Markdown leads into the package', async () => {
    // The server's OpenAPI document ships (`merchant-elements-server/openapi.json`): a client generator reads
    // it from the installed package, at the version installed. The browser package ships the guides the
    // README links to as text (docs/*.md): on npm, in node_modules and on a CDN's file view they are there.
    const guides = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`).sort();
    const shipped = { [tarball.dir]: /^docs\/[\w-]+\.md$/, [serverTarball.dir]: /^openapi\.json$/ };
    for (const t of [tarball, serverTarball]) {
      const own = shipped[t.dir] as RegExp;
      expect(t.files.filter((f) => !own.test(f) && !/^(package\.json|README\.md|custom-elements\.json|bin\/[\w-]+\.js|dist\/.+\.(js|d\.ts))$/.test(f))).toEqual([]);
    }
    expect(tarball.files.filter((f) => f.endsWith('.md'))).toEqual(['README.md', ...guides]);
    expect(serverTarball.files.filter((f) => f.endsWith('.md'))).toEqual(['README.md']);
    // Pictures stay out of the package: a picture may be the repository's alone, any other link is dead
    // unless the package holds what it points at.
    const pictures = { root: ROOT, files: await repositoryFiles() };
    expect(await deadLinks(tarball.dir, ['README.md', ...guides], pictures)).toEqual([]);
    expect(await deadLinks(serverTarball.dir, ['README.md'], pictures)).toEqual([]);
    expect(readFileSync(join(tarball.dir, 'README.md'), 'utf8')).not.toMatch(/\.\.\/shared/);
  });

  it('are publint --strict clean', async () => {
    const publint = join(built.dir, 'node_modules/publint/src/cli.js');
    for (const t of [tarball, serverTarball]) {
      const run = await runNode([publint, 'run', t.file, '--strict'], t.dir, 60_000);
      expect(run.stdout + run.stderr).not.toMatch(/error|warning|suggestion/i);
      expect(run.code).toBe(0);
    }
  }, 70_000);

  it('are clean for @arethetypeswrong/cli in the node10, node16 (from ESM) and bundler resolutions; from CommonJS under node16 only "ESM, dynamic import only", which require(esm) lifts', async () => {
    const attw = join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js');
    for (const t of [tarball, serverTarball]) {
      // The CDN builds are files to serve, not typed modules.
      const cdn = t === tarball ? ['--exclude-entrypoints', 'cdn/merchant-elements.js', 'cdn/merchant-elements.iife.js', 'cdn/loader.js', 'cdn/fr.js'] : [];
      const run = await runNode([attw, t.file, '--format', 'json', '--ignore-rules', 'cjs-resolves-to-esm', ...cdn], t.dir, 60_000);
      const report = JSON.parse(run.stdout) as { analysis: { problems: { kind: string; entrypoint?: string; resolutionKind?: string }[] } };
      expect(report.analysis.problems.filter((p) => p.kind !== 'CJSResolvesToESM')).toEqual([]);
      // The one kind ignored is exactly the CommonJS-under-node16 case the README names.
      expect(new Set(report.analysis.problems.map((p) => p.resolutionKind))).toEqual(new Set(report.analysis.problems.length ? ['node16-cjs'] : []));
      expect(run.code, run.stderr).toBe(0);
    }
  }, 120_000);

  it('exports the CDN builds: import.meta.resolve finds merchant-elements/cdn/… and …/dist/cdn/… files', async () => {
    const specifiers = ['cdn/merchant-elements.js', 'cdn/merchant-elements.iife.js', 'cdn/loader.js', 'cdn/fr.js', 'dist/cdn/merchant-elements.js', 'dist/cdn/merchant-elements.iife.js', 'dist/cdn/pay-by-mobile.js'];
    const script = `
      const { existsSync } = await import('node:fs');
      const { fileURLToPath } = await import('node:url');
      const found = {};
      for (const s of ${JSON.stringify(specifiers)}) {
        try { found[s] = existsSync(fileURLToPath(import.meta.resolve('merchant-elements/' + s))); } catch (e) { found[s] = e.code; }
      }
      console.log(JSON.stringify(found));`;
    const run = await runNode(['--input-type=module', '-e', script], tarball.dir, 30_000);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual(Object.fromEntries(specifiers.map((s) => [s, true])));
  }, 40_000);

  /** The packages the declarations of `t`'s entry points import, and those it does not declare (or whose types it lacks). */
  async function declarationImports(t: PackedTarball) {
    const pkg = JSON.parse(readFileSync(join(t.dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const declared = new Set([...Object.keys(pkg['dependencies'] ?? {}), ...Object.keys(pkg['peerDependencies'] ?? {})]);
    const imported = new Set<string>();
    // A strict installer (pnpm) gives a package only what it declares: a type from a dependency's
    // dependency (lit-html's TemplateResult under lit) would silently be any there.
    for (const file of await reachableDeclarations(t.dir, pkg['exports'])) {
      for (const name of importedPackages(readFileSync(join(t.dir, file), 'utf8'))) if (!name.startsWith('node:')) imported.add(name);
    }
    const missing: string[] = [];
    for (const name of imported) {
      if (!declared.has(name)) missing.push(`${name} is no dependency`);
      else if (!(await shipsTypes(t.dir, name)) && !declared.has(`@types/${name}`)) missing.push(`${name} has no types and @types/${name} is no dependency`);
    }
    return { imported: [...imported], missing };
  }

  it('each depends on every package its entry points\' declarations import, with its types (express through @types/express)', async () => {
    const browser = await declarationImports(tarball);
    expect(browser.imported).toEqual(expect.arrayContaining(['lit', 'merchant-elements-server']));
    // The browser's declarations import nothing of the server's: zod's types stay in merchant-elements-server.
    expect(browser.imported.filter((name) => !/^(lit|lit-html|react|vue|merchant-elements-server)$/.test(name))).toEqual([]);
    expect(browser.missing).toEqual([]);
    const server = await declarationImports(serverTarball);
    expect(server.imported).toEqual(expect.arrayContaining(['express', 'zod']));
    expect(server.missing).toEqual([]);
  });

  it('without merchant-elements-server, the command says what to install (exit 2)', async () => {
    const alone = await mkdtemp(join(tmpdir(), 'merchant-elements-alone-'));
    try {
      await mkdir(join(alone, 'bin'));
      await copyFile(join(tarball.dir, 'bin/merchant-elements.js'), join(alone, 'bin/merchant-elements.js'));
      const run = await runNode(['bin/merchant-elements.js', 'sandbox'], alone, 30_000);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/npm install merchant-elements-server/);
      expect(run.stderr).toMatch(/npx merchant-elements-server sandbox/);
    } finally {
      await rm(alone, { recursive: true, force: true });
    }
  }, 40_000);

  it('offers no demo where it cannot run one: not listed, and asking for it says where it runs (exit 2)', async () => {
    expect(tarball.files.some((f) => f.startsWith('demo/'))).toBe(false);
    const help = await runNode(['bin/merchant-elements.js', 'help'], tarball.dir, 30_000);
    expect(help.stdout).not.toMatch(/^ {2}demo\b/m);
    expect(help.stdout).toMatch(/^ {2}sandbox\b/m);
    const demo = await runNode(['bin/merchant-elements.js', 'demo'], tarball.dir, 30_000);
    expect(demo.code).toBe(2);
    expect(demo.stderr).toMatch(/checkout of the merchant-elements repository/);
    expect(demo.stderr).toMatch(/merchant-elements sandbox/);
  }, 40_000);
});

describe('the browser builds in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    const importMap = {
      imports: {
        ...Object.fromEntries(BROWSER_ENTRY_POINTS.map((e) => [specifier(e), `/${target(e, 'default')!.replace(/^\.\//, '')}`])),
        // The application's one copy of Lit, which the npm build leaves external.
        lit: '/node_modules/lit/index.js',
        'lit/': '/node_modules/lit/',
        'lit-html': '/node_modules/lit-html/lit-html.js',
        'lit-html/': '/node_modules/lit-html/',
        'lit-element/': '/node_modules/lit-element/',
        '@lit/reactive-element': '/node_modules/@lit/reactive-element/reactive-element.js',
        '@lit/reactive-element/': '/node_modules/@lit/reactive-element/',
      },
    };
    const pages: Record<string, string> = {
      npm: `<script type="importmap">${JSON.stringify(importMap)}</script>
        <script type="module">${BROWSER_ENTRY_POINTS.map((e) => `import '${specifier(e)}';`).join('')}
          import { LitElement } from 'lit'; window.appLitElement = LitElement;</script>`,
      iife: '<script src="/dist/cdn/merchant-elements.iife.js"></script>',
      cdn: '<script type="module" src="/dist/cdn/merchant-elements.js"></script>',
    };
    const app = express();
    app.get('/page/:name', (req, res) => void res.type('html').send(`<!doctype html><html lang="en"><link rel="icon" href="data:,"><body>${pages[req.params.name]}</body></html>`));
    app.use(express.static(built.dir));
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      // The system's Chromium: nothing here may download a browser.
      ...chromiumLaunchOptions(),
    });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  /**
   * Opens a page, then reports the registered tags, whether an <otp-verify> rendered, how many copies of Lit
   * loaded, the IIFE's global, and whether the element extends the page's own LitElement (npm build).
   */
  async function open(name: string) {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    await page.goto(`${base}/page/${name}`);
    const seen = await page.evaluate(async (tags) => {
      const registered = tags.filter((tag) => customElements.get(tag));
      const otp = document.body.appendChild(document.createElement('otp-verify'));
      await otp.updateComplete;
      const rendered = !!otp.shadowRoot?.querySelector('[part~="send-button"]');
      const litCopies = (globalThis as { litElementVersions?: string[] }).litElementVersions?.length ?? 0;
      const global = Object.keys((globalThis as { MerchantElements?: object }).MerchantElements ?? {});
      const appLit = (globalThis as { appLitElement?: typeof HTMLElement }).appLitElement;
      const extendsAppLit = !!appLit && otp instanceof appLit;
      return { registered, rendered, litCopies, global, extendsAppLit };
    }, TAGS);
    await page.close();
    return { ...seen, errors };
  }

  it('the npm build registers and renders the elements with the application’s one Lit', async () => {
    const page = await open('npm');
    expect(page).toMatchObject({ errors: [], registered: TAGS, rendered: true, litCopies: 1, extendsAppLit: true });
  });

  it('the IIFE registers the three elements from a classic <script>, Lit inside', async () => {
    const page = await open('iife');
    expect(page).toMatchObject({ errors: [], registered: TAGS, rendered: true, litCopies: 1 });
    expect(page.global).toEqual(expect.arrayContaining(['OtpVerify', 'PayByMobile', 'CheckoutButton']));
  });

  it('the CDN module parses, has Lit inside (no import map) and registers the three elements', async () => {
    const page = await open('cdn');
    expect(page).toMatchObject({ errors: [], registered: TAGS, rendered: true, litCopies: 1 });
  });
});
