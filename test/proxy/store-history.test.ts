/**
 * The store's history (DESIGN: a store that goes back in time), against real redis-server processes: a Redis
 * restarted from an older snapshot, reloaded from an older copy in place, emptied, or restarted with nothing
 * lost, as running processes (and a process started afterwards) see it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readinessResponse } from '../../src/protocol/index.js';
import { READY_PATH } from '../../src/proxy/routes/ready.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { RedisStore } from '../../src/proxy/store/redis.js';
import { HISTORY_KEYS, StoreHistory, type MovedBack } from '../../src/proxy/store/store-history.js';
import { eventually } from './sse-client.js';
import { freePort, startHarness, type Harness } from './helpers.js';

/** A redis-server the test restarts on the same port and files: from its snapshot, or its append-only file. */
class RestartableRedis {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), 'me-history-'));
  constructor(
    readonly port: number,
    private readonly args: string[],
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--appendonly', 'no', '--enable-debug-command', 'yes', ...this.args];
    this.child = spawn('redis-server', args, { stdio: 'ignore' });
    await eventually(async () => {
      const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        return (await probe.info('persistence')).includes('loading:0') ? true : undefined;
      } catch {
        return undefined;
      } finally {
        probe.disconnect();
      }
    }, 15_000);
  }

  async command(...args: string[]): Promise<unknown> {
    const admin = new Redis(this.url);
    try {
      return await admin.call(args[0]!, ...args.slice(1));
    } finally {
      admin.disconnect();
    }
  }

  /** Killed (nothing saved on the way out), then started again from what is on disk. */
  async restart(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    }
    await this.start();
  }

  async close(): Promise<void> {
    this.child?.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const servers: RestartableRedis[] = [];
const stores: RedisStore[] = [];
async function server(args: string[] = []): Promise<RestartableRedis> {
  const s = new RestartableRedis(await freePort(), args);
  servers.push(s);
  await s.start();
  return s;
}
/** One process's watch: its own connection, and every move back it learns of. */
function watch(redis: RestartableRedis, prefix: string, acknowledge = 0) {
  const store = new RedisStore({ url: redis.url, prefix });
  stores.push(store);
  const history = new StoreHistory(store, { acknowledge });
  const events: MovedBack[] = [];
  history.onMovedBack((e) => void events.push(e));
  /** Looks until the store answers again (after a restart the connection comes back by itself). */
  const look = () => eventually(() => history.check().catch(() => undefined), 15_000);
  return { store, history, events, look };
}

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await Promise.all(servers.map((s) => s.close()));
});

describe('a Redis whose history moved back, as running processes see it', () => {
  it('restarted from an older snapshot: every running process learns it once, and a process started afterwards too', async () => {
    const redis = await server();
    const prefix = `h1-${process.pid}:`;
    const a = watch(redis, prefix);
    const b = watch(redis, prefix);
    await a.look();
    await b.look();
    const era = a.history.era();
    expect(era).not.toBeNull();
    expect(b.history.era()).toBe(era);
    await redis.command('SAVE');
    // More writes after the snapshot: the markers advanced past it.
    for (let i = 0; i < 3; i++) await a.look(), await b.look();
    await redis.restart();

    await a.look();
    // Its marker went back (it remembers a later one); Redis restarted on a new history besides.
    expect(a.events).toEqual([expect.objectContaining({ kind: 'rolled-back', generation: 1 })]);
    expect(a.history.era()).not.toBe(era);
    await b.look();
    // The second process finds the new era the first one declared, or the restart itself: one move back each.
    expect(b.events).toHaveLength(1);
    expect(b.history.generation()).toBe(1);
    expect(b.history.era()).toBe(a.history.era());
    for (let i = 0; i < 3; i++) await a.look(), await b.look();
    expect(a.history.generation()).toBe(1);
    expect(b.history.generation()).toBe(1);

    // A process started on the restored store before any other looked remembers nothing: the marker's
    // writer (another run_id, a snapshot-only server) tells it.
    await redis.command('SAVE');
    await redis.restart();
    const c = watch(redis, prefix);
    await c.look();
    expect(c.events).toEqual([expect.objectContaining({ kind: 'restarted', generation: 1 })]);
  });

  it('reloaded in place from an older copy (same server process): the marker went back', async () => {
    const redis = await server();
    const a = watch(redis, `h2-${process.pid}:`);
    await a.look();
    await redis.command('SAVE');
    for (let i = 0; i < 3; i++) await a.look();
    // Loads the snapshot without saving first: the same run_id, an older history.
    await redis.command('DEBUG', 'RELOAD', 'NOSAVE');
    await a.look();
    expect(a.events).toEqual([expect.objectContaining({ kind: 'rolled-back', generation: 1, detail: expect.stringMatching(/went back from 4 to 1/) })]);
  });

  it('emptied under a running process: learnt as a move back; a process new to the empty store starts its history', async () => {
    const redis = await server();
    const prefix = `h3-${process.pid}:`;
    const a = watch(redis, prefix);
    await a.look();
    await redis.command('FLUSHALL');
    await a.look();
    expect(a.events).toEqual([expect.objectContaining({ kind: 'emptied', generation: 1 })]);
    await redis.command('FLUSHALL');
    const fresh = watch(redis, prefix);
    await fresh.look();
    expect(fresh.events).toEqual([]);
    expect(await fresh.store.get(HISTORY_KEYS.era)).toBe(fresh.history.era());
  });

  it('restarted with an append-only file written on every write: nothing acknowledged was lost, so no move back', async () => {
    const redis = await server(['--appendonly', 'yes', '--appendfsync', 'always']);
    const a = watch(redis, `h4-${process.pid}:`);
    await a.look();
    const era = a.history.era();
    await redis.restart();
    await a.look();
    await a.look();
    expect(a.events).toEqual([]);
    expect(a.history.era()).toBe(era);
  });
});

