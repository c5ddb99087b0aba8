/**
 * The reconciler under a flash sale (issue 22): its passes in flight are bounded per process, a read someone
 * waits for goes before routine polls, and a poller whose read failed as unavailable backs off. Time here is
 * the test's own (an injected clock) or none at all: every step waits on promises the test resolves.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ProviderNotFoundError, ProviderUnavailableError } from '../../src/provider/errors.js';
import { Outbox } from '../../src/proxy/notify/outbox.js';
import { ORDER_KEYS } from '../../src/proxy/order/keys.js';
import { OrderBook } from '../../src/proxy/order/order-book.js';
import type { OrderEvent } from '../../src/proxy/order/events.js';
import type { OrderDeps } from '../../src/proxy/order/order-deps.js';
import { transition } from '../../src/proxy/order/transition.js';
import { reconcilePass } from '../../src/proxy/reconcile/reconcile-flow.js';
import { references } from '../../src/proxy/order/references.js';
import { PollerPool, type PoolTimers, type TickResult } from '../../src/proxy/reconcile/poller-pool.js';
import { ReadGate } from '../../src/proxy/reconcile/read-gate.js';
import { Reconciler } from '../../src/proxy/reconcile/reconciler.js';
import { relaySchema, type RelayOptions } from '../../src/proxy/config-relay.js';
import { DEFAULT_OUTBOX_OPTIONS } from '../../src/proxy/notify/outbox-types.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { ENV, NOW, order, paymentTry, session, tx, upstreamSession } from './order/fixtures.js';
import { eventually } from './sse-client.js';

/** Lets every promise chain that can move, move (no timer involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A clock and timers the test moves by hand. */
class ManualClock implements PoolTimers {
  private at = 0;
  private seq = 0;
  private readonly due = new Map<number, { at: number; run: () => void }>();
  now = () => this.at;
  set = (run: () => void, ms: number) => {
    const id = ++this.seq;
    this.due.set(id, { at: this.at + ms, run });
    return id;
  };
  clear = (handle: unknown) => void this.due.delete(handle as number);
  /** Moves time forward by `ms`, running each timer at its time, in order. */
  async advance(ms: number): Promise<void> {
    const end = this.at + ms;
    for (;;) {
      await settle();
      const next = [...this.due.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!next) break;
      this.due.delete(next[0]);
      this.at = next[1].at;
      next[1].run();
    }
    this.at = end;
    await settle();
  }
}

/** A provider that answers only when the test says so: each read waits on its own promise. */
function slowProvider() {
  const waiting = new Map<string, Array<(result: TickResult) => void>>();
  const started: string[] = [];
  let inFlight = 0;
  let most = 0;
  return {
    started,
    get inFlight() {
      return inFlight;
    },
    get most() {
      return most;
    },
    read(key: string): Promise<TickResult> {
      started.push(key);
      most = Math.max(most, ++inFlight);
      return new Promise<TickResult>((resolve) => {
        waiting.set(key, [...(waiting.get(key) ?? []), resolve]);
      }).finally(() => inFlight--);
    },
    answer(key: string, result: TickResult = 'continue'): void {
      const [first, ...rest] = waiting.get(key) ?? [];
      if (!first) throw new Error(`no read of ${key} in flight`);
      waiting.set(key, rest);
      first(result);
    },
  };
}

const RELAY: RelayOptions = {
  ...relaySchema.parse({ minIntervalMs: 60_000, maxIntervalMs: 60_000, maxReadsInFlight: 4, sweepIntervalMs: 3_600_000 }),
  maxStreamsPerClient: 3,
  maxStreamsPerAddress: 30,
  initiationWaitMs: 15_000,
  initiationLeaseMs: 40_000,
  outbox: DEFAULT_OUTBOX_OPTIONS,
};

/** A reconciler on a memory store whose passes are reads of `provider`, with `unsettled` for its sweep. */
function reconcilerOf(provider: ReturnType<typeof slowProvider>, unsettled: string[]): Reconciler {
  return new Reconciler(
    {
      store: new MemoryStore(),
      outbox: { kick() {} } as unknown as Outbox,
      logger: pino({ level: 'silent' }),
      options: RELAY,
      pass: (ref) => provider.read(ref),
      unsettled: async () => unsettled,
      now: Date.now,
    },
    () => undefined,
  );
}

