import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Where the kernel's ephemeral ports begin: those it gives `listen(0)` and the source ports of outgoing
 * connections (Linux's `ip_local_port_range`; IANA's 49152 elsewhere).
 */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 0 ? first : 49_152;
  } catch {
    return 49_152;
  }
}

/** The lowest port handed out: above the well-known and most registered services' ports. */
const LOWEST = 20_000;
const HIGHEST = ephemeralStart() - 1;
/** This process's next port: a random start, so that test processes running at once take different ports. */
let next = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1));

/** True when a server can listen on `port` of 127.0.0.1 right now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port free right now on 127.0.0.1, for servers that cannot be told port 0 (`php -S`, redis-server,
 * a guide's own terminals). Taken below the ephemeral range: a port of that range, free when picked, could
 * be taken before the server bound it by any outgoing connection's source port, or by the caller's own
 * polling (a connection to a local port of that range that nothing listens on can connect to itself, TCP's
 * simultaneous open, and then looks like a server). The likely cause of one npm test run under load where
 * a guide's `serve` answered nothing after its terminal was taken to listen, and every step needing it failed.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = next;
    next = next >= HIGHEST ? LOWEST : next + 1;
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST} and ${HIGHEST} on 127.0.0.1 after 200 tries`);
}
