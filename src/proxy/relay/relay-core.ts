import type { ProxyContext } from '../context.js';
import type { Outbox } from '../outbox/outbox.js';
import { CHANNELS, type Subject } from '../payments/keys.js';
import { PollerPool } from './poller-pool.js';
import type { RelayOptions } from './relay-options.js';
import { Watchers } from './watchers.js';

/**
 * What the payment and checkout trackers share in one process: the poller pool, the local watchers,
 * the change channel, and a registry of background work (hooks, receipts) that `close()` waits for.
 */
export class RelayCore {
  readonly pool: PollerPool;
  readonly watchers = new Watchers();
  private readonly tasks = new Set<Promise<unknown>>();
  /** Per-subject chains, so the hooks of one reference run in order within a process. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    readonly ctx: ProxyContext,
    readonly options: RelayOptions,
    /** Where every state change is recorded before it is delivered to the merchant. */
    readonly outbox: Outbox,
  ) {
    this.pool = new PollerPool({
      minIntervalMs: options.minIntervalMs,
      maxIntervalMs: options.maxIntervalMs,
      minWakeGapMs: options.minWakeGapMs,
      onError: (key, err) => ctx.logger.warn({ subject: key, err: describeError(err) }, 'relay poll failed'),
    });
  }

  /** Tells this process's watchers at once and the other instances through the store. */
  changed(subject: Subject): void {
    this.watchers.emit(subject);
    this.background(this.ctx.store.publish(CHANNELS.changed, subject));
  }

  /** Runs `task` in the background: awaited by `close()`, a rejection only logged. */
  background(task: Promise<unknown>): void {
    const tracked = task.catch((err: unknown) => {
      this.ctx.logger.warn({ err: describeError(err) }, 'relay background task failed');
    });
    this.tasks.add(tracked);
    void tracked.finally(() => this.tasks.delete(tracked));
  }

  /** Runs `step` after the previous step queued for `subject` (hooks of one reference never overlap). */
  inOrder(subject: string, step: () => Promise<void>): void {
    const previous = this.chains.get(subject) ?? Promise.resolve();
    const next = previous.then(step, step).catch((err: unknown) => {
      this.ctx.logger.warn({ subject, err: describeError(err) }, 'relay notification failed');
    });
    this.chains.set(subject, next);
    this.background(next.finally(() => {
      if (this.chains.get(subject) === next) this.chains.delete(subject);
    }));
  }

  /** Stops every poller and waits for the background work and the outbox's drain. */
  async close(): Promise<void> {
    await this.pool.close();
    while (this.tasks.size > 0) await Promise.all([...this.tasks]);
    await this.outbox.close();
  }
}

/** What of an error is safe and useful in a log line. */
export function describeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    const extra = err as Error & { code?: unknown; status?: unknown; operation?: unknown; reason?: unknown };
    return { type: err.name, message: err.message, code: extra.code, status: extra.status, operation: extra.operation, reason: extra.reason };
  }
  return { type: typeof err };
}