describe('ReadGate', () => {
  it('lets `limit` in, then hands each freed slot to the urgent line before the routine one', async () => {
    const gate = new ReadGate(2);
    const order: string[] = [];
    const enter = (name: string, urgent: boolean) => {
      const ticket = gate.enter(urgent);
      void ticket.granted.then((ok) => ok && order.push(name));
      return ticket;
    };
    const a = enter('a', false);
    enter('b', false);
    enter('c', false);
    const d = enter('d', false);
    enter('e', true);
    await settle();
    expect(order).toEqual(['a', 'b']);
    expect(gate.waiting).toEqual({ urgent: 1, routine: 2 });
    d.promote();
    a.release();
    a.release(); // once only: a second release frees nothing
    await settle();
    expect(order).toEqual(['a', 'b', 'e']);
    expect(gate.active).toBe(2);
  });

  it('forgets a ticket withdrawn from the line', async () => {
    const gate = new ReadGate(1);
    const a = gate.enter(false);
    const b = gate.enter(false);
    b.withdraw();
    expect(await b.granted).toBe(false);
    a.release();
    expect(gate.active).toBe(0);
    expect(gate.waiting).toEqual({ urgent: 0, routine: 0 });
  });
});

describe('the reconciler against a slow provider', () => {
  it('has at most its bound of reads in flight with 40 orders due at once, and reads a woken order before the routine line', async () => {
    const provider = slowProvider();
    const refs = Array.from({ length: 40 }, (_, i) => `SALE-${i}`);
    const reconciler = reconcilerOf(provider, refs);
    try {
      await reconciler.ready;
      await settle();
      // The sweep made 40 pollers due at once: 4 read, 36 wait in the routine line.
      expect(provider.inFlight).toBe(4);
      expect(provider.started).toEqual(refs.slice(0, 4));
      expect(reconciler.gate.waiting).toEqual({ urgent: 0, routine: 36 });

      // A callback hint for an order at the back of the line: it goes before the 35 ahead of it.
      await reconciler.hint('SALE-37');
      // A fresh payment (the pay flow's readSoon) of an order nobody polled yet: before the routine line too.
      reconciler.readSoon('FRESH-1');
      await settle();
      expect(reconciler.gate.waiting).toEqual({ urgent: 2, routine: 35 });
      provider.answer('SALE-0');
      provider.answer('SALE-1');
      provider.answer('SALE-2');
      await settle();
      expect(provider.started.slice(4)).toEqual(['SALE-37', 'FRESH-1', 'SALE-4']);

      // Every read answered as it comes: the line drains in its order, never more than 4 at once.
      for (let i = 0; provider.started.length < 41 && i < 100; i++) {
        for (const key of new Set(provider.started)) {
          try {
            provider.answer(key);
          } catch {
            // not in flight
          }
        }
        await settle();
      }
      expect(new Set(provider.started)).toEqual(new Set([...refs, 'FRESH-1']));
      expect(provider.most).toBe(4);
    } finally {
      const closing = reconciler.close();
      for (const key of new Set(provider.started)) {
        try {
          provider.answer(key, 'done');
        } catch {
          // not in flight
        }
      }
      await closing;
    }
  });
});

describe('a customer looking at a payment whose reads failed', () => {
  it('reads it at once instead of after the backoff, and at most once per interval however often they look', async () => {
    const provider = slowProvider();
    const reconciler = reconcilerOf(provider, []);
    try {
      await reconciler.ready;
      reconciler.readSoon('SALE-1');
      await settle();
      // The read times out: the next one is planned a minute away (the ceiling of the backoff).
      provider.answer('SALE-1', { backOff: 'continue' });
      await settle();
      expect(provider.inFlight).toBe(0);
      reconciler.look('SALE-1', false);
      reconciler.look('SALE-1', false);
      await eventually(() => (provider.inFlight === 1 ? true : undefined));
      expect(provider.started).toEqual(['SALE-1', 'SALE-1']);
      // Read and answered: on the schedule again, and a look of a page still waiting wakes nothing.
      provider.answer('SALE-1', 'continue');
      await settle();
      reconciler.look('SALE-1', false);
      await settle();
      expect(provider.started).toEqual(['SALE-1', 'SALE-1']);
    } finally {
      const closing = reconciler.close();
      for (let i = 0; i < 3 && provider.inFlight > 0; i++) provider.answer('SALE-1', 'done');
      await closing;
    }
  });
});

