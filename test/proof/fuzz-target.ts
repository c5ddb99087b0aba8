import { afterAll, beforeAll } from 'vitest';
import { rawClient, type FuzzRequest, type RawClient } from './fuzz-http.js';

/** A server under fuzz, what was prepared in it, its URL, and a raw client of it. */
export interface FuzzTarget<S, W> {
  server: S;
  world: W;
  url: string;
  client: RawClient;
}

export interface FuzzTargetSetup<S, W> {
  start(): Promise<S>;
  url(server: S): string;
  /** Walks the flows once so the fuzz has real identifiers and credentials to aim at. */
  prepare(server: S): Promise<W>;
}

/**
 * Registers the suite's beforeAll (start, prepare, open a client) and afterAll (close both); the object
 * returned is filled in once beforeAll has run.
 */
export function useFuzzTarget<S extends { close(): Promise<void> }, W>(setup: FuzzTargetSetup<S, W>): FuzzTarget<S, W> {
  const target = {} as FuzzTarget<S, W>;
  beforeAll(async () => {
    target.server = await setup.start();
    target.world = await setup.prepare(target.server);
    target.url = setup.url(target.server);
    target.client = rawClient(target.url);
  }, 30_000);
  afterAll(async () => {
    target.client?.close();
    await target.server?.close();
  });
  return target;
}

/** Sends one request and parses its JSON answer, for the plain regression tests. */
export async function answerOf(client: RawClient, req: FuzzRequest): Promise<{ status: number; body: unknown }> {
  const res = await client.send(req);
  return { status: res.status, body: JSON.parse(res.body.toString('utf8')) };
}
