// Browser tests of the elements (src/elements) in real Chromium, with no bundling step: esbuild turns each
// TypeScript module into JavaScript as the page asks for it. Run with `npm run test:elements`, which starts
// the runner under tsx so that this file can also start the real sandbox and proxy for the journey tests.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { a11ySnapshotPlugin } from '@web/test-runner-commands/plugins';
import { chromiumLaunchOptions } from './test/support/chromium.mjs';

/**
 * The journeys' back end, in this process: a sandbox on 127.0.0.1:0 and an Express app with the merchant
 * proxy mounted at /merchant-elements, served on the test page's own origin (so the proxy's same-origin
 * rule holds), with `/__test` helpers a merchant's server and a customer's phone would otherwise be:
 * fresh tokens, the code of the last SMS, approving a payment, paying on the hosted checkout page.
 */
async function startJourneys() {
  const [{ default: express }, { startSandbox }, { createMerchantProxy }, { pino }] = await Promise.all([
    import('express'),
    import('./src/sandbox/index.ts'),
    import('./src/proxy/index.ts'),
    import('pino'),
  ]);
  const sandbox = await startSandbox({ timeScale: 0.05 });
  const proxy = createMerchantProxy({
    provider: {
      env: 'sandbox',
      messagingBaseUrl: sandbox.url,
      paymentBaseUrl: sandbox.paymentUrl,
      messaging: { apiKey: 'test-api-key', apiSecret: 'test-api-secret' },
      payment: { username: 'test-user', password: 'test-password' },
      checkout: { apiKey: 'test-checkout-key' },
    },
    tokenSecret: 'element-journeys-secret-of-32-bytes-or-more',
    payeeName: 'Test Shop',
    relay: { minIntervalMs: 100, maxIntervalMs: 400, deadlineMs: 60_000 },
    logger: pino({ level: 'silent' }),
  });
  let order = 0;
  const app = express();
  app.use('/merchant-elements', proxy.router);
  const helpers = express.Router();
  helpers.get('/token', async (req, res) => {
    const ref = `WEB-${process.pid}-${++order}`;
    const mint = {
      otp: () => proxy.tokens.otp({ purpose: 'sign-in' }),
      payment: () => proxy.tokens.payment({ amount: 12.5, referenceNo: ref, narration: `Order ${ref}` }),
      checkout: () =>
        proxy.tokens.checkout({ title: 'Test Shop', reference: ref, amount: 50, description: 'Basket', returnUrl: 'http://127.0.0.1/back' }),
    }[String(req.query.kind)];
    if (!mint) return void res.status(400).json({ error: 'kind must be otp, payment or checkout' });
    res.json({ token: await mint() });
  });
  helpers.get('/sms-code', async (req, res) => {
    const { entries } = await (await fetch(`${sandbox.url}/__sandbox/outbox?kind=sms&to=${req.query.to}`)).json();
    const code = entries.map((e) => /\b(\d{4,10})\b/.exec(e.message)?.[1]).filter(Boolean).at(-1);
    res.json({ code: code ?? null });
  });
  helpers.post('/approve', async (req, res) => {
    const { payments } = await (await fetch(`${sandbox.url}/__sandbox/payments`)).json();
    const pending = payments.find((p) => p.msisdn === req.query.msisdn && p.status === 'PENDING');
    if (!pending) return void res.status(404).json({ error: 'no pending payment for that number' });
    const answer = await fetch(`${sandbox.url}/__sandbox/phone/payments/${pending.referenceId}/approve`, { method: 'POST', redirect: 'manual' });
    res.status(answer.status < 400 ? 204 : 502).end();
  });
  helpers.post('/checkout-pay', async (req, res) => {
    const answer = await fetch(`${req.query.url}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ msisdn: String(req.query.msisdn) }),
      redirect: 'manual',
    });
    res.status(answer.status < 400 ? 204 : 502).end();
  });
  app.use('/__test', helpers);
  return {
    // Koa middleware of the dev server: hands these paths to Express untouched (SSE streams included).
    middleware: (ctx, next) => {
      if (!/^\/(merchant-elements|__test)\//.test(ctx.path)) return next();
      ctx.respond = false;
      ctx.res.statusCode = 200; // Koa's default 404, which Express would keep
      app(ctx.req, ctx.res);
    },
    close: async () => {
      await proxy.close();
      await sandbox.close();
    },
  };
}

// Without tsx (a bare `wtr`), the TypeScript sources cannot load here: the journey tests then fail, saying so.
const journeys = await startJourneys().catch((e) => {
  console.warn(`[elements] journeys against the real proxy are unavailable: ${e.message}`);
  return undefined;
});

export default {
  files: 'test/elements/**/*.test.ts',
  nodeResolve: true,
  // Two cores shared with the rest of the suite.
  concurrency: 1,
  concurrentBrowsers: 1,
  testFramework: { config: { timeout: 10_000 } },
  filterBrowserLogs: ({ args }) => !String(args[0]).startsWith('Lit is in dev mode'),
  middleware: journeys ? [journeys.middleware] : [],
  plugins: [
    // The project's tsconfig: experimentalDecorators and useDefineForClassFields false, as tsc sees them.
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: new URL('./tsconfig.json', import.meta.url).pathname }),
    { name: 'element-journeys', serverStop: () => journeys?.close() },
    // The accessibility tree as Chromium builds it (what a screen reader is given).
    a11ySnapshotPlugin(),
  ],
  browsers: [
    chromeLauncher({
      launchOptions: {
        // The system's Chromium: nothing here may download a browser.
        ...chromiumLaunchOptions(),
        headless: true,
        
      },
    }),
  ],
};
