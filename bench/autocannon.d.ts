/**
 * The part of autocannon 9's programmatic API that bench/run.ts and bench/startup.ts use (the package ships no types).
 * See node_modules/autocannon/README.md, "Programmatically" and "Results".
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
      headers?: Record<string, string>;
      body?: string;
      /** Seconds to wait for one response. */
      timeout?: number;
      title?: string;
      pipelining?: number;
      /** Requests each connection sends in turn, cycling (each on `url`'s origin). */
      requests?: {
        method?: Options['method'];
        path: string;
        headers?: Record<string, string>;
        body?: string;
      }[];
    }

    /** Percentiles and moments of one statistic (latency in ms, requests and bytes per second). */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p2_5: number;
      p50: number;
      p75: number;
      p90: number;
      p97_5: number;
      p99: number;
      p99_9: number;
      p99_99: number;
      p99_999: number;
    }

    interface Result {
      title?: string;
      url: string;
      connections: number;
      /** Seconds. */
      duration: number;
      samples: number;
      start: Date;
      finish: Date;
      /** Connection errors, timeouts included. */
      errors: number;
      timeouts: number;
      mismatches: number;
      /** Responses that were not 2xx (3xx included). */
      non2xx: number;
      resets: number;
      '1xx': number;
      '2xx': number;
      '3xx': number;
      '4xx': number;
      '5xx': number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram & { totalCount: number };
      requests: Histogram & { sent: number };
      throughput: Histogram;
    }

    /** The running benchmark: an event emitter that can also be awaited for its result. */
    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void;
      on(
        event: 'response',
        listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void,
      ): this;
      on(event: 'done', listener: (result: Result) => void): this;
      on(event: 'reqError', listener: (error: Error) => void): this;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;

  export default autocannon;
}
