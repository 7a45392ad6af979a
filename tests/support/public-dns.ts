import dgram from 'node:dgram';

/**
 * A local stand-in for the public resolvers canary-checker's DNS fixtures ask (8.8.8.8, 1.1.1.1): a UDP DNS server
 * answering from a small zone with the records those names had when the fixtures were written. It answers as an
 * authoritative server would: the records of the asked type, none (NOERROR) when the name exists with other types,
 * NXDOMAIN when it does not. Reverse lookups live under in-addr.arpa, as on the real servers.
 */
export interface PublicDns {
  host: string;
  port: number;
  close(): Promise<void>;
}

export type ZoneRecord =
  | { type: 'A' | 'AAAA' | 'NS' | 'CNAME' | 'PTR'; value: string }
  | { type: 'MX'; value: string; pref: number }
  | { type: 'TXT'; value: string };

const TYPES: Record<ZoneRecord['type'], number> = { A: 1, NS: 2, CNAME: 5, PTR: 12, MX: 15, TXT: 16, AAAA: 28 };

/** The records the fixtures ask about (dns_pass.yaml, dns_fail.yaml), as public DNS served them. */
export const FIXTURE_ZONE: Record<string, ZoneRecord[]> = {
  '1.2.3.4.nip.io': [{ type: 'A', value: '1.2.3.4' }],
  '1.1.1.1.in-addr.arpa': [{ type: 'PTR', value: 'one.one.one.one.' }],
  '8.8.8.8.in-addr.arpa': [{ type: 'PTR', value: 'dns.google.' }],
  'dns.google': [{ type: 'A', value: '8.8.8.8' }, { type: 'A', value: '8.8.4.4' }],
  'google.com': [{ type: 'A', value: '142.250.185.78' }, { type: 'MX', value: 'smtp.google.com.', pref: 10 }],
  'smtp.google.com': [{ type: 'A', value: '142.250.102.27' }],
  'flanksource.com': [
    { type: 'A', value: '104.21.32.1' },
    { type: 'NS', value: 'gina.ns.cloudflare.com.' },
    { type: 'NS', value: 'walt.ns.cloudflare.com.' },
    { type: 'MX', value: 'smtp.google.com.', pref: 1 },
    { type: 'TXT', value: 'v=spf1 include:_spf.google.com ~all' },
    { type: 'TXT', value: 'google-site-verification=local-stand-in' },
  ],
};

/** Starts the server on `host:port`; port 53 needs the right to bind it (root or CAP_NET_BIND_SERVICE). */
export async function startPublicDns(host: string, port: number, zone: Record<string, ZoneRecord[]> = FIXTURE_ZONE): Promise<PublicDns> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, peer) => {
    const reply = answer(msg, zone);
    if (reply) socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return {
    host,
    port: socket.address().port,
    close: () => new Promise((r) => socket.close(() => r())),
  };
}

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = offset;
  while (i < msg.length && msg[i] !== 0) {
    const len = msg[i];
    labels.push(msg.subarray(i + 1, i + 1 + len).toString('latin1'));
    i += 1 + len;
  }
  return { name: labels.join('.'), end: i + 1 };
}

function encodeName(name: string): Buffer {
  const labels = name.replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])), Buffer.from([0])]);
}

function rdata(r: ZoneRecord): Buffer {
  switch (r.type) {
    case 'A': return Buffer.from(r.value.split('.').map(Number));
    case 'AAAA': {
      const [head, tail = ''] = r.value.split('::');
      const h = head ? head.split(':') : [];
      const t = tail ? tail.split(':') : [];
      const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
      return Buffer.from(groups.flatMap((g) => { const n = parseInt(g, 16); return [n >> 8, n & 0xff]; }));
    }
    case 'MX': return Buffer.concat([Buffer.from([r.pref >> 8, r.pref & 0xff]), encodeName(r.value)]);
    case 'TXT': {
      const bytes = Buffer.from(r.value, 'utf8');
      const parts: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += 255) {
        const chunk = bytes.subarray(i, i + 255);
        parts.push(Buffer.from([chunk.length]), chunk);
      }
      return Buffer.concat(parts);
    }
    default: return encodeName(r.value);
  }
}

/** The reply to one query (the first question only, as every resolver sends one), or null for garbage. */
function answer(msg: Buffer, zone: Record<string, ZoneRecord[]>): Buffer | null {
  if (msg.length < 12 || msg.readUInt16BE(4) < 1) return null;
  const { name, end } = readName(msg, 12);
  if (end + 4 > msg.length) return null;
  const qtype = msg.readUInt16BE(end);
  const question = msg.subarray(12, end + 4);
  const records = zone[name.toLowerCase()];
  const matching = (records ?? []).filter((r) => TYPES[r.type] === qtype);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(msg.readUInt16BE(0), 0); // id
  // QR, opcode 0, AA, RD as asked, RA; rcode 3 (NXDOMAIN) for an unknown name
  header.writeUInt16BE(0x8400 | (msg.readUInt16BE(2) & 0x0100) | 0x0080 | (records ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(matching.length, 6);
  const answers = matching.map((r) => {
    const data = rdata(r);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(qtype, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(300, 6);
    rr.writeUInt16BE(data.length, 10);
    return Buffer.concat([rr, data]);
  });
  return Buffer.concat([header, question, ...answers]);
}
