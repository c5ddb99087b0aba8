// docs/webhooks.md's verifiers, in PHP, Python and Node, taken from the guide as written, on real deliveries
// of a running proxy (signed by the standardwebhooks package) with the secret the guide's own command made:
// every genuine delivery is accepted and decoded; a tampered body, another secret, another version, a moved
// timestamp, a stale or future one, a missing id are refused; several signatures in one header are read.
// And the body the guide shows has a real delivery's fields and figures.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../proxy/helpers.js';
import { eventually } from '../proxy/sse-client.js';
import { startReceiver, type Received, type TestReceiver } from '../proxy/webhook-receiver.js';
import { guideWorld, type GuideWorld } from './guide-world.js';
import { checkBlock } from './markdown.js';

const DOC = 'docs/webhooks.md';

/** One request a verifier is given. */
interface Case {
  name: string;
  headers: Record<string, string>;
  body: string;
  /** What it must answer: the decoded body, or null (refused). */
  expected: unknown;
}

/** Runs every case through one language's verifier; resolves its answers in order. */
type Verifier = (secret: string, cases: Case[]) => Promise<unknown[]>;

const run = promisify(execFile);

/** PHP and Python read the cases on stdin (bodies in base64: the exact bytes) and print their answers. */
const PHP_HARNESS = `<?php
require __DIR__ . '/webhook.php';
$input = json_decode(stream_get_contents(STDIN), true);
$out = [];
foreach ($input['cases'] as $case) {
    $out[] = verify_webhook($input['secret'], $case['headers'], base64_decode($case['body']));
}
echo json_encode($out);
`;
const PYTHON_HARNESS = `import base64, json, sys
from webhook import verify_webhook
data = json.load(sys.stdin)
print(json.dumps([verify_webhook(data["secret"], c["headers"], base64.b64decode(c["body"])) for c in data["cases"]]))
`;

function viaProcess(world: GuideWorld, command: string, script: string): Verifier {
  return async (secret, cases) => {
    const input = JSON.stringify({ secret, cases: cases.map((c) => ({ headers: c.headers, body: Buffer.from(c.body).toString('base64') })) });
    const child = run(command, [script], { cwd: world.dir });
    child.child.stdin!.end(input);
    return JSON.parse((await child).stdout) as unknown[];
  };
}

