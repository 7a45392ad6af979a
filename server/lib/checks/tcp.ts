import net from 'node:net';
import { z } from 'zod';
import type { CheckContext, CheckResult, CheckType } from './types.js';
import { errorText, parseHostPort } from './util.js';

const TcpSpec = z.object({
  endpoint: z.string().optional(),
  host: z.string().optional(),
  port: z.number().int().min(1).max(65535).optional(),
}).refine((s) => s.endpoint || (s.host && s.port), { message: 'endpoint (host:port) is required', path: ['endpoint'] });
type TcpSpec = z.infer<typeof TcpSpec>;

function connect(host: string, port: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const socket = net.connect({ host, port });
    const done = (err?: Error) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    const onAbort = () => done(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done());
    socket.once('error', (err) => done(err));
  });
}

async function run(spec: TcpSpec, ctx: CheckContext): Promise<CheckResult> {
  const target = spec.endpoint ? parseHostPort(spec.endpoint) : { host: spec.host!, port: spec.port! };
  if (!target) return { pass: false, invalid: true, duration: 0, error: `Incorrect endpoint format: ${spec.endpoint} should be ADDRESS:PORT`, data: {} };
  const start = performance.now();
  try {
    await connect(target.host, target.port, ctx.signal);
  } catch (err) {
    const duration = Math.round(performance.now() - start);
    const error = ctx.signal.aborted ? `timed out after ${ctx.timeoutMs} ms` : errorText(err);
    return { pass: false, duration, error, data: { host: target.host, port: target.port } };
  }
  const duration = Math.round(performance.now() - start);
  return {
    pass: true, duration, message: `connected to ${target.host}:${target.port}`,
    data: { host: target.host, port: target.port, elapsed: duration },
  };
}

/** A TCP connect to host:port. */
export const tcpCheck: CheckType<TcpSpec> = { type: 'tcp', schema: TcpSpec, run };
