// The README's TypeScript and JavaScript snippets, type-checked as a reader would paste them, against the
// package's types (every `merchant-elements/…` specifier mapped to its source entry, whose declarations are
// what the package ships). A snippet that uses names the README calls the reader's own (`orders`,
// `findOrder`) gets them from its prelude below; anything else undefined, misspelt or mistyped fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;

/** `merchant-elements/<subpath>` to its source entry, as package.json's `exports` maps it to dist. */
const ENTRIES: Record<string, string> = {
  'merchant-elements': 'src/elements/index.ts',
  'merchant-elements/otp-verify': 'src/elements/otp-verify/index.ts',
  'merchant-elements/pay-by-mobile': 'src/elements/pay-by-mobile/index.ts',
  'merchant-elements/checkout-button': 'src/elements/checkout-button/index.ts',
  'merchant-elements/translations/fr': 'src/elements/translations/fr.ts',
  'merchant-elements/react': 'src/react/index.ts',
  'merchant-elements/vue': 'src/vue/index.ts',
  'merchant-elements/proxy': 'src/proxy/index.ts',
  'merchant-elements/provider': 'src/provider/index.ts',
  'merchant-elements/sandbox': 'src/sandbox/index.ts',
};

/**
 * The reader's own names, by a line of the snippet that needs them: what the README's text says is yours
 * (your order store, your human check, your router's `navigate`), or what it says comes from elsewhere
 * (the `app` and `proxy` of the proxy's example).
 */
const PRELUDES: [marker: string, prelude: string][] = [
  [
    "from 'merchant-elements/react';",
    `declare const otpToken: string, checkoutToken: string, order: { token: string; total: number };
     declare function signIn(proof: string): void;
     declare function navigate(path: string): void;
     declare function refresh(): void;`,
  ],
  [
    '<pay-by-mobile token={order.token}',
    `import type {} from 'merchant-elements/react';
     declare const order: { token: string; total: number };
     declare function navigate(path: string): void;`,
  ],
  ["vue({ template:", "import vue from '@vitejs/plugin-vue';"],
  [
    "app.post('/api/payment-token'",
    `import express from 'express';
     import type { MerchantProxy } from 'merchant-elements/proxy';
     declare const app: express.Express, proxy: MerchantProxy;
     declare function findOrder(id: string): Promise<{ total: number; reference: string }>;`,
  ],
  [
    "import { Webhook } from 'standardwebhooks';",
    `import type { WebhookData } from 'merchant-elements/proxy';
     interface Tx { markPaid(orderReference: string, snapshot: WebhookData['snapshot']): Promise<void>; rememberWebhook(id: string): Promise<void> }
     declare const app: import('express').Express;
     declare const db: { webhookSeen(id: string): Promise<boolean>; transaction(work: (tx: Tx) => Promise<void>): Promise<void> };`,
  ],
  ["export default defineConfig({", "import { defineConfig } from 'vite';"],
  [
    "app.use('/merchant-elements', proxy.router);",
    `interface Order { total: number; reference: string }
     declare const orders: {
       seen(key: string): Promise<boolean>;
       markPayment(orderReference: string, status: string, reference: string): Promise<void>;
       current(req: import('express').Request): Promise<Order>;
     };
     declare function verifyTurnstile(token: string | string[] | undefined): Promise<boolean>;`,
  ],
];

interface Snippet {
  line: number;
  lang: string;
  code: string;
}

/** Fenced ts, tsx and js blocks of the README (not the env.d.ts line, which needs an install to resolve). */
function snippets(readme: string): Snippet[] {
  const found: Snippet[] = [];
  for (const m of readme.matchAll(/^```(tsx?|js)\n([\s\S]*?)^```/gm)) {
    if (m[2]!.startsWith('// env.d.ts')) continue;
    found.push({ line: readme.slice(0, m.index).split('\n').length, lang: m[1]!, code: m[2]! });
  }
  return found;
}

describe('README snippets', () => {
  it('type-check against the package types, the reader’s own names declared', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const files = new Map<string, string>();
    for (const s of snippets(readme)) {
      const prelude = PRELUDES.filter(([marker]) => s.code.includes(marker)).map(([, p]) => p);
      // The prelude on one line, so that an error's line number is the README's own (block line + n).
      const text = `${prelude.join(' ').replace(/\s*\n\s*/g, ' ')}\n${s.code}\nexport {};\n`;
      files.set(join(ROOT, `README.md.line-${s.line + 1}.${s.lang == 'js' ? 'js' : s.lang == 'tsx' || /<[a-z-]+ /i.test(s.code) ? 'tsx' : 'ts'}`), text);
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
        const block = Number(/line-(\d+)/.exec(d.file!.fileName)![1]);
        return `README.md:${block + line - 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    // A name the README says is the reader's: add it to PRELUDES; anything else is the README to fix.
    expect(problems).toEqual([]);
  }, 60_000);
});