describe('docs/webhooks.md: the verifiers, on real deliveries', { timeout: 60_000 }, () => {
  let world: GuideWorld;
  let receiver: TestReceiver;
  let h: Harness;
  let secret: string;
  let verifiers: Record<'php' | 'python' | 'node', Verifier>;

  beforeAll(async () => {
    world = await guideWorld({ terminals: {} });
    // The guide's own command makes the secret the proxy signs with.
    [secret] = (await world.follow(DOC)).map((s) => s.trim()) as [string];
    for (const file of ['webhook.php', 'webhook.py', 'webhook.mjs']) await world.write(DOC, file);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(world.dir, 'verify.php'), PHP_HARNESS);
    await writeFile(join(world.dir, 'verify.py'), PYTHON_HARNESS);
    const { verifyWebhook } = (await import(pathToFileURL(join(world.dir, 'webhook.mjs')).href)) as {
      verifyWebhook(secret: string, headers: Record<string, string>, body: Buffer): unknown;
    };
    verifiers = {
      php: viaProcess(world, 'php', 'verify.php'),
      python: viaProcess(world, 'python3', 'verify.py'),
      node: async (s, cases) => cases.map((c) => verifyWebhook(s, c.headers, Buffer.from(c.body))),
    };

    receiver = await startReceiver();
    h = await startHarness({ config: { webhooks: { url: receiver.url, secret }, relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 } } });
    // Deliveries of several kinds: a payment completed, one refused, one declined, a checkout opened.
    const pay = async (msisdn: string, referenceNo: string, amount = 12.5) =>
      h.post('/payments', { msisdn }, { token: await h.mintPayment({ referenceNo, amount, narration: `Order ${referenceNo}` }) });
    await pay('0240000001', 'ORDER-1042', 47.5);
    await pay('0240000002', 'ORDER-1043');
    await pay('0200000003', 'ORDER-1044');
    await h.post('/checkouts', {}, { token: await h.mintCheckout() });
    const has = (id: string) => receiver.received.some((r) => r.id === id);
    await eventually(() => (has('payment:ORDER-1042-1:COMPLETED') && has('payment:ORDER-1044-1:CANCELLED') && receiver.received.some((r) => r.id.startsWith('checkout:')) ? true : undefined), 20_000);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await receiver?.stop();
    await world?.close();
  });

  const headersOf = (r: Received) => ({
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });

  /** Genuine deliveries, and forged or stale variants of the first, with what a verifier must answer. */
  function cases(): Case[] {
    const real = receiver.received.map((r): Case => ({ name: `genuine ${r.id}`, headers: headersOf(r), body: r.body, expected: JSON.parse(r.body) }));
    expect(real.length).toBeGreaterThanOrEqual(5);
    const sample = receiver.received.find((r) => r.id === 'payment:ORDER-1042-1:COMPLETED')!;
    const headers = headersOf(sample);
    const id = headers['webhook-id'];
    const signed = (key: string, at: Date, body = sample.body) => ({ ...headers, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(key).sign(id, at, body) });
    const minutes = (n: number) => new Date(Date.now() + n * 60_000);
    const right = headers['webhook-signature'];
    const other = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const tampered = sample.body.replace('"amount":47.5', '"amount":0.01');
    expect(tampered).not.toBe(sample.body);
    return [
      ...real,
      { name: 'several signatures, the right one last', headers: { ...headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} v1a,xyz ${right}` }, body: sample.body, expected: JSON.parse(sample.body) },
      {
        name: 'during a rotation: one signature per secret, the new one first (WEBHOOK_SECRET="<new> <this>")',
        headers: { ...headers, 'webhook-signature': `${new Webhook(other).sign(id, new Date(Number(headers['webhook-timestamp']) * 1000), sample.body)} ${right}` },
        body: sample.body,
        expected: JSON.parse(sample.body),
      },
      { name: 'signed four minutes ago', headers: signed(secret, minutes(-4)), body: sample.body, expected: JSON.parse(sample.body) },
      { name: 'the body changed under its signature', headers, body: tampered, expected: null },
      { name: 'signed with another secret', headers: signed(other, new Date()), body: sample.body, expected: null },
      { name: 'signed with the secret’s text, not its decoded bytes', headers: signed(`whsec_${Buffer.from(secret).toString('base64')}`, new Date()), body: sample.body, expected: null },
      { name: 'the right signature under another version', headers: { ...headers, 'webhook-signature': right.replace(/^v1,/, 'v2,') }, body: sample.body, expected: null },
      { name: 'the timestamp moved under its signature', headers: { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }, body: sample.body, expected: null },
      { name: 'signed six minutes ago', headers: signed(secret, minutes(-6)), body: sample.body, expected: null },
      { name: 'signed six minutes ahead', headers: signed(secret, minutes(6)), body: sample.body, expected: null },
      { name: 'no webhook-id', headers: { 'webhook-timestamp': headers['webhook-timestamp'], 'webhook-signature': right }, body: sample.body, expected: null },
      { name: 'no signature', headers: { 'webhook-id': id, 'webhook-timestamp': headers['webhook-timestamp'] }, body: sample.body, expected: null },
    ];
  }

  it.each(['php', 'python', 'node'] as const)('the %s verifier accepts every real delivery and refuses every forged or stale one', async (language) => {
    const all = cases();
    const answers = await verifiers[language](secret, all);
    expect(all.map((c, i) => [c.name, answers[i]])).toEqual(all.map((c) => [c.name, c.expected]));
  });

  it("the guide's secret command makes a secret the proxy takes: whsec_ and 32 random bytes in base64", () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
  });

  it("the body the guide shows is a real delivery's: its fields are real ones, with the sandbox's figures for GHS 47.50", () => {
    const shown = JSON.parse(checkBlock(DOC, 'json').code);
    const real = JSON.parse(receiver.received.find((r) => r.id === 'payment:ORDER-1042-1:COMPLETED')!.body);
    const ISO = /^\d{4}-\d\d-\d\dT/;
    /**
     * The real delivery cut to the fields the example shows, with the example's times (they differ by nature):
     * every field shown must be a real one with the real value. A field the proxy adds later may be left out.
     */
    const asShown = (r: unknown, s: unknown): unknown =>
      typeof r === 'string' && ISO.test(r) && typeof s === 'string' && ISO.test(s)
        ? s
        : r && typeof r === 'object' && s && typeof s === 'object'
          ? Object.fromEntries(Object.keys(s).map((k) => [k, asShown((r as Record<string, unknown>)[k], (s as Record<string, unknown>)[k])]))
          : r;
    expect(asShown(real, shown)).toEqual(shown);
    expect(Object.keys(shown.data.snapshot).length).toBeGreaterThanOrEqual(10);
  });
});
