import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/**
 * One fuzzed HTTP request, sent byte for byte with `node:http` (fetch refuses invalid bytes, duplicate or
 * forbidden headers and hand-made request targets).
 */
export interface FuzzRequest {
  method: string;
  /** Request target sent as is: already percent-encoded, or deliberately not. */
  path: string;
  /** Headers in order; a name given twice is sent twice. */
  headers: [string, string][];
  body?: Uint8Array | undefined;
  /** Sends the body in this many writes with `Transfer-Encoding: chunked` instead of `Content-Length`. */
  chunks?: number | undefined;
}

export interface FuzzResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The first bytes of the body (all of it unless `cut`). */
  body: Buffer;
  /** True when the client stopped reading (an event stream, or a body past `maxBytes`). */
  cut: boolean;
}

export interface RawClient {
  send(request: FuzzRequest): Promise<FuzzResponse>;
  close(): void;
}

export interface RawClientOptions {
  /** No answer (status line) within this many ms fails the request. */
  timeoutMs?: number;
  /** How long an event stream is read before the client lets go. */
  streamReadMs?: number;
  /** Bytes of a body kept; the rest is not read. */
  maxBytes?: number;
}

/** A keep-alive client of one `http://host:port` origin that sends {@link FuzzRequest}s as they are. */
export function rawClient(origin: string, options: RawClientOptions = {}): RawClient {
  const { hostname, port } = new URL(origin);
  const { timeoutMs = 10_000, streamReadMs = 150, maxBytes = 256 * 1024 } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });

  const attempt = (req: FuzzRequest, fresh: boolean) =>
    new Promise<FuzzResponse>((resolve, reject) => {
      const abort = new AbortController();
      let settled = false;
      const finish = (err: Error | null, res?: FuzzResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        // Only a read cut short (or no answer) drops the connection; a complete one goes back to the pool.
        if (err || res?.cut) abort.abort();
        if (err) reject(err);
        else resolve(res!);
      };
      const deadline = setTimeout(() => finish(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
      const out = httpRequest({
        host: hostname,
        port,
        method: req.method,
        path: req.path,
        agent: fresh ? false : agent,
        signal: abort.signal,
        setHost: !req.headers.some(([name]) => name.toLowerCase() === 'host'),
      });
      const grouped = new Map<string, string[]>();
      for (const [name, value] of req.headers) grouped.set(name, [...(grouped.get(name) ?? []), value]);
      for (const [name, values] of grouped) out.setHeader(name, values.length === 1 ? values[0]! : values);
      const body = req.body && req.body.length > 0 ? Buffer.from(req.body) : undefined;
      if (body && !req.chunks) out.setHeader('content-length', body.length);
      // Said explicitly: Node frames a GET's writes as chunks only when told to.
      if (body && req.chunks) out.setHeader('transfer-encoding', 'chunked');

      out.on('response', (res) => {
        const parts: Buffer[] = [];
        let size = 0;
        const stream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
        const done = (cut: boolean) =>
          finish(null, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts), cut });
        if (stream) setTimeout(() => done(true), streamReadMs);
        res.on('data', (chunk: Buffer) => {
          if (size >= maxBytes) return done(true);
          parts.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => done(false));
        res.on('error', (err) => (settled ? undefined : finish(err)));
      });
      out.on('error', (err: NodeJS.ErrnoException) => {
        if (settled) return;
        // A kept-alive socket the server closed just as it was reused: Node's documented retry case.
        if (!fresh && out.reusedSocket && err.code === 'ECONNRESET') {
          settled = true;
          clearTimeout(deadline);
          attempt(req, true).then(resolve, reject);
          return;
        }
        finish(err);
      });
      if (body && req.chunks) {
        const size = Math.ceil(body.length / req.chunks);
        for (let at = 0; at < body.length; at += size) out.write(body.subarray(at, at + size));
        out.end();
      } else {
        out.end(body);
      }
    });

  return { send: (req) => attempt(req, false), close: () => agent.destroy() };
}

/** A request and its answer in a few readable lines, for failure messages (long values cut). */
export function describeExchange(req: FuzzRequest, res?: FuzzResponse): string {
  const cut = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
  const lines = [
    `${req.method} ${cut(req.path)}`,
    ...req.headers.map(([n, v]) => `  ${n}: ${cut(JSON.stringify(v), 200)}`),
    req.body ? `  body${req.chunks ? ` (${req.chunks} chunks)` : ''}: ${cut(JSON.stringify(Buffer.from(req.body).toString('latin1')))}` : '  (no body)',
  ];
  if (res) {
    lines.push(`→ ${res.status} ${res.headers['content-type'] ?? ''}`, `  ${cut(JSON.stringify(res.body.toString('utf8')), 600)}`);
  }
  return lines.join('\n');
}
