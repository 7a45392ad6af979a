import { describe, expect, it } from 'vitest';
import type { LiveMessage } from '../contracts/events.js';
import type { Principal } from './auth.js';
import { LiveConnection, mayReceive, sameOrigin } from './ws.js';

const change = (relation: string): LiveMessage => ({ type: 'change', relation, at: new Date().toISOString() });

/** A socket whose sends complete only when `flush()` is called, like a client that reads slowly. */
function slowSocket() {
  const sent: string[] = [];
  const callbacks: (() => void)[] = [];
  return {
    sent,
    flush: () => callbacks.splice(0).forEach((cb) => cb()),
    socket: { OPEN: 1 as const, readyState: 1 as const, bufferedAmount: 0, send: (text: string, cb: () => void) => { sent.push(text); callbacks.push(cb); } },
  };
}

const principal = (roles: Principal['roles']): Principal => ({ id: 'p', name: 'P', email: null, roles, via: 'session' });

describe('mayReceive', () => {
  it("follows the relation's RBAC resource; unknown relations reach no one", () => {
    expect(mayReceive(['viewer'], change('teams'))).toBe(true);
    expect(mayReceive(['viewer'], change('people_roles'))).toBe(false);
    expect(mayReceive(['viewer'], change('identities'))).toBe(false);
    expect(mayReceive(['admin'], change('identities'))).toBe(true);
    expect(mayReceive(['admin'], change('identity_credentials'))).toBe(false);
    expect(mayReceive(['admin'], change('__proto__'))).toBe(false);
    expect(mayReceive(['viewer'], { type: 'resync', at: '' })).toBe(true);
  });
});

describe('LiveConnection', () => {
  it('drops events while a client lags, then tells it to resync once it has caught up', () => {
    const s = slowSocket();
    const conn = new LiveConnection(s.socket as never, principal(['viewer']), 3);
    for (let i = 0; i < 10; i++) conn.deliver(change('teams'), `event ${i}`);
    expect(s.sent).toEqual(['event 0', 'event 1', 'event 2']);
    s.flush();
    expect(s.sent).toHaveLength(4);
    expect(JSON.parse(s.sent[3])).toMatchObject({ type: 'resync', reason: 'lagged' });
    s.flush();
    conn.deliver(change('teams'), 'event 10');
    expect(s.sent.at(-1)).toBe('event 10');
  });
});

describe('sameOrigin', () => {
  const req = (origin: string | undefined, host = 'console.local:8080') => ({ headers: { origin }, host });
  it('accepts the Host the browser connected to and PUBLIC_URL; refuses others and a missing Origin', () => {
    expect(sameOrigin(req('http://console.local:8080'), 'http://localhost:8080')).toBe(true);
    expect(sameOrigin(req('https://ops.example.com'), 'https://ops.example.com/')).toBe(true);
    expect(sameOrigin(req('http://evil.example'), 'http://localhost:8080')).toBe(false);
    expect(sameOrigin(req('http://console.local:8081'), 'http://localhost:8080')).toBe(false);
    expect(sameOrigin(req(undefined), 'http://localhost:8080')).toBe(false);
    expect(sameOrigin(req('null'), 'http://localhost:8080')).toBe(false);
  });
});