describe('processes racing on the marker', () => {
  it('learn nothing moved back while the store keeps its history, however their looks interleave', async () => {
    const store = new MemoryStore();
    const watches = Array.from({ length: 5 }, () => new StoreHistory(store, { acknowledge: 0 }));
    const events: MovedBack[] = [];
    for (const w of watches) w.onMovedBack((e) => void events.push(e));
    for (let round = 0; round < 20; round++) await Promise.all(watches.map((w) => w.check()));
    expect(events).toEqual([]);
    expect(new Set(watches.map((w) => w.era())).size).toBe(1);
    // One of them finds the store emptied; the others learn it from the new era, once each.
    await store.del(HISTORY_KEYS.marker);
    await watches[0]!.check();
    for (const w of watches.slice(1)) await w.check();
    expect(events.map((e) => e.kind)).toEqual(['emptied', 'elsewhere', 'elsewhere', 'elsewhere', 'elsewhere']);
    expect(watches.map((w) => w.generation())).toEqual([1, 1, 1, 1, 1]);
  });
});

describe('a failover, as a process on the promoted replica sees it', () => {
  it('moved back when commits did not wait for a replica; not when every commit waited for one', async () => {
    for (const acknowledge of [0, 1]) {
      const master = await server();
      const replica = await server(['--replicaof', '127.0.0.1', String(master.port)]);
      const prefix = `h6-${acknowledge}-${process.pid}:`;
      await eventually(async () => ((await replica.command('INFO', 'replication')) as string).includes('master_link_status:up') || undefined, 15_000);
      const before = watch(master, prefix, acknowledge);
      await before.look();
      // The replica has the marker, then is promoted (what Sentinel does after the master is lost).
      await eventually(async () => ((await replica.command('GET', `${prefix}${HISTORY_KEYS.marker}`)) !== null) || undefined, 15_000);
      await replica.command('REPLICAOF', 'NO', 'ONE');
      const after = watch(replica, prefix, acknowledge);
      await after.look();
      if (acknowledge === 0) expect(after.events).toEqual([expect.objectContaining({ kind: 'failed-over', generation: 1 })]);
      else expect(after.events).toEqual([]);
    }
  });
});

describe('readiness after the store moved back', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a running proxy learns of a snapshot restore by itself, and /ready says so in its notes', async () => {
    const redis = await server();
    h = await startHarness({ config: { redisUrl: redis.url, redisPrefix: `h5-${process.pid}:` } });
    await h.proxy.ready();
    await redis.command('SAVE');
    await redis.restart();
    const notes = await eventually(async () => {
      const res = await h!.get(READY_PATH);
      const body = readinessResponse.parse(res.body);
      return body.checks.store.notes.find((n) => n.includes("the store's history moved back"));
    }, 20_000);
    expect(notes).toMatch(/generation 1\): Redis restarted/);
    expect(h.logs.entries().filter((e) => String(e.msg).startsWith("the store's history moved back"))).toHaveLength(1);
  }, 60_000);
});
