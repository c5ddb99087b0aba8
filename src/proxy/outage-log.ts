import type { Logger } from 'pino';
import { HOST_RUNTIME } from './runtime.js';

/** How often an outage still going on is summarised (`outageSummaryIntervalMs`). */
export const OUTAGE_SUMMARY_INTERVAL_MS = 60_000;

/** Starts a repeating timer; returns its stop. */
export type Every = (tick: () => void, ms: number) => () => void;

const realEvery: Every = (tick, ms) => {
  const timer = HOST_RUNTIME.interval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/** One kind of failure being told: since when, and how many since the last line about it. */
interface Ongoing {
  level: 'warn' | 'error';
  msg: string;
  since: number;
  total: number;
  recent: number;
}

/**
 * Tells each kind of outage once, then summarises it (DESIGN: logs). The first failure of a kind (the provider's
 * payment operations unavailable, the store, a webhook receiver) is logged as it was, with `outage: kind`;
 * every later one is counted, and once per interval a line says how many came (`count`, `total`, `sinceMs`);
 * an interval with none ends it (`outage ended`, with its total and length). During a provider outage there was
 * a warning and an error per refused request (about 2,900 error lines a minute) and a warning per webhook retry.
 */
export class OutageLog {
  private readonly ongoing = new Map<string, Ongoing>();
  private stop: (() => void) | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly options: { intervalMs?: number; now?: () => number; every?: Every } = {},
  ) {}

  /**
   * One failure of `kind`; `via` is the logger its first line goes to (the reporter's own, naming its request),
   * summaries and the end go to this one's.
   */
  report(kind: string, level: 'warn' | 'error', fields: object, msg: string, via: Logger = this.logger): void {
    const known = this.ongoing.get(kind);
    if (known) {
      known.total += 1;
      known.recent += 1;
      return;
    }
    if (via.isLevelEnabled(level)) via[level]({ ...fields, outage: kind }, msg);
    this.ongoing.set(kind, { level, msg, since: this.now(), total: 1, recent: 0 });
    this.stop ??= (this.options.every ?? realEvery)(() => this.summarise(), this.intervalMs);
  }

  /** Each kind going on now, with its failures so far. */
  totals(): Record<string, number> {
    return Object.fromEntries([...this.ongoing].map(([kind, o]) => [kind, o.total]));
  }

  /** One interval has passed: a line per kind still failing, an end line per kind that stopped. */
  summarise(): void {
    const now = this.now();
    for (const [kind, o] of this.ongoing) {
      const sinceMs = now - o.since;
      if (o.recent > 0) {
        // On the proxy's own logger: the first line's (a request's) bindings would name one request of many.
        if (this.logger.isLevelEnabled(o.level)) {
          this.logger[o.level]({ outage: kind, count: o.recent, total: o.total, sinceMs }, `${o.msg} (still: ${o.recent} more in the last ${Math.round(this.intervalMs / 1000)} s, ${o.total} since it began)`);
        }
        o.recent = 0;
        continue;
      }
      this.ongoing.delete(kind);
      if (this.logger.isLevelEnabled('warn')) this.logger.warn({ outage: kind, total: o.total, sinceMs }, `outage ended: ${o.msg} (${o.total} in ${Math.round(sinceMs / 1000)} s)`);
    }
    if (this.ongoing.size === 0) this.close();
  }

  /** Stops the timer (the proxy's close). */
  close(): void {
    this.stop?.();
    this.stop = undefined;
  }

  private get intervalMs(): number {
    return this.options.intervalMs ?? OUTAGE_SUMMARY_INTERVAL_MS;
  }

  private now(): number {
    return (this.options.now ?? HOST_RUNTIME.now)();
  }
}

/** The outage log of each proxy, by its logger: code that is handed the proxy's logger reports through it. */
const registry = new WeakMap<Logger, OutageLog>();

/** The outage log `logger` reports through, if any. */
export function outageLogOf(logger: Logger): OutageLog | undefined {
  return registry.get(logger);
}

/** Makes `outages` the one that {@link reportOutage} with `logger` goes through. */
export function registerOutageLog(logger: Logger, outages: OutageLog): void {
  registry.set(logger, outages);
}

/**
 * Reports one failure of `kind` through the outage log registered for `logger`; without one (a logger the
 * proxy did not make), logs it as a line of its own.
 */
export function reportOutage(logger: Logger, kind: string, level: 'warn' | 'error', fields: object, msg: string): void {
  const outages = registry.get(logger);
  if (outages) outages.report(kind, level, fields, msg, logger);
  else logger[level](fields, msg);
}
