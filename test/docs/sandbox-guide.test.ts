// docs/sandbox.md and docs/provider-client.md, each followed as written against a sandbox of its own:
// startSandbox from Node, an SMS sent with the command line and read back from the outbox (the answer's
// shape the page states), and the provider client looking up a test number's account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guideWorld, type GuideWorld } from './guide-world.js';

describe('docs/sandbox.md and docs/provider-client.md, followed as written', { timeout: 90_000 }, () => {
  const worlds: GuideWorld[] = [];
  let sandbox: string[];
  let provider: string[];
  beforeAll(async () => {
    const follow = async (doc: string) => {
      const world = await guideWorld({ terminals: { sandbox: 4010 }, node: true });
      worlds.push(world);
      await world.writeAll(doc);
      return world.follow(doc);
    };
    [sandbox, provider] = await Promise.all([follow('docs/sandbox.md'), follow('docs/provider-client.md')]);
  }, 90_000);
  afterAll(() => Promise.all(worlds.map((w) => w.close())));

  it('runs every step of both', () => {
    expect(worlds.flatMap((w) => w.unused()).map((b) => `${b.doc}:${b.line}`)).toEqual([]);
  });

  it('starts a sandbox from Node on a port of its own, the gateway under /gateway', () => {
    expect(sandbox[0]!.trim()).toMatch(/^http:\/\/127\.0\.0\.1:(\d+) http:\/\/127\.0\.0\.1:\1\/gateway$/);
  });

  it('keeps an SMS sent with the command line in its outbox, { entries: [{ to, message, deliveryStatus… }] }', () => {
    const lines = sandbox[1]!.trim().split('\n');
    const { entries } = JSON.parse(lines.at(-1)!) as { entries: Record<string, unknown>[] };
    expect(entries[0]).toMatchObject({ kind: 'sms', to: '233240000001', from: 'Shop', message: 'Your code is 123456' });
    for (const field of ['messageId', 'sequenceNo', 'type', 'segments', 'createdAt', 'deliverAt', 'deliveryStatus']) expect(entries[0]).toHaveProperty(field);
  });

  it('the provider client reads a test number’s account holder', () => {
    expect(JSON.parse(provider[0]!)).toEqual({ accountName: 'KWAME MENSAH', msisdn: '233240000001', network: 'MTN' });
  });
});
