import { writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { generate } from 'selfsigned';

export interface TlsFront {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** The front's self-signed certificate (PEM), to trust. */
  ca: string;
  /** The same, written to `<dir>/ca.pem` (kubectl's --certificate-authority). */
  caFile: string;
  close(): Promise<void>;
}

/**
 * What an ingress does for the console: TLS terminated on a certificate for 127.0.0.1, bytes passed on to the console's
 * HTTP port (`port()`, read per connection, so the front may start before the console) both ways, upgrades included.
 * kubectl needs it: client-go sends kubeconfig credentials only over TLS.
 */
export async function startTlsFront(dir: string, port: () => number, commonName = 'ops-console test ingress'): Promise<TlsFront> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keySize: 2048,
    notBeforeDate: new Date(Date.now() - 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  } as never);
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, pems.cert);
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({ key: pems.private, cert: pems.cert }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const upstream = net.connect(port(), '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ca: pems.cert,
    caFile,
    async close() {
      for (const s of sockets) s.destroy(); // kept-alive connections of https clients
      await new Promise((r) => server.close(r));
    },
  };
}
