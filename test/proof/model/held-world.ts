/**
 * The model's world for a scripted run: its scheduling points go on at once, but for one the test holds (a
 * request or an answer on its way) until it releases it. The run's clock is set by the test.
 */
import { ORDER_KEYS } from '../../../src/proxy/order/keys.js';
import type { Order } from '../../../src/proxy/order/order-record.js';
import { World } from './world.js';

export interface Hold {
  /** Resolves once a call reached the held point. */
  reached: Promise<void>;
  /** Lets the held call go on. */
  release(): void;
}

export function heldWorld(): { w: World; hold(label: string): Hold } {
  let held: { label: string; reach: () => void; go: Promise<void> } | null = null;
  const step = async (label: string): Promise<void> => {
    const h = held;
    if (h && label === h.label) {
      held = null;
      h.reach();
      await h.go;
    }
  };
  const w = new World({ statusReference: 'either', lists: false, prefix: '', losses: 'flush', readsInFlight: true }, 1, step);
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
  return JSON.parse((await w.memory.get(ORDER_KEYS.order(ref)))!) as Order;
}
