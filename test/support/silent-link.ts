// A loopback TCP relay between a browser and a server that can go silent as a phone network does: bytes stop
// flowing but no connection is closed or reset, so neither end learns anything until its own deadline. A
// connection that went silent stays dead when the link comes back (a carrier's NAT forgot it): what the
// browser then sends on it is answered with a reset, and a connection it only reads from stays silent.
// Connections opened after that flow again.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

interface Pair {
  client: Socket;
  /** Bytes from the browser are dropped. */
  upDead: boolean;
  /** Bytes to the browser are dropped. */
  downDead: boolean;
}

export class SilentLink {
  private readonly pairs = new Set<Pair>();
  private silent = false;
  private trigger: RegExp | undefined;

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:port` of the link. */
    readonly url: string,
  ) {}

  /** A link on 127.0.0.1 to the server at `target` (`http://127.0.0.1:port`). */
  static async start(target: string): Promise<SilentLink> {
    const { hostname, port } = new URL(target);
    let link!: SilentLink;
    const server = createServer((client) => link.join(client, hostname, Number(port)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    link = new SilentLink(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return link;
  }

  /** Goes silent now: every connection, open or opened while silent, carries nothing more either way. */
  silence(): void {
    this.silent = true;
    for (const pair of this.pairs) pair.upDead = pair.downDead = true;
  }

  /**
   * Goes silent right after the browser sends bytes matching `request` (its request line): that request
   * reaches the server whole, its answer is lost, and so is everything else until {@link restore}.
   */
  silenceAfter(request: RegExp): void {
    this.trigger = request;
  }

  /** The network is back: new connections flow; those that went silent stay dead. */
  restore(): void {
    this.silent = false;
    this.trigger = undefined;
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) pair.client.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private join(client: Socket, host: string, port: number): void {
    const upstream = connect(port, host);
    const pair: Pair = { client, upDead: this.silent, downDead: this.silent };
    this.pairs.add(pair);
    client.on('data', (chunk) => {
      // Sent on a dead connection once the network is back: the server no longer knows it, and resets it.
      if (pair.upDead && !this.silent) return void client.resetAndDestroy();
      if (pair.upDead) return;
      upstream.write(chunk);
      if (this.trigger?.test(chunk.toString('latin1'))) {
        this.silence();
        // The request's own body still goes through: only its answer is lost.
        pair.upDead = false;
      }
    });
    upstream.on('data', (chunk) => pair.downDead || client.write(chunk));
    // The browser closing a connection (its deadline) closes the server's side; a dead connection is never
    // closed towards the browser.
    client.on('close', () => (upstream.destroy(), this.pairs.delete(pair)));
    upstream.on('close', () => pair.downDead || client.destroy());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  }
}
