import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createSandbox, type SandboxApp } from './app.js';
import type { SandboxOptions } from './options.js';

export { createSandbox, type SandboxApp } from './app.js';
export { sandboxOptionsFromEnv, type SandboxOptions, FAULT_KINDS, type FaultKind } from './options.js';
export { PROMPT_LIFETIME_SECONDS, TEST_NUMBERS } from './test-numbers.js';

export interface StartedSandbox {
  app: SandboxApp;
  server: Server;
  /** Root URL, e.g. `http://127.0.0.1:4010`: the `{base_url}` of messaging and checkout. */
  url: string;
  /** `{payment_base_url}`: `${url}/gateway`. */
  paymentUrl: string;
  close(): Promise<void>;
}

/** Starts the sandbox on `host:port` (port 0 picks a free one) and resolves once it listens. */
export async function startSandbox(
  options: SandboxOptions & { port?: number; host?: string } = {},
): Promise<StartedSandbox> {
  const { port = 0, host = '127.0.0.1', ...rest } = options;
  const app = createSandbox(rest);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  // A client gets 10 s for its headers and 30 s for its whole request (Node's 300 s let a trickled body
  // hold a socket for five minutes); answers may take as long as they need (a hang fault, a stream).
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  const { port: actual } = server.address() as AddressInfo;
  const url = `http://${host}:${actual}`;
  return {
    app,
    server,
    url,
    paymentUrl: `${url}/gateway`,
    close: () =>
      new Promise<void>((resolve) => {
        app.sandbox.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
