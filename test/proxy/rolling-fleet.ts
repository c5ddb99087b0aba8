// Several `merchant-elements serve` processes on one Redis behind a round-robin front, restarted one at a time
// with a new environment (a rolling restart, as an operator rotates a secret), and customer journeys run
// through the front meanwhile: what the rotation suites share.
import { expect } from 'vitest';
import { listening, type Served, type ServeSuite } from '../cli/serve-harness.js';
import { startRoundRobinFront, type RoundRobinFront } from '../proof/round-robin-front.js';
import { eventually } from './sse-client.js';

export interface RollingFleet {
  front: RoundRobinFront;
  /** `front.url` + the proxy's mount path. */
  base: string;
  /**
   * Restarts instance `index` with `env`: out of the front first, then SIGTERM (it drains and must exit 0),
   * then the new process, back in the front once it listens.
   */
  restart(index: number, env: NodeJS.ProcessEnv): Promise<void>;
  close(): Promise<void>;
}

/** Starts one instance per environment and a front over them. */
export async function startRollingFleet(suite: ServeSuite, envs: NodeJS.ProcessEnv[]): Promise<RollingFleet> {
  const start = async (env: NodeJS.ProcessEnv) => {
    const served = suite.serve(['--port', '0'], env);
    return { served, url: await listening(served) };
  };
  const instances: { served: Served; url: string }[] = await Promise.all(envs.map(start));
  const front = await startRoundRobinFront(instances.map((i) => i.url));
  return {
    front,
    base: `${front.url}/merchant-elements`,
    async restart(index, env) {
      const old = instances[index]!;
      front.backends.splice(front.backends.indexOf(old.url), 1);
      old.served.child.kill('SIGTERM');
      expect(await old.served.exit, old.served.stderr()).toBe(0);
      instances[index] = await start(env);
      front.backends.push(instances[index]!.url);
    },
    async close() {
      await front.close();
      for (const { served } of instances) served.child.kill('SIGTERM');
      await Promise.all(instances.map((i) => i.served.exit));
    },
  };
}

/** Journeys run over and over, each given its own number, until stopped; a failed one is recorded with its reason. */
export interface Traffic {
  /** Journeys that ended well so far. */
  completed(): number;
  /** Why each failed journey failed. */
  failures: string[];
  /** Resolves once `count` more journeys have ended well than when it was called. */
  more(count: number): Promise<void>;
  /** Lets each running journey finish, starts no other. */
  stop(): Promise<void>;
}

export function runTraffic(journey: (n: number) => Promise<void>, lanes: number, firstNumber = 1): Traffic {
  let next = firstNumber;
  let done = 0;
  let stopping = false;
  const failures: string[] = [];
  const lane = async () => {
    while (!stopping) {
      const n = next++;
      try {
        await journey(n);
        done += 1;
      } catch (err) {
        failures.push(`journey ${n}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  const running = Promise.all(Array.from({ length: lanes }, lane));
  return {
    completed: () => done,
    failures,
    async more(count) {
      const target = done + count;
      // Generous: a restarted instance compiles the CLI on busy cores before it answers.
      await eventually(() => (done >= target || failures.length > 0 ? true : undefined), 120_000, 50);
    },
    async stop() {
      stopping = true;
      await running;
    },
  };
}

/** A fetch through the front that throws, with what it got, unless the status is the one expected. */
export async function call(url: string, init: RequestInit & { expect: number }): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== init.expect) throw new Error(`${init.method ?? 'GET'} ${new URL(url).pathname}: ${res.status} ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** A Ghanaian number of its own for journey `n` (its own number prefix too, so no per-number or per-prefix limit is shared). */
export const journeyNumber = (n: number) => `23324${String(n % 1000).padStart(3, '0')}5555`;

/** Its own client address for journey `n`, sent as X-Forwarded-For (the instances trust the loopback front). */
export const journeyAddress = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
