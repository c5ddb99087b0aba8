// An Express shop written in strict TypeScript (skipLibCheck off: every declaration the packages ship is
// checked) and compiled by tsc for Node's ES modules: it mounts the proxy, serves the elements' ES module
// build from the package, and renders an order page with a token it minted. A customer pays in Chromium.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshSecrets, startChild, type Child } from './child-process.js';
import { launchChromium } from '../journeys/shop-browser.js';
import { appFolder, customerPage, payFromTestNumber, runBin, startInstalledSandbox } from './consumer-world.js';

const APP = {
  'package.json': '{ "name": "express-shop", "private": true, "type": "module" }\n',
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      strict: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022',
      lib: ['es2023'], types: ['node'], outDir: 'dist', noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true,
    },
    include: ['server.ts'],
  }),
  'server.ts': `import { dirname } from 'node:path';
    import type { AddressInfo } from 'node:net';
    import { fileURLToPath } from 'node:url';
    import express, { type Request, type Response } from 'express';
    import { configFromEnv, createMerchantProxy } from 'merchant-elements/proxy';

    const proxy = createMerchantProxy(configFromEnv(process.env));
    const app = express();
    app.use('/merchant-elements', proxy.router);
    // The elements' ES module build, Lit inside: one file the page loads.
    app.use('/assets', express.static(dirname(fileURLToPath(import.meta.resolve('merchant-elements/cdn/merchant-elements.js')))));

    app.get('/orders/:reference', async (req: Request<{ reference: string }>, res: Response) => {
      const { reference } = req.params;
      const token = await proxy.tokens.payment({ amount: 12.5, referenceNo: reference, narration: \`Order \${reference}\` });
      res.type('html').send(\`<!doctype html><html lang="en"><head><link rel="icon" href="data:,">
        <script type="module" src="/assets/merchant-elements.js"></script></head>
        <body><pay-by-mobile token="\${token}" amount="12.50"></pay-by-mobile></body></html>\`);
    });

    app.get('/api/orders/:reference', async (req: Request<{ reference: string }>, res: Response) => {
      const payment = await proxy.payments.get(req.params.reference);
      res.json({ status: payment?.status ?? 'NONE' });
    });

    const server = app.listen(0, '127.0.0.1', () => console.log(\`listening on http://127.0.0.1:\${(server.address() as AddressInfo).port}\`));
  `,
};

let sandbox: Awaited<ReturnType<typeof startInstalledSandbox>>;
let shop: Child & { url: string };
let browser: Browser;

beforeAll(async () => {
  const dir = await appFolder('express', APP);
  await runBin('tsc', ['-p', 'tsconfig.json'], dir);
  [sandbox, browser] = await Promise.all([startInstalledSandbox(), launchChromium()]);
  const env = { PROVIDER_ENV: 'sandbox', SANDBOX_URL: sandbox.url, PROXY_TOKEN_SECRET: freshSecrets().tokenSecret };
  const child = await startChild(process.execPath, ['dist/server.js'], env, /listening on (http:\/\/127\.0\.0\.1:\d+)/, dir);
  shop = { ...child, url: child.match[1]! };
});

afterAll(async () => {
  await browser?.close();
  await shop?.stop();
  await sandbox?.close();
});

it('compiles under strict TypeScript, runs, and takes a payment its own server reads back', async () => {
  const { page, errors } = await customerPage(browser, `${shop.url}/orders/EXPRESS-1`);
  await payFromTestNumber(page.locator('pay-by-mobile'));
  expect(await (await fetch(`${shop.url}/api/orders/EXPRESS-1`)).json()).toEqual({ status: 'COMPLETED' });
  expect(errors).toEqual([]);
  await page.close();
});
