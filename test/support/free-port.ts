import { createServer, type AddressInfo } from 'node:net';

/** A TCP port free right now on 127.0.0.1 (for servers that cannot be told port 0, like `php -S`). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
