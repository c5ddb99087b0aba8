// The bench talks to its server processes over Node's IPC channel (child_process.fork): a question is
// `{ id, ask }`, the answer `{ id, answer }` or `{ id, error }`. No HTTP route is added to the servers
// under test, so nothing the bench asks shows up in their request counts or their timings.

/** What a server process can be asked, by name. */
export type Handlers = Record<string, () => unknown>;

/** A message from a server process to the bench. */
export type ChildMessage =
  | { ready: Record<string, unknown> }
  | { id: number; answer: unknown }
  | { id: number; error: string };

/**
 * Child side: tells the parent it is ready (with `info`, e.g. its URL), answers its questions with
 * `handlers`, and exits when the parent goes away (even killed), so no server outlives a bench run.
 */
export function serveParent(handlers: Handlers, info: Record<string, unknown>): void {
  // An answer to a parent that has just gone (it stops a run that failed) is dropped, not an 'error' event
  // that would end this process with EPIPE and hide the failure that stopped the run.
  const send = (message: ChildMessage) => process.connected && process.send?.(message, undefined, {}, () => undefined);
  process.on('message', (message: { id: number; ask: string }) => {
    const handler = handlers[message.ask];
    if (!handler) return send({ id: message.id, error: `no handler for ${message.ask}` });
    Promise.resolve()
      .then(handler)
      .then(
        (answer) => send({ id: message.id, answer }),
        (err: unknown) => send({ id: message.id, error: err instanceof Error ? err.message : String(err) }),
      );
  });
  process.on('disconnect', () => process.exit(0));
  send({ ready: info });
}

/** Memory of a process after two full collections (run with --expose-gc), as `process.memoryUsage()` says. */
export function collectedMemory(): NodeJS.MemoryUsage {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage();
}
