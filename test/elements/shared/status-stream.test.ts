import { expect, waitUntil } from '@open-wc/testing';
import { ProxyClient } from '../../../src/elements/shared/proxy-client.js';
import { StatusStreamController, parseSse, type SseMessage } from '../../../src/elements/shared/status-stream.js';
import { FakeProxy, hang, json, offline, problem, type SseStream } from '../fake-proxy.js';
import { TestHost } from './host.js';

interface Status {
  status: string;
}

const FAST = { baseDelay: 10, maxDelay: 40, maxFailures: 3, pollInterval: 20, heartbeat: 700 };

describe('parseSse', () => {
  const parse = (text: string) => {
    const out: SseMessage[] = [];
    const tail = parseSse(text, (m) => out.push(m));
    return { out, tail };
  };

  it('reads event, id and multi-line data, skipping comments', () => {
    const { out, tail } = parse(': heartbeat\n\nid: 7\nevent: status\ndata: {"a":\ndata: 1}\n\ndata: plain\n\n');
    expect(out).to.deep.equal([
      { event: 'status', id: '7', data: '{"a":\n1}' },
      { event: 'message', data: 'plain' },
    ]);
    expect(tail).to.equal('');
  });

  it('keeps an unfinished event for the next chunk, with CRLF line ends too', () => {
    const first = parse('event: status\r\ndata: {"status":"PENDING"}\r\n\r\nevent: sta');
    expect(first.out).to.have.length(1);
    const second = parse(first.tail + 'tus\ndata: {}\n\n');
    expect(second.out).to.deep.equal([{ event: 'status', data: '{}' }]);
  });
});

