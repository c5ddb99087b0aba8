/**
 * The model's world for a scripted run: its scheduling points go on at once, but for one the test holds (a
 * request or an answer on its way) until it releases it. The run's clock is set by the test.
 */
import { expect, onTestFinished } from 'vitest';
import { ORDER_KEYS } from '../../../src/proxy/order/keys.js';
import type { Order } from '../../../src/proxy/order/order-record.js';
import { brokenRules } from './invariants.js';
import { World, type WorldConfig } from './world.js';

export interface Hold {
  /** Resolves once a call reached the held point. */
  reached: Promise<void>;
  /** Lets the held call go on. */
  release(): void;
}

/**
 * A held world whose instances have started, closed when the test ends (call it inside a test). `sentAt`:
 * its clock then, the send time of a payment asked for at once. `config` changes the world's (a provider that
 * lists sessions, a prefix).
 */
export async function startedWorld(config: Partial<WorldConfig> = {}): Promise<{ w: World; hold(label: string): Hold; sentAt: number }> {
  const world = heldWorld(config);
  onTestFinished(() => world.w.close());
  world.w.ready();
  await idle(world.w);
  return { ...world, sentAt: world.w.clock };
}

/**
 * The customer of order O1 tries the hosted checkout on instance `i` and pays whatever they were sent to;
 * `meanwhile` happens (a request landing), and they approve the prompt on their phone. Then callbacks go to
 * the first instance and time passes until every read and notification is done.
 */
export async function customerPaysBothWays(w: World, i: number, meanwhile: () => void = () => undefined): Promise<void> {
  w.checkout(i, 'O1');
  await idle(w);
  w.provider.paySession('O1');
  meanwhile();
  w.provider.answer('O1-', 'COMPLETED');
  await rounds(w);
}

/** `count` rounds of callbacks to the first instance and 30 s passing, each until no instance has work under way. */
export async function rounds(w: World, count = 6): Promise<void> {
  for (let round = 0; round < count; round++) {
    w.callbacks(0);
    w.advance(30_000);
    await idle(w);
  }
}

/** O1 was charged once, by its first try, and that completion reached the merchant. */
export async function expectChargedOnceByTheFirstTry(w: World): Promise<void> {
  expect(w.crashes).toEqual([]);
  expect(await brokenRules(w)).toEqual([]);
  expect(w.provider.sessions.size).toBe(0);
  expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'completed' });
  expect([...w.received.keys()]).toContain('payment:O1-1:COMPLETED');
}

export function heldWorld(config: Partial<WorldConfig> = {}): { w: World; hold(label: string): Hold } {
  let held: { label: string; reach: () => void; go: Promise<void> } | null = null;
  const step = async (label: string): Promise<void> => {
    const h = held;
    if (h && label === h.label) {
      held = null;
      h.reach();
      await h.go;
    }
  };
  const w = new World({ statusReference: 'either', lists: false, prefix: '', losses: 'flush', readsInFlight: true, skewMs: 0, presence: true, ...config }, 1, step);
  return {
    w,
    hold(label) {
      let reach!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (reach = resolve));
      const go = new Promise<void>((resolve) => (release = resolve));
      held = { label, reach, go };
      return { reached, release };
    },
  };
}

/** Until no instance has work under way (a held call's work stays under way: a thousand turns at most). */
export async function idle(w: World): Promise<void> {
  for (let i = 0; i < 1_000 && w.busy; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** The order's record as the store holds it. */
export async function stored(w: World, ref: string): Promise<Order> {
  return JSON.parse((await w.memoryOf(ref).get(ORDER_KEYS.order(ref)))!) as Order;
}
