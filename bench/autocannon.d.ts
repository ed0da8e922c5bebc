// autocannon ships no types and @types/autocannon is not installed; only what bench/ uses.
declare module "autocannon" {
  namespace autocannon {
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
    interface Result {
      duration: number;
      requests: Histogram;
      latency: Histogram;
      errors: number;
      timeouts: number;
      non2xx: number;
      "2xx": number;
      statusCodeStats?: Record<string, { count: number | string }>;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      pipelining?: number;
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      // The request object autocannon hands to setupRequest is mutated in place.
      requests?: Array<{
        path?: string;
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped library callback
        setupRequest?: (request: any, context: Record<string, unknown>) => any;
        onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
      }>;
    }
  }
  namespace autocannon {
    /** The running instance: an event emitter that is also awaitable for the result. */
    interface Instance extends PromiseLike<Result> {
      on(event: "response", listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this;
    }
  }
  function autocannon(options: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