describe('StatusStreamController', () => {
  let proxy: FakeProxy;
  let host: TestHost;
  let stream: StatusStreamController<Status>;
  let seen: string[];
  let errors: string[];
  const start = () =>
    stream.start({
      events: '/payments/R1/events',
      snapshot: '/payments/R1',
      isFinal: (s) => s.status != 'PENDING',
      onStatus: (s) => seen.push(s.status),
      onError: (e) => errors.push(e.code),
    });
  const opened = (n: number) => waitUntil(() => proxy.streams.length >= n, `stream ${n} not opened`);
  const streamN = (n: number) => proxy.streams[n - 1] as SseStream;

  beforeEach(() => {
    proxy = new FakeProxy();
    host = new TestHost();
    stream = new StatusStreamController<Status>(host, new ProxyClient(host));
    stream.timings = FAST;
    seen = [];
    errors = [];
  });
  afterEach(() => {
    stream.stop();
    proxy.restore();
  });

  it('reads status events with the token in the Authorization header and stops at a final one', async () => {
    proxy.stream('/payments/R1/events');
    start();
    await opened(1);
    const s = streamN(1);
    expect(s.request.headers.get('authorization')).to.equal('Bearer tok_123');
    expect(s.request.headers.get('accept')).to.equal('text/event-stream');
    s.write(': heartbeat\n\n');
    s.status({ status: 'PENDING' }, '1');
    s.write('event: status\ndata: {"status":"COM');
    s.write('PLETED"}\n\n');
    await waitUntil(() => seen.length == 2);
    expect(seen).to.deep.equal(['PENDING', 'COMPLETED']);
    await waitUntil(() => s.request.signal!.aborted, 'the connection is closed after the final status');
    expect(proxy.streams).to.have.length(1);
  });

  it('reconnects after a drop with Last-Event-ID', async () => {
    proxy.stream('/payments/R1/events');
    start();
    await opened(1);
    streamN(1).status({ status: 'PENDING' }, '41');
    await waitUntil(() => seen.length == 1);
    streamN(1).drop();
    await opened(2);
    expect(streamN(2).request.headers.get('last-event-id')).to.equal('41');
    streamN(2).status({ status: 'FAILED' }, '42');
    await waitUntil(() => seen.length == 2);
    expect(seen).to.deep.equal(['PENDING', 'FAILED']);
  });

  it('also reconnects when the server ends the stream before a final status', async () => {
    proxy.stream('/payments/R1/events');
    start();
    await opened(1);
    streamN(1).end();
    await opened(2);
    streamN(2).status({ status: 'CANCELLED' });
    await waitUntil(() => seen.includes('CANCELLED'));
  });

  it('falls back to polling the snapshot when the stream keeps failing', async () => {
    proxy.on('GET', '/payments/R1/events', offline);
    let polls = 0;
    proxy.on('GET', '/payments/R1', () => json({ status: ++polls < 3 ? 'PENDING' : 'COMPLETED' }));
    start();
    await waitUntil(() => seen.includes('COMPLETED'), 'polling reached the final status');
    expect(proxy.calls('GET', '/payments/R1/events')).to.have.length(FAST.maxFailures);
    expect(seen).to.deep.equal(['PENDING', 'PENDING', 'COMPLETED']);
    const before = proxy.requests.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(proxy.requests.length, 'no request after the final status').to.equal(before);
  });

  it('takes a silent connection for dead and opens another', async () => {
    stream.timings = { ...FAST, heartbeat: 40 };
    proxy.stream('/payments/R1/events');
    start();
    await opened(1);
    await opened(2);
    expect(streamN(1).request.signal!.aborted).to.be.true;
    streamN(2).status({ status: 'COMPLETED' });
    await waitUntil(() => seen.includes('COMPLETED'));
  });

  it('reconnects at once when the browser comes back online, and says while the connection is gone', async () => {
    stream.timings = { ...FAST, baseDelay: 60_000, maxDelay: 60_000 };
    proxy.stream('/payments/R1/events');
    start();
    await opened(1);
    streamN(1).status({ status: 'PENDING' }, '7');
    await waitUntil(() => seen.length == 1);
    expect(stream.offline).to.be.false;
    streamN(1).drop();
    await waitUntil(() => stream.offline, 'the lost connection is said');
    // The next try would wait a minute; the network coming back does not.
    dispatchEvent(new Event('online'));
    await opened(2);
    expect(streamN(2).request.headers.get('last-event-id')).to.equal('7');
    await waitUntil(() => !stream.offline, 'answered again');
    streamN(2).status({ status: 'COMPLETED' });
    await waitUntil(() => seen.includes('COMPLETED'));
  });

  it('reconnects at once when the page is shown again', async () => {
    stream.timings = { ...FAST, baseDelay: 60_000, maxDelay: 60_000 };
    proxy.stream('/payments/R1/events');
    start();
    await opened(1);
    streamN(1).end();
    await new Promise((r) => setTimeout(r, 50));
    expect(proxy.streams, 'waiting a minute before reconnecting').to.have.length(1);
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
    await opened(2);
  });

  it('stops with an error on a refusal retrying cannot fix', async () => {
    proxy.on('GET', '/payments/R1/events', () => problem(401, 'TOKEN_EXPIRED'));
    start();
    await waitUntil(() => errors.length == 1);
    expect(errors).to.deep.equal(['TOKEN_EXPIRED']);
    await new Promise((r) => setTimeout(r, 60));
    expect(proxy.requests).to.have.length(1);
  });

  it('retries through a rate limit and an unavailable upstream', async () => {
    let n = 0;
    proxy.on('GET', '/payments/R1/events', (req) =>
      ++n == 1 ? problem(429, 'RATE_LIMITED') : n == 2 ? problem(503, 'UPSTREAM_UNAVAILABLE') : hang(req),
    );
    start();
    await waitUntil(() => n == 3);
    expect(errors).to.deep.equal([]);
  });

  it('stops when told and when the host disconnects', async () => {
    proxy.stream('/payments/R1/events');
    start();
    await opened(1);
    host.disconnect();
    await waitUntil(() => streamN(1).request.signal!.aborted);
    await new Promise((r) => setTimeout(r, 60));
    expect(proxy.streams).to.have.length(1);
  });
});
