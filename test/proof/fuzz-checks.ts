import fc, { type Arbitrary } from 'fast-check';
import type { z } from 'zod';
import { describeExchange, type FuzzRequest, type FuzzResponse } from './fuzz-http.js';

/**
 * The properties every fuzzed exchange must keep, and the runner that sends generated requests in
 * concurrent batches under fast-check (the seed is printed on failure, so a failure replays).
 */

/** Says what is wrong with an exchange, or null. */
export type ExchangeCheck = (req: FuzzRequest, res: FuzzResponse) => string | null;

/** The forms a secret takes on the wire besides itself: base64 and base64url, alone and as Basic `user:password`. */
export function secretForms(secrets: readonly string[], basicPairs: readonly [string, string][] = []): string[] {
  const forms = new Set<string>();
  for (const s of secrets) {
    forms.add(s);
    forms.add(Buffer.from(s).toString('base64'));
    forms.add(Buffer.from(s).toString('base64url'));
  }
  for (const [user, password] of basicPairs) forms.add(Buffer.from(`${user}:${password}`).toString('base64'));
  return [...forms];
}

/** Fails when any of `forbidden` appears in the answer's headers or (first bytes of the) body. */
export function noSecretEchoed(forbidden: readonly string[]): ExchangeCheck {
  return (_req, res) => {
    const text = `${JSON.stringify(res.headers)}\n${res.body.toString('utf8')}\n${res.body.toString('latin1')}`;
    const hit = forbidden.find((secret) => text.includes(secret));
    return hit ? `a secret was echoed (${hit.slice(0, 12)}…)` : null;
  };
}

/** Never a 5xx (nor no status at all). */
export const noServerError: ExchangeCheck = (_req, res) =>
  res.status >= 500 || res.status < 100 ? `answered ${res.status} to client input` : null;

/** Parses a JSON answer with `schema`; the reason when it does not fit. */
export function jsonFits(res: FuzzResponse, schema: z.ZodType): string | null {
  const type = String(res.headers['content-type'] ?? '');
  if (!/^application\/json\b/i.test(type)) return `not JSON (content-type ${JSON.stringify(type)})`;
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    return 'body is not valid JSON';
  }
  const parsed = schema.safeParse(body);
  return parsed.success ? null : `body does not fit the schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
}

/** Every 4xx (but to HEAD, which has no body) has a body of the documented error shape. */
export function errorsHaveShape(shapeOf: (req: FuzzRequest, res: FuzzResponse) => string | null): ExchangeCheck {
  return (req, res) => {
    if (res.status < 400 || res.status >= 500 || req.method === 'HEAD') return null;
    const problem = shapeOf(req, res);
    return problem ? `${res.status} not in the documented error shape: ${problem}` : null;
  };
}

/** Runs several checks; the first problem wins. */
export function allOf(...checks: ExchangeCheck[]): ExchangeCheck {
  return (req, res) => {
    for (const check of checks) {
      const problem = check(req, res);
      if (problem) return problem;
    }
    return null;
  };
}

/**
 * What went wrong in the process while it listens: unhandled rejections, uncaught exceptions, and any
 * property added to Object.prototype or Array.prototype (prototype pollution). Each fails the suite.
 */
export interface ProcessWatch {
  problems(): string[];
  stop(): void;
}

export function watchProcess(): ProcessWatch {
  const seen: string[] = [];
  const describe = (what: string) => (err: unknown) =>
    seen.push(`${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  const onRejection = describe('unhandled rejection');
  const onException = describe('uncaught exception');
  const shapes = () => [Object.prototype, Array.prototype].map((p) => Reflect.ownKeys(p).map(String).sort().join(','));
  const before = shapes();
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    problems: () => [...seen, ...(shapes().join('|') === before.join('|') ? [] : ['a built-in prototype gained a property'])],
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

export interface FuzzRun {
  requests: Arbitrary<FuzzRequest>;
  send(req: FuzzRequest): Promise<FuzzResponse>;
  check: ExchangeCheck;
  /** Requests to send at least (rounded up to whole batches). */
  total: number;
  /** Requests in flight at once (one batch). */
  concurrency: number;
  /** True when a request got past the gates into the route's own code; counted into `reached`. */
  reached?: (req: FuzzRequest, res: FuzzResponse) => boolean;
  /** Called with each answer, for tallies. */
  onAnswer?: (req: FuzzRequest, res: FuzzResponse) => void;
}

/**
 * The seed (and path) fast-check printed for a failure, from FUZZ_SEED (and FUZZ_PATH), to generate the
 * same requests again; fast-check picks a fresh seed otherwise.
 */
function replay(): { seed?: number; path?: string } {
  const seed = process.env.FUZZ_SEED;
  if (seed === undefined || seed === '') return {};
  return { seed: Number(seed), ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}) };
}

/**
 * Sends `total` generated requests, `concurrency` at a time, and fails on the first exchange that breaks
 * `check` or gets no answer. Returns how many requests were sent and how many `reached` the route.
 * fast-check shrinks a failing batch (boundedly) and reports its seed and path for replay.
 */
export async function fuzz(run: FuzzRun): Promise<{ sent: number; reached: number }> {
  let sent = 0;
  let reached = 0;
  const batch = fc.limitShrink(fc.array(run.requests, { minLength: run.concurrency, maxLength: run.concurrency }), 100);
  await fc.assert(
    fc.asyncProperty(batch, async (requests) => {
      const outcomes = await Promise.all(
        requests.map(async (req) => {
          let res: FuzzResponse;
          try {
            res = await run.send(req);
          } catch (err) {
            return `no answer: ${err instanceof Error ? err.message : String(err)}\n${describeExchange(req)}`;
          }
          sent += 1;
          if (run.reached?.(req, res)) reached += 1;
          run.onAnswer?.(req, res);
          const problem = run.check(req, res);
          return problem ? `${problem}\n${describeExchange(req, res)}` : null;
        }),
      );
      const failure = outcomes.find((o) => o !== null);
      if (failure) throw new Error(failure);
    }),
    { numRuns: Math.ceil(run.total / run.concurrency), ...replay() },
  );
  return { sent, reached };
}
