import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPublicDns, type PublicDns } from '../../../tests/support/public-dns.js';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import { dnsCheck } from './dns.js';

// Answers as the reference writes them (Go's net.Resolver), against a local DNS server with a small zone.
let server: PublicDns;
beforeAll(async () => {
  server = await startPublicDns('127.0.0.1', 0, {
    'app.test': [{ type: 'A', value: '10.0.0.1' }, { type: 'AAAA', value: 'fd00::1' }],
    'www.test': [{ type: 'CNAME', value: 'app.test.' }],
    'v6only.test': [{ type: 'AAAA', value: 'fd00::2' }],
    'mailonly.test': [{ type: 'MX', value: 'mx.test.', pref: 5 }],
    'mail.test': [{ type: 'MX', value: 'mx2.mail.test.', pref: 20 }, { type: 'MX', value: 'mx1.mail.test.', pref: 10 }],
    'zone.test': [{ type: 'NS', value: 'ns1.zone.test.' }, { type: 'NS', value: 'ns2.zone.test.' }],
    '10.2.0.192.in-addr.arpa': [{ type: 'PTR', value: 'host.test.' }],
    [`1.0.0.0.${'0.'.repeat(20)}8.b.d.0.1.0.0.2.ip6.arpa`]: [{ type: 'PTR', value: 'host6.test.' }],
  });
});
afterAll(() => server?.close());

const run = (spec: Record<string, unknown>) =>
  dnsCheck.run(dnsCheck.schema.parse({ server: server.host, port: server.port, timeout: 5, ...spec }), checkContext());
const records = async (spec: Record<string, unknown>) => (await run(spec)).data.records as string[];

describe('dns answers, as the reference writes them', () => {
  it('PTR: an address is asked as its in-addr.arpa or ip6.arpa name (Go LookupAddr), answers fully qualified', async () => {
    expect(await run({ query: '192.0.2.10', querytype: 'PTR', minrecords: 1, exactreply: ['host.test.'] })).toMatchObject({
      pass: true, data: { records: ['host.test.'] },
    });
    expect(await records({ query: '2001:db8::1', querytype: 'PTR' })).toEqual(['host6.test.']);
    // a reverse name written out is asked as it is
    expect(await records({ query: '10.2.0.192.in-addr.arpa', querytype: 'PTR' })).toEqual(['host.test.']);
  });

  it('CNAME: the canonical name (Go LookupCNAME), the name itself when it has no CNAME but has addresses', async () => {
    expect(await records({ query: 'www.test', querytype: 'CNAME' })).toEqual(['app.test.']);
    expect(await run({ query: 'app.test', querytype: 'CNAME', minrecords: 1, exactreply: ['app.test.'] })).toMatchObject({ pass: true });
    expect(await records({ query: 'v6only.test', querytype: 'CNAME' })).toEqual(['v6only.test.']);
  });

  it('CNAME: a name with neither a CNAME nor addresses fails', async () => {
    expect(await run({ query: 'mailonly.test', querytype: 'CNAME' })).toMatchObject({ pass: false, error: 'no CNAME records for mailonly.test' });
    expect(await run({ query: 'nowhere.test', querytype: 'CNAME' })).toMatchObject({ pass: false, error: 'no CNAME records for nowhere.test' });
  });

  it('MX: `host. pref`, by preference; exactreply compares as the reference, and takes the name without its dot too', async () => {
    expect(await records({ query: 'mail.test', querytype: 'MX' })).toEqual(['mx1.mail.test. 10', 'mx2.mail.test. 20']);
    expect(await run({ query: 'mail.test', querytype: 'MX', exactreply: ['mx2.mail.test. 20', 'MX1.mail.test. 10'] })).toMatchObject({ pass: true });
    expect(await run({ query: 'mail.test', querytype: 'MX', exactreply: ['mx1.mail.test 10', 'mx2.mail.test 20'] })).toMatchObject({ pass: true });
    expect(await run({ query: 'mail.test', querytype: 'MX', exactreply: ['mx1.mail.test. 10'] })).toMatchObject({ pass: false });
  });

  it('NS: fully qualified names', async () => {
    expect((await records({ query: 'zone.test', querytype: 'NS' })).sort()).toEqual(['ns1.zone.test.', 'ns2.zone.test.']);
  });

  it('A and AAAA: addresses as written; an address queried answers itself without asking (Go LookupHost)', async () => {
    expect(await records({ query: 'app.test', querytype: 'A' })).toEqual(['10.0.0.1']);
    expect(await records({ query: 'app.test', querytype: 'AAAA' })).toEqual(['fd00::1']);
    expect(await run({ query: '1.2.3.4', querytype: 'A', exactreply: ['1.2.3.4'] })).toMatchObject({ pass: true });
  });
});
