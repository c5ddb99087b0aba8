// The example merchants of examples/ (PHP with `php -S`, Python with the standard library), each driven in
// Chromium as a customer would, beside `merchant-elements serve` and the sandbox: a number verified by SMS
// code and its proof redeemed once by the shop's server; an order paid with mobile money and marked paid
// by the signed webhook the shop verified; a tampered webhook refused, a repeated one acted on once.
import { chromium, type Browser, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { chromiumLaunchOptions } from '../support/chromium.mjs';
import { cdnScript, freshSecrets, type SharedSecrets, type ShopAndProxy, startShopAndProxy } from './example-world.js';

const STEP_MS = 20_000;

/** The code of the last SMS the sandbox sent to `digits`. */
async function lastCode(sandbox: StartedSandbox, digits: string): Promise<string> {
  const res = await fetch(`${sandbox.url}/__sandbox/outbox?to=${digits}&kind=sms`);
  const { entries } = (await res.json()) as { entries: { message: string }[] };
  const code = /\b(\d{6})\b/.exec(entries[0]?.message ?? '')?.[1];
  if (!code) throw new Error(`no code was sent to ${digits}`);
  return code;
}

/** Waits until a custom element's `state` property is `wanted`. */
async function reaches(page: Page, tag: string, wanted: string): Promise<void> {
  await page.waitForFunction(
    ([t, w]) => (document.querySelector(t!) as (Element & { state?: string }) | null)?.state === w,
    [tag, wanted],
    { timeout: STEP_MS, polling: 50 },
  );
}

describe.each(['php', 'python'] as const)('example merchant in %s', { timeout: 120_000 }, (kind) => {
  let sandbox: StartedSandbox;
  let browser: Browser;
  let script: Awaited<ReturnType<typeof cdnScript>>;
  let shop: ShopAndProxy;
  let secrets: SharedSecrets;

  beforeAll(async () => {
    [sandbox, browser, script] = await Promise.all([startSandbox({ timeScale: 0.1 }), chromium.launch(chromiumLaunchOptions()), cdnScript()]);
    secrets = freshSecrets();
    shop = await startShopAndProxy(kind, sandbox.url, script.path, secrets);
  }, 120_000);
  afterAll(async () => {
    await shop?.stop();
    await browser?.close();
    await sandbox?.close();
    await script?.remove();
  });

  async function customer(): Promise<Page> {
    const context = await browser.newContext({ baseURL: shop.shopUrl, viewport: { width: 390, height: 844 } });
    context.setDefaultTimeout(STEP_MS);
    const page = await context.newPage();
    page.on('pageerror', (err) => {
      throw new Error(`uncaught on the ${kind} shop's page: ${err.message}`);
    });
    return page;
  }

  it('verifies a number by SMS code, and the shop redeems the proof once', async () => {
    const page = await customer();
    await page.goto('/sign-in');
    const otp = page.locator('otp-verify');
    // The proof the element hands the form, kept to try it again afterwards as an attacker would.
    const proof = page.evaluate(
      () => new Promise<string>((resolve) => document.querySelector('otp-verify')!.addEventListener('otp-verified', (e) => resolve(e.detail.proof))),
    );
    await otp.getByLabel('Phone number', { exact: true }).pressSequentially('024 000 0001', { delay: 10 });
    await otp.getByRole('button', { name: 'Send code' }).click();
    await reaches(page, 'otp-verify', 'sent');
    await otp.getByLabel('Code from the SMS').pressSequentially(await lastCode(sandbox, '233240000001'), { delay: 10 });
    await page.getByRole('status').filter({ hasText: 'Signed in as +233240000001.' }).waitFor();

    const replay = await fetch(`${shop.shopUrl}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ proof: await proof }),
    });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('Not signed in');
    await page.context().close();
  });

  it('takes a mobile-money payment and marks the order paid from the verified webhook alone', async () => {
    const page = await customer();
    await page.goto('/');
    await page.getByRole('button', { name: 'Buy the basket (GHS 47.50)' }).click();
    await page.waitForURL(/\/orders\/[A-Z]+-[0-9A-F]{8}$/);
    const pay = page.locator('pay-by-mobile');
    const input = pay.getByLabel('Mobile money number', { exact: true });
    await input.pressSequentially('024 000 0001', { delay: 10 });
    await input.press('Enter');
    await reaches(page, 'pay-by-mobile', 'confirm');
    await pay.getByRole('button', { name: /^Pay / }).click();
    // Only the shop's webhook handler turns the order PAID, and only for a signature it verified.
    await page.getByRole('status').filter({ hasText: 'Paid: GHS 47.50 received.' }).waitFor();
    const reference = /[A-Z]+-[0-9A-F]{8}$/.exec(page.url())![0];
    const payment = await fetch(`${shop.proxyUrl}/server/orders/${reference}/payment`, { headers: { authorization: `Bearer ${secrets.serverKey}` } });
    expect(((await payment.json()) as { status: string }).status).toBe('COMPLETED');
    await page.context().close();
  });

  it('refuses a webhook whose signature does not match, and acts once on a repeated webhook-id', async () => {
    const order = async () => {
      const res = await fetch(`${shop.shopUrl}/orders`, { method: 'POST', redirect: 'manual' });
      return /[A-Z]+-[0-9A-F]{8}$/.exec(res.headers.get('location') ?? '')![0];
    };
    const status = async (reference: string) =>
      ((await (await fetch(`${shop.shopUrl}/orders/${reference}/status`)).json()) as { status: string }).status;
    const event = (reference: string) =>
      JSON.stringify({
        type: 'payment.completed',
        timestamp: new Date().toISOString(),
        data: { idempotencyKey: `payment:${reference}-1:COMPLETED`, orderReference: reference, final: true, snapshot: { reference: `${reference}-1`, orderReference: reference, status: 'COMPLETED', amount: 47.5 } },
      });
    const signedBy = (secret: string, id: string, body: string, at = new Date()) => ({
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    });
    const send = (headers: Record<string, string>, body: string) =>
      fetch(`${shop.shopUrl}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

    const first = await order();
    const body = event(first);
    const signed = signedBy(secrets.webhookSecret, `msg_${first}`, body);
    // Tampered: another body under the signature; another secret; no signature; ten minutes old.
    expect((await send(signed, body.replace('47.5', '0.01'))).status).toBe(400);
    expect((await send(signedBy(freshSecrets().webhookSecret, `msg_${first}`, body), body)).status).toBe(400);
    expect((await send({ 'webhook-id': `msg_${first}`, 'webhook-timestamp': signed['webhook-timestamp'] }, body)).status).toBe(400);
    expect((await send(signedBy(secrets.webhookSecret, `msg_${first}`, body, new Date(Date.now() - 10 * 60_000)), body)).status).toBe(400);
    expect(await status(first)).toBe('AWAITING_PAYMENT');

    // Genuine, signed with the proxy's secret: acted on.
    expect((await send(signed, body)).status).toBe(204);
    expect(await status(first)).toBe('PAID');

    // A webhook-id seen before is acknowledged and not acted on again, whatever it carries; a new one is.
    const second = await order();
    const repeat = event(second);
    expect((await send(signedBy(secrets.webhookSecret, `msg_${first}`, repeat), repeat)).status).toBe(204);
    expect(await status(second)).toBe('AWAITING_PAYMENT');
    expect((await send(signedBy(secrets.webhookSecret, `msg_${second}`, repeat), repeat)).status).toBe(204);
    expect(await status(second)).toBe('PAID');
  });
});
