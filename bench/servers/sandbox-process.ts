/**
 * The sandbox as its own process for the bench (forked by lib/processes.ts): `startSandbox` with the
 * options in BENCH_SETTINGS on a free loopback port. Asked over IPC for its request counts
 * (`state.requestCounts`, by route name) and its memory.
 */
import { startSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { collectedMemory, serveParent } from '../lib/ipc.js';

const options = JSON.parse(process.env['BENCH_SETTINGS'] ?? '{}') as SandboxOptions;
const sandbox = await startSandbox({ ...options, port: 0 });

serveParent(
  {
    counts: () => Object.fromEntries(sandbox.app.sandbox.requestCounts),
    memory: collectedMemory,
    cpu: () => process.cpuUsage(),
  },
  { url: sandbox.url },
);
