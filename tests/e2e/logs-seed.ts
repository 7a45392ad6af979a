import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';

/** A line the Loki peer serves: ms before the test started, the text (ANSI escapes kept). */
export interface PeerLine {
  agoMs: number;
  line: string;
}

/**
 * A Loki peer on loopback for the /logs suite: GET /loki/api/v1/query_range as Loki answers it (streams of
 * [ns, line] values), honouring start/end (ns, end exclusive), direction, limit and a LogQL line filter `|= "…"`.
 * Every line belongs to one stream, the labels given.
 */
export async function startLokiPeer(lines: PeerLine[], labels: Record<string, string>): Promise<{ url: string; server: Server; add: (line: string) => void }> {
  const t0 = Date.now();
  // kept oldest first, so a search needs no sort
  const entries = lines.map((l) => ({ ns: BigInt(t0 - l.agoMs) * 1_000_000n, line: l.line }));
  entries.sort((a, b) => (a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0));
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname !== '/loki/api/v1/query_range') {
      res.writeHead(404).end();
      return;
    }
    const start = BigInt(u.searchParams.get('start') ?? '0');
    const end = BigInt(u.searchParams.get('end') ?? String(BigInt(Date.now()) * 1_000_000n));
    const limit = Number(u.searchParams.get('limit') ?? '100');
    const filters = [...(u.searchParams.get('query') ?? '').matchAll(/\|=\s*("(?:[^"\\]|\\.)*"|`[^`]*`)/g)].map((m) =>
      m[1].startsWith('`') ? m[1].slice(1, -1) : (JSON.parse(m[1]) as string),
    );
    let found = entries.filter((e) => e.ns >= start && e.ns < end && filters.every((f) => e.line.includes(f)));
    if (u.searchParams.get('direction') !== 'forward') found.reverse();
    found = found.slice(0, limit);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      status: 'success',
      data: { resultType: 'streams', result: found.length ? [{ stream: labels, values: found.map((e) => [String(e.ns), e.line]) }] : [] },
    }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    /** Writes a line now (after every other), as an application logging would: a live tail's next poll finds it. */
    add: (line: string) => {
      const last = entries.at(-1)?.ns ?? 0n;
      const ns = BigInt(Date.now()) * 1_000_000n;
      entries.push({ ns: ns > last ? ns : last + 1n, line });
    },
  };
}

/**
 * A component with one log selector (type unique to the run) and the logging backend that routes that type to the
 * Loki peer. Components are written by the topology runner only, so both are seeded with SQL (catalog-seed.ts).
 */
export async function seedLogsComponent(db: pg.Client, u: string, lokiUrl: string, labels: Record<string, string>) {
  const type = `e2e-loki-${u}`;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO components (external_id, name, type, log_selectors) VALUES ($1, $1, 'Application', $2) RETURNING id`,
    [`checkout-logs-${u}`, JSON.stringify([{ name: 'app', type, labels }, { name: 'audit', type, labels: { ...labels, stream: 'audit' } }])],
  );
  await db.query(`INSERT INTO logging_backends (name, spec) VALUES ($1, $2)`, [
    `e2e-loki-${u}`,
    { backends: [{ loki: { url: lokiUrl, routes: [{ type }] } }] },
  ]);
  return { componentId: rows[0].id, name: `checkout-logs-${u}` };
}