describe('PollerPool backoff after unavailability', () => {
  it('waits longer after each read that failed as unavailable, up to the ceiling, and back to the schedule after a success', async () => {
    const clock = new ManualClock();
    const provider = slowProvider();
    const pool = new PollerPool({ minIntervalMs: 1_000, maxIntervalMs: 1_000, jitter: 0, failureCeilingMs: 6_000, minWakeGapMs: 0, timers: clock });
    pool.ensure('a', () => provider.read('a'));
    await settle();
    const readsAt: number[] = [];
    // Each read answers at once: unavailable four times, then found, then unavailable once more.
    const answers: TickResult[] = [{ backOff: 'continue' }, { backOff: 'continue' }, { backOff: 'continue' }, { backOff: 'continue' }, 'continue', { backOff: 'continue' }, 'continue'];
    for (const answer of answers) {
      readsAt.push(clock.now());
      provider.answer('a', answer);
      await settle();
      // To the next read, whenever it comes.
      for (let waited = 0; provider.inFlight === 0 && waited < 20_000; waited += 100) await clock.advance(100);
    }
    const gaps = readsAt.slice(1).map((at, i) => at - readsAt[i]!);
    // 1 s planned: ×2, ×4, ×6 (the ceiling), ×6; then the schedule (1 s); then ×2 again.
    expect(gaps).toEqual([2_000, 4_000, 6_000, 6_000, 1_000, 2_000]);
    const closing = pool.close();
    provider.answer('a', 'done');
    await closing;
  });

  it('counts the interval from the start of a read, so a slow read does not push the next one later', async () => {
    const clock = new ManualClock();
    const provider = slowProvider();
    const pool = new PollerPool({ minIntervalMs: 1_000, maxIntervalMs: 1_000, jitter: 0, minWakeGapMs: 0, timers: clock });
    pool.ensure('a', () => provider.read('a'));
    await settle();
    const startedAt: number[] = [];
    for (let i = 0; i < 4; i++) {
      startedAt.push(clock.now());
      await clock.advance(300); // each read takes 300 ms
      provider.answer('a', 'continue');
      await settle();
      for (let waited = 0; provider.inFlight === 0 && waited < 20_000; waited += 100) await clock.advance(100);
    }
    // Counted from each read's end, they started 1,300 ms apart: a change waited up to 1.3 intervals to be seen.
    expect(startedAt.slice(1).map((at, i) => at - startedAt[i]!)).toEqual([1_000, 1_000, 1_000]);
    const closing = pool.close();
    provider.answer('a', 'done');
    await closing;
  });

  it('reads on the plain schedule when reads fail for other reasons (the tick says continue)', async () => {
    const clock = new ManualClock();
    const provider = slowProvider();
    const pool = new PollerPool({ minIntervalMs: 1_000, maxIntervalMs: 1_000, jitter: 0, minWakeGapMs: 0, timers: clock });
    pool.ensure('a', () => provider.read('a'));
    await settle();
    const readsAt: number[] = [];
    for (let i = 0; i < 4; i++) {
      readsAt.push(clock.now());
      provider.answer('a', 'continue');
      await settle();
      for (let waited = 0; provider.inFlight === 0 && waited < 20_000; waited += 100) await clock.advance(100);
    }
    expect(readsAt.slice(1).map((at, i) => at - readsAt[i]!)).toEqual([1_000, 1_000, 1_000]);
    const closing = pool.close();
    provider.answer('a', 'done');
    await closing;
  });
});

