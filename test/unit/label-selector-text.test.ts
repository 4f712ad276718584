// Label selectors as text, held to apimachinery's own tests (k8s.io/apimachinery/pkg/labels/selector_test.go:
// TestSelectorParse, TestSetSelectorParser, TestSelectorMatches, TestRequirementSelectorMatching, TestToString,
// TestRequirementConstructor), so a placement or a list call's selector means what kubectl's `-l` means.
import { describe, expect, it } from 'vitest';
import { matchesRequirements, parseSelectorText, selectorText } from '../../functions/admission/kubernetes/label-selector-text.js';

const parsed = (text: string) => {
  const result = parseSelectorText(text);
  if (!result.ok) throw new Error(`${text}: ${result.error}`);
  return result.requirements;
};
const matches = (text: string, labels: Record<string, string>) => matchesRequirements(labels, parsed(text));

describe('parsing (TestSelectorParse: the canonical text is the input without its spaces)', () => {
  it.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5'])('%j', (text) => {
    expect(selectorText(parsed(text))).toBe(text.replaceAll(' ', ''));
  });

  it.each(['x=a||y=b', 'x==a==b', '!x=a', 'x<a'])('%j is refused', (text) => {
    expect(parseSelectorText(text).ok).toBe(false);
  });

  it('is deterministic: requirements sorted by key (TestDeterministicParse)', () => {
    expect(selectorText(parsed('x=a,a=x'))).toBe('a=x,x=a');
    expect(selectorText(parsed('a=x,x=a'))).toBe('a=x,x=a');
  });
});

describe('sets, spaces and keywords (TestSetSelectorParser)', () => {
  it.each([
    ['', ''],
    ['\rx', 'x'],
    ['this-is-a-dns.domain.com/key-with-dash', 'this-is-a-dns.domain.com/key-with-dash'],
    ['this-is-another-dns.domain.com/key-with-dash in (so,what)', 'this-is-another-dns.domain.com/key-with-dash in (so,what)'],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)'],
    ['foo  in\t (abc)', 'foo in (abc)'],
    ['x notin\n (abc)', 'x notin (abc)'],
    ['x  notin\t\t\t(abc,def)', 'x notin (abc,def)'],
    ['x in (abc,def)', 'x in (abc,def)'],
    ['x in (abc,)', 'x in (,abc)'],
    ['x in ()', 'x in ()'],
    ['x notin (abc,,def),bar,z in (),w', 'bar,w,x notin (,abc,def),z in ()'],
    ['x,y in (a)', 'x,y in (a)'],
    ['x=a', 'x=a'],
    ['x>1', 'x>1'],
    ['x<7', 'x<7'],
    ['x=a,y!=b', 'x=a,y!=b'],
    ['x=a,y!=b,z in (h,i,j)', 'x=a,y!=b,z in (h,i,j)'],
    ['x notin ( )', 'x notin ()'],
    ['x notin (, a)', 'x notin (,a)'],
    ['a ', 'a'],
    ['a in (x,y,notin, z,in)', 'a in (in,notin,x,y,z)'],
  ])('%j reads as %j', (text, canonical) => {
    expect(selectorText(parsed(text))).toBe(canonical);
  });

  it.each([
    ['x=a||y=b', /value "a\|\|y" of x: a label value must be empty or consist of/],
    ['x,,y', /found ',', expected: identifier after ','/],
    [',x,y', /found ',', expected: !, identifier, or 'end of string'/],
    ['x nott in (y)', /found 'nott', expected: in, notin, =, ==, !=, gt, lt/],
    ['a in (xyz),', /found '', expected: identifier after ','/],
    ['a in (xyz)b notin ()', /found 'b', expected: ',' or 'end of string'/],
    ['a in (xyz abc)', /found 'abc', expected: ',' or '\)'/],
    ['a notin(', /found '', expected: ',', '\)' or identifier/],
    ['a (', /found '\(', expected: in, notin/],
    ['(', /found '\(', expected: !, identifier/],
  ])('%j is refused, saying what was found and what was expected', (text, message) => {
    const result = parseSelectorText(text);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error).toMatch(message);
  });
});

describe('keys and values are validated (TestRequirementConstructor)', () => {
  it.each([
    ['a 254-character key', `${'x'.repeat(254)}=a`, /name part must be no more than 63 characters/],
    ['a value of 254 characters', `x=${'a'.repeat(254)}`, /must be no more than 63 characters/],
    ['a key with an empty prefix', '/name=a', /prefix part must be non-empty/],
    ['a key with two slashes', 'a/b/c=d', /at most one "\/"/],
    ['an upper-case prefix', 'Example.com/name=a', /prefix part must be a lowercase DNS subdomain/],
    ['Gt with a word', 'x>bar', /for 'Gt', 'Lt' operators, the value must be an integer/],
    ['Gt with nothing', 'x>', /the value must be an integer/],
    ['Lt with a sign (not a label value)', 'x<-1', /value "-1" of x/],
  ])('%s is refused', (_case, text, message) => {
    const result = parseSelectorText(text);
    expect(result.ok ? 'accepted' : result.error).toMatch(message);
  });

  it.each(['1foo', '1234', 'x>1', 'x<6', 'example.com/name in (a,b)'])('%j is accepted', (text) => {
    expect(parseSelectorText(text).ok).toBe(true);
  });
});

describe('matching (TestSelectorMatches, TestRequirementSelectorMatching)', () => {
  const labels = { foo: 'bar', baz: 'blah' };
  it.each([
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['foo=bar', labels, true],
    ['baz=blah', labels, true],
    ['foo=bar,baz=blah', labels, true],
    ['foo=blah', labels, false],
    ['baz=bar', labels, false],
    ['foo=bar,foobar=bar,baz=blah', labels, false],
    ['x in (foo),y notin (alpha)', { x: 'foo', y: 'baz' }, true],
    ['x in (foo),y in (alpha)', { x: 'foo', y: 'baz' }, false],
    ['x notin (),y', { y: '' }, true],
    ['!x,y', { y: '' }, true],
    ['x notin (),!y', { y: '' }, false],
    ['x in ()', { y: 'baz' }, false],
    ['z>1', { z: '2' }, true],
    ['z>1', { z: 'v2' }, false],
    ['z>1', { z: '99999999999999999999' }, false],
  ])('%j on %j: %s', (text, given, expected) => {
    expect(matches(text, given)).toBe(expected);
  });

  it('reads own labels only: a key named like an Object property is absent unless set', () => {
    expect(matches('constructor', {})).toBe(false);
    expect(matches('!toString', {})).toBe(true);
  });
});

describe('canonical text (TestToString)', () => {
  it.each([
    'x in (abc,def),y notin (jkl),z',
    'x notin (abc,def),y!=jkl,!z',
    'x notin (abc),y in (jkl,mno),z notin ()',
    'x=abc,y==jkl,z!=a,z',
    'x>2,y<8,z',
  ])('%j', (text) => {
    expect(selectorText(parsed(text))).toBe(text);
  });
});
