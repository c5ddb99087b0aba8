import { afterEach, describe, expect, it } from 'vitest';
import { Outbox, type OutboxConsumer, type OutboxMessage } from '../../src/proxy/notify/outbox.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { captureLogger } from './helpers.js';
import { eventually } from './sse-client.js';

/** A receiver the test turns off and on; it remembers what it took. */
function receiverConsumer() {
  const state = { up: false, delivered: [] as string[], tries: 0 };
  const consumer: OutboxConsumer = {
    name: 'webhook',
    accepts: () => true,
    async deliver(message) {
      state.tries += 1;
      if (!state.up) throw new Error('could not reach the receiver (ECONNREFUSED)');
      state.delivered.push(message.id);
    },
  };
  return { state, consumer };
}

const message = (id: string): OutboxMessage => ({ id, kind: 'payment', subject: `payment:${id}`, createdAt: Date.now(), payload: {} });

/** Records a message as a commit would (its side writes), then tells the outbox. */
async function record(store: MemoryStore, outbox: Outbox, m: OutboxMessage): Promise<void> {
  const key = `test:${m.id}`;
  await store.commit({ key, expected: null, value: '1', also: outbox.writesFor(m) });
  outbox.remember([m]);
}

const outboxes: Outbox[] = [];
afterEach(async () => {
  await Promise.all(outboxes.splice(0).map((o) => o.close()));
});

/** An instance's outbox with the production backoff (1 s doubling to 10 minutes). */
function instance(store: MemoryStore, consumer: OutboxConsumer): Outbox {
  const outbox = new Outbox(store, [consumer], captureLogger().logger, Date.now, { leaseMs: 5_000, backoffMs: 60_000, maxBackoffMs: 600_000, maxAgeMs: 86_400_000 });
  outboxes.push(outbox);
  return outbox;
}

describe('after a receiver outage', () => {
  it('tries the backlog at once when the receiver answers again, instead of each waiting out its backoff', async () => {
    const store = new MemoryStore();
    const { state, consumer } = receiverConsumer();
    const outbox = instance(store, consumer);
    for (const id of ['a', 'b', 'c']) await record(store, outbox, message(id));
    await eventually(() => (state.tries >= 3 ? true : undefined));
    await outbox.idle();
    const waiting = await Promise.all(['a', 'b', 'c'].map((id) => outbox.read(id)));
    // Each now waits a minute or more: without a wake-up, nothing before then.
    for (const item of waiting) expect(item!.deliveries.webhook!.nextAt).toBeGreaterThan(Date.now() + 30_000);

    state.up = true;
    await record(store, outbox, message('d'));
    await eventually(() => (state.delivered.length === 4 ? true : undefined), 10_000);
    expect(state.delivered.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(await outbox.pending()).toEqual([]);
  });

  it('wakes the backlog on another instance too, at once (announced) or at its next drain', async () => {
    const store = new MemoryStore();
    const first = receiverConsumer();
    const second = receiverConsumer();
    const a = instance(store, first.consumer);
    const b = instance(store, second.consumer);
    await record(store, b, message('x'));
    await eventually(() => (second.state.tries >= 1 ? true : undefined));
    await b.idle();

    second.state.up = true;
    await a.close(); // it only wakes (as the instance that saw the receiver answer, or an operator's call, would)
    await a.wake('webhook');
    expect(first.state.tries).toBe(0);
    // No sweep of b's is run: the announcement alone drains it.
    await eventually(() => (second.state.delivered.includes('x') ? true : undefined), 10_000);
  });

  it('leaves the backoff alone while the receiver is still down: a wake-up tries each once more, then it backs off again', async () => {
    const store = new MemoryStore();
    const { state, consumer } = receiverConsumer();
    const outbox = instance(store, consumer);
    await record(store, outbox, message('p'));
    await eventually(() => (state.tries >= 1 ? true : undefined));
    await outbox.idle();
    await outbox.wake('webhook');
    await eventually(() => (state.tries >= 2 ? true : undefined));
    await outbox.idle();
    outbox.kick();
    await outbox.idle();
    expect(state.tries).toBe(2);
    expect((await outbox.read('p'))!.deliveries.webhook).toMatchObject({ attempts: 2, lastError: 'could not reach the receiver (ECONNREFUSED)' });
  });
});
