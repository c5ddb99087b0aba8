/**
 * The sandbox as its own process for the bench (forked by lib/processes.ts): `startSandbox` with the
 * options in BENCH_SETTINGS on a free loopback port. Asked over IPC for its request counts
 * (`state.requestCounts`, by route name), its memory, CPU time, open connections and event-loop delay.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { collectedMemory, serveParent } from '../lib/ipc.js';

const options = JSON.parse(process.env['BENCH_SETTINGS'] ?? '{}') as SandboxOptions;
const sandbox = await startSandbox({ ...options, port: 0 });
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

serveParent(
  {
    counts: () => Object.fromEntries(sandbox.app.sandbox.requestCounts),
    memory: collectedMemory,
    cpu: () => process.cpuUsage(),
    /** Sockets open to the sandbox's server now (its clients' connection pools). */
    connections: () => new Promise<number>((resolve, reject) => sandbox.server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    /** The event loop's delay since the last ask, in ms (p50, p99, max), then starts afresh. */
    loopDelay: () => {
      const ms = (ns: number) => ns / 1e6;
      const answer = { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) };
      loopDelay.reset();
      return answer;
    },
  },
  { url: sandbox.url },
);
