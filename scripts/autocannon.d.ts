// The part of autocannon 9's API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    setupRequest?: (req: Request) => Request;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    headers?: Record<string, string>;
    requests?: Request[];
  }
  interface Result {
    errors: number;
    timeouts: number;
    non2xx: number;
    requests: { total: number; average: number };
    duration: number;
  }
  interface Instance extends EventEmitter, PromiseLike<Result> {}
  function autocannon(opts: Options): Instance;
  export default autocannon;
}
