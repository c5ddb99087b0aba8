import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook as the receiver got it: the raw body (what the signature covers) and the headers. */
export interface Received {
  id: string;
  body: string;
  headers: IncomingHttpHeaders;
  /** The status the receiver answered. */
  status: number;
}

/** A merchant's webhook endpoint on loopback, whose answer a test decides (200 by default). */
export interface TestReceiver {
  url: string;
  port: number;
  /** Every POST, in order, whatever it was answered. */
  received: Received[];
  /** The status to answer the next request with; `'hang'` never answers. */
  answer: (received: Omit<Received, 'status'>) => number | 'hang';
  /** Closes it: later tries meet a refused connection. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 (on `port` when given; a free one otherwise). */
export async function startReceiver(port = 0): Promise<TestReceiver> {
  let server: Server | undefined;
  const receiver: TestReceiver = {
    url: '',
    port,
    received: [],
    answer: () => 200,
    async start() {
      server = createServer((req, res) => {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => (body += chunk));
        req.on('end', () => {
          const got = { id: String(req.headers['webhook-id']), body, headers: req.headers };
          const status = receiver.answer(got);
          if (status === 'hang') return;
          receiver.received.push({ ...got, status });
          res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
        });
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(receiver.port, '127.0.0.1', () => resolve());
      });
      receiver.port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}/hooks/merchant`;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
        server = undefined;
      }),
  };
  await receiver.start();
  return receiver;
}

/** A Standard Webhooks secret for tests (32 bytes). */
export const TEST_WEBHOOK_SECRET = `whsec_${Buffer.from('merchant-elements-webhook-test-secret!!').subarray(0, 32).toString('base64')}`;
