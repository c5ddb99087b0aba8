// An in-page fake of the merchant's proxy for element tests: it replaces `window.fetch`, answers the protocol's
// paths with bodies typed from the protocol schemas, records every request, and serves server-sent events
// from streams the test pushes into (and drops).
import type { ProxyErrorCode } from '../../src/protocol/codes.js';
import type {
  AccountLookupResponse,
  CheckoutCreateResponse,
  CheckoutSnapshot,
  OrderView,
  OtpSendResponse,
  PaymentSnapshot,
} from '../../src/protocol/schemas.js';

export interface FakeRequest {
  method: string;
  /** Path under the mount (`/otp/send`). */
  path: string;
  headers: Headers;
  body: any;
  signal: AbortSignal | undefined;
}

export type Handler = (req: FakeRequest) => Response | Promise<Response>;

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** An error in the protocol's shape; its message is server text the elements must never show. */
export const problem = (status: number, error: ProxyErrorCode, details: Record<string, unknown> = {}) =>
  json({ error, message: `server text: ${error}`, details }, status);

/** What `fetch` does when the network is gone. */
export const offline = (): Promise<Response> => Promise.reject(new TypeError('Failed to fetch'));

/** A request that never gets an answer (until aborted). */
export const hang = (req: FakeRequest) =>
  new Promise<Response>((_, reject) =>
    req.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
  );

/** A `text/event-stream` response the test writes events into. */
export class SseStream {
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly encoder = new TextEncoder();
  closed = false;
  readonly response: Response;

  constructor(
    /** The request that opened it (its `last-event-id` header, its signal). */
    readonly request: FakeRequest,
  ) {
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (this.controller = c) });
    this.response = new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    request.signal?.addEventListener('abort', () => this.fail(new DOMException('aborted', 'AbortError')));
  }

  /** Writes raw text (for split chunks, comments, CRLF). */
  write(text: string) {
    if (!this.closed) this.controller.enqueue(this.encoder.encode(text));
  }

  /** Writes one `status` event. */
  status(data: unknown, id?: string) {
    this.write(`${id ? `id: ${id}\n` : ''}event: status\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** The connection drops (the body read fails). */
  drop() {
    this.fail(new TypeError('network error'));
  }

  /** The server ends the stream. */
  end() {
    if (!this.closed) (this.closed = true), this.controller.close();
  }

  private fail(e: unknown) {
    if (!this.closed) (this.closed = true), this.controller.error(e);
  }
}

export class FakeProxy {
  readonly requests: FakeRequest[] = [];
  /** Every event stream opened, in order. */
  readonly streams: SseStream[] = [];
  private readonly routes: { method: string; path: string | RegExp; handler: Handler }[] = [];
  private readonly original = window.fetch;

  constructor(readonly mount = '/merchant-elements') {
    window.fetch = this.fetch;
  }

  restore() {
    window.fetch = this.original;
    for (const s of this.streams) s.end();
  }

  /** Answers `method path` (an exact path or a pattern) with a handler or a JSON body; the latest route wins. */
  on(method: string, path: string | RegExp, answer: Handler | object) {
    const handler = typeof answer == 'function' ? (answer as Handler) : () => json(answer);
    this.routes.unshift({ method, path, handler });
    return this;
  }

  /** Answers a path with a new controllable event stream each time it is opened. */
  stream(path: string | RegExp) {
    return this.on('GET', path, (req) => {
      const s = new SseStream(req);
      this.streams.push(s);
      return s.response;
    });
  }

  /** Requests made to `method path`. */
  calls(method: string, path: string | RegExp) {
    return this.requests.filter((r) => r.method == method && (typeof path == 'string' ? r.path == path : path.test(r.path)));
  }

  private readonly fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input), location.href);
    const method = init.method ?? 'GET';
    const path = url.pathname.startsWith(this.mount) ? url.pathname.slice(this.mount.length) : url.pathname;
    const req: FakeRequest = {
      method,
      path,
      headers: new Headers(init.headers),
      body: typeof init.body == 'string' ? JSON.parse(init.body) : undefined,
      signal: init.signal ?? undefined,
    };
    this.requests.push(req);
    if (req.signal?.aborted) throw new DOMException('aborted', 'AbortError');
    const route = this.routes.find(
      (r) => r.method == method && (typeof r.path == 'string' ? r.path == path : r.path.test(path)),
    );
    return route ? route.handler(req) : problem(404, 'NOT_FOUND');
  };
}

// ---- Realistic bodies -------------------------------------------------------------------------------

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

export const otpSent = (over: Partial<OtpSendResponse> = {}): OtpSendResponse => ({
  otpId: 'otp_1',
  recipient: '233 24 *** **01',
  expiresAt: inSeconds(300),
  resendAt: inSeconds(60),
  attemptsLeft: 5,
  pinLength: 6,
  pinType: 'NUMERIC',
  ...over,
});

export const account = (over: Partial<AccountLookupResponse> = {}): AccountLookupResponse => ({
  accountName: 'KWAME M.',
  network: 'MTN',
  msisdn: '233240000001',
  ...over,
});

export const payment = (over: Partial<PaymentSnapshot> = {}): PaymentSnapshot => ({
  reference: 'ORDER-123-1',
  orderReference: 'ORDER-123',
  status: 'PENDING',
  amount: 12.5,
  charge: 0,
  totalAmount: 12.5,
  currency: 'GHS',
  attempt: 1,
  attemptsLeft: 2,
  updatedAt: new Date().toISOString(),
  completedAt: null,
  ...over,
});

/** `GET /order` of an order nobody paid yet: a try may start (`next: 'open'`), no charge estimate. */
export const order = (over: Partial<OrderView> = {}): OrderView => ({
  orderReference: 'ORDER-123',
  payment: null,
  attemptsLeft: 3,
  next: 'open',
  otherMethod: null,
  chargeEstimate: null,
  ...over,
});

/** A payment waiting on the phone as the proxy serves it now: the masked number, when it was sent and until when it can be approved. */
/**
 * A payment whose prompt was sent `sentSecondsAgo` and lives `lifetime` seconds: both times from one reading of
 * the clock, so the prompt's lifetime is exactly `lifetime` (two readings a millisecond apart made it 120.001 s).
 */
export const prompt = (sentSecondsAgo: number, lifetime: number | null, over: Partial<PaymentSnapshot> = {}): PaymentSnapshot => {
  const now = Date.now();
  const at = (s: number) => new Date(now + s * 1000).toISOString();
  return payment({
    msisdn: '+233 26 *** **04',
    sentAt: at(-sentSecondsAgo),
    promptExpiresAt: lifetime === null ? null : at(lifetime - sentSecondsAgo),
    ...over,
  });
};

export const checkoutCreated = (over: Partial<CheckoutCreateResponse> = {}): CheckoutCreateResponse => ({
  checkoutId: 'chk_1',
  checkoutUrl: 'https://pay.example.test/checkout/chk_1',
  status: 'active',
  expiresAt: inSeconds(1800),
  ...over,
});

export const checkout = (over: Partial<CheckoutSnapshot> = {}): CheckoutSnapshot => ({
  checkoutId: 'chk_1',
  reference: 'ORDER-9',
  status: 'pending',
  amount: 50,
  currency: 'GHS',
  updatedAt: new Date().toISOString(),
  completedAt: null,
  ...over,
});

/** An unsigned JWT with these claims: the elements only read the payload (the proxy verifies). */
export function fakeToken(claims: Record<string, unknown>) {
  const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ jti: 'j1', exp: Date.now() / 1000 + 900, ...claims })}.sig`;
}
