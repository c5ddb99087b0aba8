// The journeys of a shop guide (docs/php.md, docs/python.md) once it is followed: the shop the guide built,
// beside `serve` and the sandbox it started, driven in Chromium as a customer would. A number verified by
// SMS code and its proof redeemed once by the shop; an order paid by mobile money and marked paid by the
// signed webhook the shop verified with the webhooks guide's verifier; a forged, stale or unsigned webhook
// refused, a repeated one acted on once.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumLaunchOptions } from '../support/chromium.mjs';
import { guideWorld, type GuideWorld } from './guide-world.js';

const STEP_MS = 20_000;
/** The ports the shop guides name: the sandbox, the proxy, the shop. */
export const SANDBOX = 4010;
export const PROXY = 8080;
export const SHOP = 8000;

/** `KEY=value` lines of the `.env` a guide wrote. */
export async function dotenv(world: GuideWorld): Promise<Record<string, string>> {
  const text = await readFile(join(world.dir, '.env'), 'utf8');
  return Object.fromEntries(text.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/** Waits until a custom element's `state` property is `wanted`. */
async function reaches(page: Page, tag: string, wanted: string): Promise<void> {
  await page.waitForFunction(
    ([t, w]) => (document.querySelector(t!) as (Element & { state?: string }) | null)?.state === w,
    [tag, wanted],
    { timeout: STEP_MS, polling: 50 },
  );
}

/** What a shop guide's test gives: how to set the world up, and its own checks. */
export interface ShopGuide {
  doc: string;
  /** The guide's terminals and their ports (default: the sandbox, `serve`, the shop). */
  terminals?: Record<string, number>;
  /** The guide's own Node code imports the proxy (`merchant-elements/proxy`) and these packages. */
  node?: string[];
  /** Other ports the guide or the README names (remapped like the terminals'). */
  ports?: number[];
  /** The shop receives signed webhooks at `/webhooks` (default true; an Express shop hears hooks instead). */
  webhooks?: boolean;
  /** The shop has the guides' sign-in page (default true). */
  signIn?: false;
  /** Where the proxy's server API is, when the shop has one (default: `serve`'s, with the `.env` key). */
  serverApi?: false;
  /** The consumer suite's workspace, where the packed tarballs are installed: the guide runs on them. */
  installed?: string;
  /** Writes the guide's files (its own and those it takes from other guides). */
  files(world: GuideWorld): Promise<void>;
  /** More checks in the same world. */
  more?(get: () => { world: GuideWorld; env: Record<string, string> }): void;
}

export function describeShopGuide(guide: ShopGuide): void {
  describe(`${guide.doc}, followed as written`, { timeout: 120_000 }, () => {
    let world: GuideWorld;
    let browser: Browser;
    let env: Record<string, string>;
    /** What went wrong on the customer's pages (uncaught errors, policy violations). */
    const problems: string[] = [];

    const terminals = guide.terminals ?? { sandbox: SANDBOX, proxy: PROXY, shop: SHOP };
    // A failed step says what each of the guide's terminals printed (the proxy's, the shop's, the sandbox's).
    beforeEach(({ onTestFailed }) =>
      onTestFailed(() => {
        for (const name of Object.keys(terminals)) console.error(`--- terminal "${name}" printed:\n${world?.terminal(name).output().slice(-4_000)}`);
      }),
    );

    beforeAll(async () => {
      const node = guide.node ? { node: true, packages: guide.node } : {};
      [world, browser] = await Promise.all([guideWorld({ terminals, ports: guide.ports ?? [], ...node, ...(guide.installed ? { installed: guide.installed } : {}) }), chromium.launch(chromiumLaunchOptions())]);
      await guide.files(world);
      await world.follow(guide.doc);
      env = await dotenv(world).catch(() => ({}));
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await world?.close();
    });

    async function customer(): Promise<Page> {
      const context = await browser.newContext({ baseURL: world.url(SHOP), viewport: { width: 390, height: 844 } });
      context.setDefaultTimeout(STEP_MS);
      const page = await context.newPage();
      page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
      // A Content-Security-Policy violation is only a console error: a page's policy must not need one.
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) problems.push(m.text());
      });
      return page;
    }

    /** The code of the last SMS the sandbox sent to `digits`, as the sandbox's outbox shows it. */
    async function lastCode(digits: string): Promise<string> {
      const { entries } = (await (await fetch(world.url(SANDBOX, `/__sandbox/outbox?to=${digits}&kind=sms`))).json()) as { entries: { message: string }[] };
      const code = /\b(\d{6})\b/.exec(entries[0]?.message ?? '')?.[1];
      if (!code) throw new Error(`no code was sent to ${digits}`);
      return code;
    }

    it('follows every step of the guide (no block left out)', () => {
      expect(world.unused().map((b) => `${b.doc}:${b.line}`)).toEqual([]);
    });

    it("takes a mobile-money payment and marks the order paid from the proxy's word alone (webhook or hook)", async () => {
      const page = await customer();
      await page.goto('/');
      await page.getByRole('button', { name: 'Buy the basket (GHS 47.50)' }).click();
      await page.waitForURL(/\/orders\/[A-Z]+-[0-9A-F]{8}$/);
      const pay = page.locator('pay-by-mobile');
      await pay.getByLabel('Mobile money number', { exact: true }).pressSequentially('024 000 0001', { delay: 10 });
      await pay.getByRole('button', { name: 'Continue' }).click();
      await reaches(page, 'pay-by-mobile', 'confirm');
      await pay.getByRole('button', { name: /^Pay / }).click();
      await page.getByRole('status').filter({ hasText: 'Paid: GHS 47.50 received.' }).waitFor();
      if (guide.serverApi !== false) {
        const reference = /[A-Z]+-[0-9A-F]{8}$/.exec(page.url())![0];
        const payment = await fetch(world.url(PROXY, `/merchant-elements/server/orders/${reference}/payment`), {
          headers: { authorization: `Bearer ${env.PROXY_SERVER_KEY}` },
        });
        expect(((await payment.json()) as { status: string }).status).toBe('COMPLETED');
      }
      expect(problems).toEqual([]);
      await page.context().close();
    });

    if (guide.signIn !== false) it('verifies a number by SMS code, and the shop redeems the proof once', async () => {
      const page = await customer();
      await page.goto('/sign-in');
      const otp = page.locator('otp-verify');
      const proof = page.evaluate(
        () => new Promise<string>((resolve) => document.querySelector('otp-verify')!.addEventListener('otp-verified', (e) => resolve(e.detail.proof))),
      );
      await otp.getByLabel('Phone number', { exact: true }).pressSequentially('024 000 0001', { delay: 10 });
      await otp.getByRole('button', { name: 'Send code' }).click();
      await reaches(page, 'otp-verify', 'sent');
      await otp.getByLabel('Code from the SMS').pressSequentially(await lastCode('233240000001'), { delay: 10 });
      await page.getByRole('status').filter({ hasText: 'Signed in as +233240000001.' }).waitFor();

      // The same proof again, as an attacker who copied it would: refused by the proxy, so by the shop.
      const replay = await fetch(world.url(SHOP, '/sign-in'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ proof: await proof }),
      });
      expect(replay.status).toBe(400);
      expect(await replay.text()).toContain('Not signed in');
      expect(problems).toEqual([]);
      await page.context().close();
    });

    // An Express shop hears the proxy's hooks in process: no webhook endpoint to attack.
    if (guide.webhooks !== false) it('refuses a forged, stale or unsigned webhook, and acts once on a repeated webhook-id', async () => {
      const order = async () => {
        const res = await fetch(world.url(SHOP, '/orders'), { method: 'POST', redirect: 'manual' });
        return /[A-Z]+-[0-9A-F]{8}$/.exec(res.headers.get('location') ?? '')![0];
      };
      const status = async (reference: string) => ((await (await fetch(world.url(SHOP, `/orders/${reference}/status`))).json()) as { status: string }).status;
      const event = (reference: string) =>
        JSON.stringify({
          type: 'payment.completed',
          timestamp: new Date().toISOString(),
          data: { idempotencyKey: `payment:${reference}-1:COMPLETED`, orderReference: reference, previous: 'PENDING', final: true, snapshot: { reference: `${reference}-1`, orderReference: reference, status: 'COMPLETED', amount: 47.5 } },
        });
      const signedBy = (secret: string, id: string, body: string, at = new Date()) => ({
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(id, at, body),
      });
      const send = (headers: Record<string, string>, body: string) =>
        fetch(world.url(SHOP, '/webhooks'), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      const otherSecret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

      const first = await order();
      const body = event(first);
      const signed = signedBy(env.WEBHOOK_SECRET!, `msg_${first}`, body);
      expect((await send(signed, body.replace('47.5', '0.01'))).status).toBe(400);
      expect((await send(signedBy(otherSecret, `msg_${first}`, body), body)).status).toBe(400);
      expect((await send({ 'webhook-id': `msg_${first}`, 'webhook-timestamp': signed['webhook-timestamp'] }, body)).status).toBe(400);
      expect((await send(signedBy(env.WEBHOOK_SECRET!, `msg_${first}`, body, new Date(Date.now() - 10 * 60_000)), body)).status).toBe(400);
      expect(await status(first)).toBe('AWAITING_PAYMENT');

      expect((await send(signed, body)).status).toBe(204);
      expect(await status(first)).toBe('PAID');

      const second = await order();
      const repeat = event(second);
      expect((await send(signedBy(env.WEBHOOK_SECRET!, `msg_${first}`, repeat), repeat)).status).toBe(204);
      expect(await status(second)).toBe('AWAITING_PAYMENT');
      expect((await send(signedBy(env.WEBHOOK_SECRET!, `msg_${second}`, repeat), repeat)).status).toBe(204);
      expect(await status(second)).toBe('PAID');
    });

    guide.more?.(() => ({ world, env }));
  });
}

/**
 * The README's embed for a guide's language (a file of README.md's, run by `command` in the guide's world
 * with its secrets): it prints a page whose `<pay-by-mobile>` carries a token the proxy takes.
 */
export function itRunsTheReadmeEmbed(get: () => { world: GuideWorld; env: Record<string, string> }, command: string, file: string): void {
  it(`README's ${file} prints a page whose token the proxy takes`, async () => {
    const { world, env } = get();
    await world.write('README.md', file);
    const proxyUrl = world.url(PROXY, '/merchant-elements');
    const { stdout } = await promisify(execFile)(command, [file], { cwd: world.dir, env: { ...world.env, ...env, PROXY_URL: proxyUrl } });
    expect(stdout).toContain(`<pay-by-mobile proxy="${proxyUrl}"`);
    const token = /token="([^"]+)"/.exec(stdout)![1]!;
    const lookup = await fetch(`${proxyUrl}/accounts/lookup`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn: '0240000001' }),
    });
    expect(lookup.status).toBe(200);
  });
}
