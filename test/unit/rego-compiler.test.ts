// The Rego compiler's own checks, as OPA's compiler makes them: bodies reordered so each var is bound before it
// is read, unsafe vars and recursion refused with OPA's codes and places, and data documents that merge the
// rules' values with the base data given at evaluation.
import { describe, expect, it } from 'vitest';
import type { CompiledTerm } from '../../functions/engines/rego/compile/ir.js';
import { varsOf, visitTerm } from '../../functions/engines/rego/compile/visit.js';
import { compileSources } from '../../functions/engines/rego/compile-sources.js';
import { evalQuery } from '../../functions/engines/rego/rego.js';
import type { Value } from '../../functions/engines/rego/values.js';
import { CostBudget } from '../../functions/engines/runtime/cost-budget.js';

const compile = (source: string) => compileSources([{ file: 'p.rego', source: `package p\nimport rego.v1\n${source}` }]);
const value = (source: string, query: string, input: unknown = {}, data: unknown = {}) =>
  evalQuery(compile(source), `x := ${query}`, {
    input: input as Value,
    data: data as Value,
    strictBuiltinErrors: true,
    now: new Date(),
    budget: new CostBudget(),
  })[0]?.bindings.x;

describe('safety: a body runs in an order where every var is bound before it is read', () => {
  it('moves a literal that binds a var before those that read it, as OPA reorders a body', () => {
    expect(value('p := y if { y = x + 1; x = input.n }', 'data.p.p', { n: 2 })).toBe(3);
    expect(value('q if { not x == 3; x = input.n }', 'data.p.q', { n: 2 })).toBe(true);
    expect(value('r contains v if { v = w * 2; w = [1, 2][_] }', 'data.p.r')).toEqual(expect.objectContaining({ size: 2 }));
    expect(value('s := [y | y = z * 10; z = input.list[_]]', 'data.p.s', { list: [1, 2] })).toEqual([10, 20]);
  });

  it('refuses what nothing binds: a var only compared, only negated, or read inside `not`', () => {
    expect(() => compile('p if { x > 1 }')).toThrow('p.rego:3:8: rego_unsafe_var_error: var x is unsafe');
    expect(() => compile('p if { not x == 1 }')).toThrow('rego_unsafe_var_error: var x is unsafe');
    expect(() => compile('f(a) := b')).toThrow('rego_unsafe_var_error: var b is unsafe');
  });

  it('refuses a var declared after it is read (`:=` and `some` do not reorder)', () => {
    expect(() => compile('p if { y := x; x := 1 }')).toThrow('var x referenced above');
  });
});

describe('recursion is refused, at the rule the cycle starts from', () => {
  it('direct, through another rule, through a function and through a comprehension', () => {
    expect(() => compile('p if p')).toThrow('p.rego:3:1: rego_recursion_error: rule data.p.p is recursive: data.p.p -> data.p.p');
    expect(() => compile('p if q\nq if p')).toThrow('rule data.p.p is recursive: data.p.p -> data.p.q -> data.p.p');
    expect(() => compile('f(x) := y if { y := f(x) }')).toThrow('rule data.p.f is recursive: data.p.f -> data.p.f');
    expect(() => compile('s := {v | v := s[_]}')).toThrow('rule data.p.s is recursive');
  });

  it('a rule reading another rule of the same name at another path is not recursion', () => {
    expect(value('a.p := 1\nb.p := data.p.a.p + 1', 'data.p.b.p')).toBe(2);
  });
});

describe('data documents: rules and base data as one tree', () => {
  it('a package is an object of its rules; base data beside the rules shows through, rules over it', () => {
    const data = { p: { base: 'given' } };
    expect(value('one := 1\ntwo := 2', 'data.p', {}, data)).toEqual({ base: 'given', one: 1, two: 2 });
    expect(value('one := 1', 'data.p.base', {}, data)).toBe('given');
    expect(value('one := 1', 'data.q', {}, { q: { r: 1 } })).toEqual({ r: 1 });
  });

  it('an undefined rule is absent from its package, and a rule never undefined reads its default', () => {
    expect(value('maybe if input.no\nsure := 1', 'data.p')).toEqual({ sure: 1 });
    expect(value('default maybe := false\nmaybe if input.no', 'data.p.maybe')).toBe(false);
  });

  it('`with data` replaces a base document for one expression, and the rules that read it see it', () => {
    expect(value('doubled := data.limits.max * 2', 'data.p.doubled with data.limits.max as 21', {}, { limits: { max: 1 } })).toBe(42);
  });
});

describe('the compiled form’s visitor and varsOf', () => {
  const v = (slot: number): CompiledTerm => ({ t: 'var', slot, name: `v${slot}` });
  // x[i][{"k": j}] with f(y, [y | y = x[_]]) beside it: a comprehension owning slot 5.
  const ref: CompiledTerm = { t: 'ref', head: v(0), path: [v(1), { t: 'object', entries: [[{ t: 'const', value: 'k' }, v(2)]] }] };
  const comprehension: CompiledTerm = {
    t: 'arraycompr',
    head: v(5),
    body: [
      {
        expr: { k: 'unify', left: v(5), right: { t: 'ref', head: v(0), path: [v(6)] } },
        negated: false,
        withs: [],
        loc: { row: 1, col: 1 },
      },
    ],
    locals: new Set([5, 6]),
  };
  const term: CompiledTerm = { t: 'array', items: [ref, comprehension, v(3)] };

  it('reads every var but those a comprehension owns; iterated ones; those outside references', () => {
    expect([...varsOf(term)].sort()).toEqual([0, 1, 2, 3]);
    expect([...varsOf(term, { iterated: true })].sort()).toEqual([1]);
    expect([...varsOf(term, { skipRefVars: true })].sort()).toEqual([0, 2, 3]);
  });

  it('a visit that returns true keeps the walk out of the term’s children', () => {
    const seen: string[] = [];
    visitTerm(term, (each) => {
      seen.push(each.t);
      return each.t === 'ref' || each.t === 'arraycompr';
    });
    expect(seen).toEqual(['array', 'ref', 'arraycompr', 'var']);
  });
});
