import { describe, expect, it } from 'vitest';
import { renderGoTemplate } from '../go-template.js';

const render = (t: string, data: Record<string, unknown> = {}) => renderGoTemplate(t, data);

// Go's predefined template functions (text/template documentation, "Functions").
describe('Go template builtins', () => {
  it('len counts a string\'s bytes, a list\'s items, a map\'s keys', () => {
    expect(render('{{ len "héllo" }} {{ len .l }} {{ len .m }}', { l: [1, 2], m: { a: 1 } })).toBe('6 2 1');
    expect(() => render('{{ len 3 }}')).toThrow(/error calling len: len of type int/);
  });

  it('index walks lists and maps, a missing map key is nil; a string indexes to a byte', () => {
    expect(render('{{ index .m "a" 1 }} {{ index .m "zz" }} {{ index "abc" 1 }}', { m: { a: [10, 20] } })).toBe('20 <nil> 98');
    expect(() => render('{{ index .l "x" }}', { l: [1] })).toThrow(/cannot index slice\/array with type string/);
  });

  it('print, println, urlquery', () => {
    expect(render('{{ print "a" 1 2 "b" }}|{{ println 1 "x" }}|{{ urlquery "a b&c(!)" }}')).toBe('a1 2b|1 x\n|a+b%26c%28%21%29');
  });

  it('not, and, or return Go\'s values, not just booleans', () => {
    expect(render('{{ not "" }} {{ and 1 "x" }} {{ or "" 0 }}')).toBe('true x 0');
  });
});
