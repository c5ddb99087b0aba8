// A React single-page app as `npm create vite` makes one (React, TypeScript, @vitejs/plugin-react) with one
// wrapper, `merchant-elements/react/pay-by-mobile`: type-checked strictly, built by `vite build`, served by
// its own Express backend with the proxy on the same origin; a customer pays and the page's callback runs.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshSecrets, type Child } from './child-process.js';
import { launchChromium } from '../journeys/shop-browser.js';
import { appFolder, paysOnSinglePageApp, runBin, SPA_BACKEND, startBackend, startInstalledSandbox } from './consumer-world.js';

const APP = {
  'package.json': '{ "name": "react-shop", "private": true, "type": "module" }\n',
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2022', lib: ['ES2023', 'DOM', 'DOM.Iterable'], module: 'ESNext', moduleResolution: 'bundler', jsx: 'react-jsx',
      strict: true, noEmit: true, isolatedModules: true, skipLibCheck: false, types: [],
    },
    include: ['src'],
  }),
  'vite.config.ts': `import react from '@vitejs/plugin-react';
    import { defineConfig } from 'vite';
    export default defineConfig({ plugins: [react()] });
  `,
  'index.html': `<!doctype html><html lang="en"><head><link rel="icon" href="data:,"><title>Shop</title></head>
    <body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>`,
  'src/main.tsx': `import { useEffect, useState } from 'react';
    import { createRoot } from 'react-dom/client';
    import { PayByMobile } from 'merchant-elements/react/pay-by-mobile';

    function Checkout() {
      const [order, setOrder] = useState<{ reference: string; token: string }>();
      const [paid, setPaid] = useState<string>();
      useEffect(() => {
        fetch('/api/payment-token', { method: 'POST' }).then((res) => res.json()).then(setOrder);
      }, []);
      if (paid) return <p role="status">Paid: order {paid}.</p>;
      if (!order) return <p>Loading…</p>;
      return <PayByMobile token={order.token} amount={12.5} currency="GHS" onPaymentCompleted={(e) => setPaid(e.detail.orderReference)} />;
    }

    createRoot(document.getElementById('root')!).render(<Checkout />);
  `,
  'backend.mjs': SPA_BACKEND,
};

const secrets = freshSecrets();
let sandbox: Awaited<ReturnType<typeof startInstalledSandbox>>;
let backend: Child & { url: string };
let browser: Browser;
let built: string;

beforeAll(async () => {
  const dir = await appFolder('react-vite', APP);
  await runBin('tsc', ['-p', 'tsconfig.json'], dir);
  built = await runBin('vite', ['build'], dir);
  [sandbox, browser] = await Promise.all([startInstalledSandbox(), launchChromium()]);
  backend = await startBackend(dir, sandbox.url, secrets);
});

afterAll(async () => {
  await browser?.close();
  await backend?.stop();
  await sandbox?.close();
});

it('builds without a word about the wrappers’ directive, and the page pays with its one element', async () => {
  // @vitejs/plugin-react knows 'use client' (a Next.js directive that means nothing to a Vite bundle).
  expect(built).not.toMatch(/use client|warning/i);
  const { page, errors } = await paysOnSinglePageApp(browser, backend.url);
  // One wrapper's entry registers its own element only.
  expect(await page.evaluate(() => ['otp-verify', 'pay-by-mobile', 'checkout-button'].filter((tag) => customElements.get(tag)))).toEqual(['pay-by-mobile']);
  expect(errors).toEqual([]);
  await page.close();
});
