// The part of autocannon's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    /** hdr-histogram-percentiles-obj: what autocannon reports for latency (ms) and requests per second. */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
    }

    interface RawRequest {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }

    interface RequestSpec extends RawRequest {
      setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest;
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }

    interface Options extends RawRequest {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      timeout?: number;
      pipelining?: number;
      requests?: RequestSpec[];
      verifyBody?: (body: string) => boolean;
      title?: string;
    }

    interface Result {
      title?: string;
      latency: Histogram;
      requests: Histogram;
      duration: number;
      start: Date;
      finish: Date;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