describe('reconcilePass', () => {
  /** An order book on a memory store, as one process has it, with what a pass needs beside it. */
  function bookOnMemory() {
    const store = new MemoryStore();
    const env = () => ({ ...ENV, listsSessions: false, reconcileWindowMs: 24 * 3_600_000 });
    const logger = pino({ level: 'silent' });
    const outbox = new Outbox(store, [], logger, () => NOW);
    const book = new OrderBook({ store, outbox, logger, env, readable: { payments: true, sessions: true }, newId: () => 'id', numberKey: (digits) => `k${digits}`, changed: () => undefined, recoveryMs: 300 });
    return { store, env, logger, outbox, book };
  }

  /** The deps of one pass over a pending payment whose status read fails with `err`. */
  function deps(err: unknown, reads: unknown[]): OrderDeps {
    const pending = order({ tries: [paymentTry()] });
    return {
      book: {
        replay: async () => undefined,
        apply: async () => ({ order: pending, reply: { kind: 'none' } }),
        read: async () => pending,
      },
      payments: {
        read: async (...args: unknown[]) => {
          reads.push(args);
          return { kind: 'error', err };
        },
      },
      env: () => ({ ...ENV, listsSessions: false, reconcileWindowMs: 24 * 3_600_000 }),
      now: () => NOW,
      logger: pino({ level: 'silent' }),
    } as unknown as OrderDeps;
  }

  it('asks its poller to back off when a read failed as unavailable, and reads as a background call', async () => {
    const reads: unknown[] = [];
    const timeout = new ProviderUnavailableError({ operation: 'payments.status', reason: 'timeout', outcomeUnknown: false, message: 'timed out' });
    expect(await reconcilePass(deps(timeout, reads), 'O', 60_000)).toEqual({ backOff: 'continue' });
    const open = new ProviderUnavailableError({ operation: 'payments.status', reason: 'circuit-open', outcomeUnknown: false, message: 'open' });
    expect(await reconcilePass(deps(open, reads), 'O', 60_000)).toEqual({ backOff: 'continue' });
    expect(reads).toEqual([
      ['O-1', 'R1', true],
      ['O-1', 'R1', true],
    ]);
  });

  it('reads a put-back order’s next number as a background call too, and backs off when it fails', async () => {
    const reads: unknown[] = [];
    const putBack = order({ tries: [paymentTry({ phase: 'refused', failureCode: 'INSUFFICIENT_FUNDS', updatedAt: NOW })], history: { payments: 'unread', sessions: 'read' } });
    const timeout = new ProviderUnavailableError({ operation: 'payments.status', reason: 'timeout', outcomeUnknown: false, message: 'timed out' });
    const probing = {
      ...deps(timeout, reads),
      book: { replay: async () => undefined, apply: async () => ({ order: putBack, reply: { kind: 'none' } }), read: async () => putBack },
      payments: {
        read: async (...args: unknown[]) => {
          reads.push(args);
          return { kind: 'error', err: timeout };
        },
        probe: () => Promise.reject(new Error('the customer-facing probe, not the reconciler’s read')),
      },
      references: references(''),
    } as unknown as OrderDeps;
    expect(await reconcilePass(probing, 'O', 60_000)).toEqual({ backOff: 'continue' });
    expect(reads).toEqual([['O-1', null, true]]);
  });

  it('keeps to its schedule after a read that failed otherwise', async () => {
    const odd = new ProviderNotFoundError({ operation: 'payments.status', status: 404, message: 'odd' });
    expect(await reconcilePass(deps(odd, []), 'O', 60_000)).toBe('continue');
  });

  // npm test under load: a pass began just before a try's deadline, the deadline passed while the provider
  // answered, and the cadence (chosen after the reads) put the order on the slow schedule unmarked: shown
  // PENDING, and TIMED_OUT reported, a slow interval late.
  it('records a deadline that passed during its reads before it chooses when to read again', async () => {
    let now = NOW;
    let stored = order({ tries: [paymentTry({ deadlineAt: NOW + 100 })] });
    const env = () => ({ ...ENV, now, listsSessions: false, reconcileWindowMs: 24 * 3_600_000 });
    const applied: string[] = [];
    const passDeps = {
      book: {
        replay: async () => undefined,
        apply: async (_ref: string, event: OrderEvent) => {
          applied.push(event.type);
          stored = transition(stored, event, env()).order;
          return { order: stored, reply: { kind: 'none' } };
        },
        read: async () => stored,
      },
      payments: {
        read: async () => {
          now += 200;
          return { kind: 'found', tx: tx('PENDING'), referenceId: 'R1' };
        },
      },
      env,
      now: () => now,
      logger: pino({ level: 'silent' }),
    } as unknown as OrderDeps;
    expect(await reconcilePass(passDeps, 'O', 60_000)).toBe(60_000);
    expect(stored.tries[0]).toMatchObject({ phase: 'pending', timedOut: true });
    expect(applied).toEqual(['tick', 'payment-read', 'tick']);
    // Nothing left to mark: the next pass ticks once, at its start, and its read (PENDING again) changes nothing.
    applied.length = 0;
    await reconcilePass(passDeps, 'O', 60_000);
    expect(applied).toEqual(['tick']);
  });

  // Issue 22's flash sale: every pass read and parsed a pending payment's record twice (its tick, then its
  // read's answer, nearly always PENDING again), and each read's string replaced the process's copy.
  it('reads the record once when its read changes nothing, and keeps the copy of the same record as it was', async () => {
    const { store, env, logger, outbox, book } = bookOnMemory();
    const key = ORDER_KEYS.order('O');
    await store.set(key, JSON.stringify(order({ tries: [paymentTry()] })));
    let gets = 0;
    const get = store.get.bind(store);
    store.get = (k: string) => ((gets += k === key ? 1 : 0), get(k));
    let answer = tx('PENDING');
    const passDeps = {
      book,
      payments: { read: async () => ({ kind: 'found', tx: answer, referenceId: 'R1' }), forget: () => undefined },
      env,
      now: () => NOW,
      logger,
    } as unknown as OrderDeps;
    try {
      // The first read records what the provider said of the try; the next ones say it again.
      expect(await reconcilePass(passDeps, 'O', 60_000)).toBe('continue');
      const kept = book['copies'].head('O');
      for (let pass = 0; pass < 3; pass++) {
        gets = 0;
        expect(await reconcilePass(passDeps, 'O', 60_000)).toBe('continue');
        expect(gets).toBe(1);
        expect(book['copies'].head('O')).toBe(kept);
      }
      // A read that changes the order is applied to the record as stored, read again for it.
      answer = tx('COMPLETED');
      gets = 0;
      await reconcilePass(passDeps, 'O', 60_000);
      expect(gets).toBe(2);
      expect(JSON.parse((await get(key))!).tries[0]).toMatchObject({ phase: 'completed' });
      expect(book['copies'].head('O')).not.toBe(kept);
    } finally {
      await outbox.close();
    }
  });

  // Every read of an open checkout session wrote its order (a new session object, so a new version each pass):
  // a store write per session per pass, and a customer's step on that order lost its compare-and-set to it.
  it('writes nothing when a read of an open checkout session says what the session says', async () => {
    const { store, env, logger, outbox, book } = bookOnMemory();
    const key = ORDER_KEYS.order('O');
    await store.set(key, JSON.stringify(order({ sessions: [session()], checkoutTerms: { amount: 12.5, title: 'Order', description: 'An order' } } as never)));
    let commits = 0;
    const commit = store.commit.bind(store);
    store.commit = (write) => ((commits += write.key === key ? 1 : 0), commit(write));
    let answer = upstreamSession('pending', { checkoutUrl: 'http://127.0.0.1/checkout/CO1' });
    const passDeps = {
      book,
      checkouts: { read: async () => ({ kind: 'found', session: answer }) },
      payments: { forget: () => undefined },
      env,
      now: () => NOW,
      logger,
    } as unknown as OrderDeps;
    try {
      for (let pass = 0; pass < 3; pass++) expect(await reconcilePass(passDeps, 'O', 60_000)).toBe('continue');
      expect(commits).toBe(0);
      expect(JSON.parse((await store.get(key))!).v).toBe(order().v);
      // A read that says something new is written (then the order, settled, leaves the reconciler's set).
      answer = upstreamSession('completed');
      expect(await reconcilePass(passDeps, 'O', 60_000)).toBe('done');
      expect(commits).toBeGreaterThan(0);
      expect(JSON.parse((await store.get(key))!).sessions[0]).toMatchObject({ phase: 'completed' });
    } finally {
      await outbox.close();
    }
  });
});
