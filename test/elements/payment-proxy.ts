// The fake proxy every <pay-by-mobile> test file starts from: a new order (`GET /order` open), an account for
// any number, a payment waiting on the phone for any request, and event streams the test writes into; the
// status streams' timings shortened to milliseconds. Registers its mocha hooks; each test gets a fresh proxy.
import { StatusStreamController } from '../../src/elements/shared/status-stream.js';
import { FakeProxy, account, json, order, payment, type SseStream } from './fake-proxy.js';

/** The fake proxy of the running test, and its n-th event stream (the last one by default). */
export interface PaymentProxy {
  readonly proxy: FakeProxy;
  stream(n?: number): SseStream;
}

export function paymentProxy(): PaymentProxy {
  let current: FakeProxy;
  const defaults = StatusStreamController.defaults;
  before(() => {
    StatusStreamController.defaults = { baseDelay: 10, maxDelay: 40, maxFailures: 3, pollInterval: 20, heartbeat: 5_000 };
  });
  after(() => {
    StatusStreamController.defaults = defaults;
  });
  beforeEach(() => {
    current = new FakeProxy();
    current.on('GET', '/order', order());
    current.on('POST', '/accounts/lookup', account());
    current.on('POST', '/payments', () => json(payment(), 202));
    current.stream(/^\/payments\/[^/]+\/events$/);
  });
  afterEach(() => current.restore());
  return {
    get proxy() {
      return current;
    },
    stream: (n?: number) => (n ? current.streams[n - 1] : current.streams.at(-1)) as SseStream,
  };
}
