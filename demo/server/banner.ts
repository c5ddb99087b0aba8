import type { RunningDemo } from './start-demo.js';

/** What `npm start` prints: where to go first, and where each part lives. */
export function demoBanner(demo: RunningDemo): string {
  const { urls } = demo;
  return [
    `Makola Market Goods, the merchant-elements demo, is running:`,
    ``,
    `  shop                 ${urls.shop}`,
    `  customer's phone     ${urls.phone}?number=233240000001`,
    `  embedding demos      ${urls.embedding}  (CDN script, React, Vue)`,
    `  sandbox (provider)   ${urls.sandbox}/__sandbox/`,
    // The mount path itself answers nothing (404): the banner gives the address that answers, its health.
    `  proxy (health)       ${urls.proxyHealth}  (the elements call ${new URL(urls.proxy).pathname}/…)`,
    ``,
    `  Test numbers: 233240000001 completes, 233240000002 fails (insufficient funds),`,
    `  233200000003 is declined, 233260000004 stays pending, 233240000005 waits for the phone`,
    `  (its prompt expires unanswered), 233240000404 has no account.`,
    ``,
    `Press Ctrl+C to stop.`,
  ].join('\n');
}
