import { describe, expect, it } from 'vitest';
import { parseHostPort, withUserAgent } from './util.js';

describe('parseHostPort', () => {
  it('reads ADDRESS:PORT and [v6]:PORT', () => {
    expect(parseHostPort('db.internal:5432')).toEqual({ host: 'db.internal', port: 5432 });
    expect(parseHostPort('[::1]:80')).toEqual({ host: '::1', port: 80 });
  });

  it('refuses what the reference refuses: a scheme, no port, a port out of range', () => {
    for (const e of ['https://www.flanksource.com:80', 'tcp://db:5432', 'db', 'db:', 'db:0', 'db:70000', 'a:b:1']) {
      expect(parseHostPort(e), e).toBeNull();
    }
  });
});

describe('withUserAgent', () => {
  it("adds the agent unless the headers carry one, in any case", () => {
    expect(withUserAgent({ accept: '*/*' }, 'x/1')).toEqual({ accept: '*/*', 'user-agent': 'x/1' });
    expect(withUserAgent({ 'User-Agent': 'mine' }, 'x/1')).toEqual({ 'User-Agent': 'mine' });
  });
});
