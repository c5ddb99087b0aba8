// A Fastify shop: the proxy's Node handler mounted through @fastify/middie (Fastify's own request and reply
// never reach it), the CDN build read from the package, and an order page with a token it minted. A
// customer pays in Chromium, the status coming back over the proxy's event stream through Fastify.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshSecrets, startChild, type Child } from './child-process.js';
import { launchChromium } from '../journeys/shop-browser.js';
import { appFolder, customerPage, payFromTestNumber, startInstalledSandbox } from './consumer-world.js';

const APP = {
  'package.json': '{ "name": "fastify-shop", "private": true, "type": "module" }\n',
  'server.mjs': `import { readFile } from 'node:fs/promises';
    import { fileURLToPath } from 'node:url';
    import middie from '@fastify/middie';
    import Fastify from 'fastify';
    import { configFromEnv, createMerchantProxy } from 'merchant-elements/proxy';

    const proxy = createMerchantProxy(configFromEnv(process.env));
    const script = await readFile(fileURLToPath(import.meta.resolve('merchant-elements/cdn/merchant-elements.iife.js')));
    const app = Fastify();
    await app.register(middie);
    app.use('/merchant-elements', proxy.handler);
    app.get('/assets/merchant-elements.iife.js', (_req, reply) => reply.type('text/javascript').send(script));
    app.get('/orders/:reference', async (req, reply) => {
      const { reference } = req.params;
      const token = await proxy.tokens.payment({ amount: 12.5, referenceNo: reference, narration: 'Order ' + reference });
      return reply.type('text/html').send('<!doctype html><html lang="en"><head><link rel="icon" href="data:,">' +
        '<script src="/assets/merchant-elements.iife.js" defer></script></head>' +
        '<body><pay-by-mobile token="' + token + '" amount="12.50"></pay-by-mobile></body></html>');
    });
    app.get('/api/orders/:reference', async (req) => ({ status: (await proxy.payments.get(req.params.reference))?.status ?? 'NONE' }));
    console.log('listening on ' + (await app.listen({ port: 0, host: '127.0.0.1' })));
  `,
};

let sandbox: Awaited<ReturnType<typeof startInstalledSandbox>>;
let shop: Child & { url: string };
let browser: Browser;

beforeAll(async () => {
  const dir = await appFolder('fastify', APP);
  [sandbox, browser] = await Promise.all([startInstalledSandbox(), launchChromium()]);
  const env = { PROVIDER_ENV: 'sandbox', SANDBOX_URL: sandbox.url, PROXY_TOKEN_SECRET: freshSecrets().tokenSecret };
  const child = await startChild(process.execPath, ['server.mjs'], env, /listening on (http:\/\/127\.0\.0\.1:\d+)/, dir);
  shop = { ...child, url: child.match[1]! };
});

afterAll(async () => {
  await browser?.close();
  await shop?.stop();
  await sandbox?.close();
});

it('mounts the proxy with middie and takes a payment its own server reads back', async () => {
  const { page, errors } = await customerPage(browser, `${shop.url}/orders/FASTIFY-1`);
  await payFromTestNumber(page.locator('pay-by-mobile'));
  expect(await (await fetch(`${shop.url}/api/orders/FASTIFY-1`)).json()).toEqual({ status: 'COMPLETED' });
  expect(errors).toEqual([]);
  await page.close();
});
