// Object construction in mutation expressions (MutatingAdmissionPolicy's `Object{...}` and `JSONPatch{...}`),
// which the engine does not parse, rewritten into the map literals it means; and jsonpatch.escapeKey. The
// expressions are those of Kubernetes' MutatingAdmissionPolicy documentation.
import { describe, expect, it } from 'vitest';
import { compileCel, toCel } from '../../functions/engines/cel/program.js';
import { withObjectsAsMaps } from '../../functions/engines/cel/object-construction.js';
import { withIndexedPresence } from '../../functions/engines/cel/indexed-presence.js';

const plain = (value: unknown): unknown =>
  JSON.parse(
    JSON.stringify(value, (_key, item) =>
      typeof item === 'bigint' ? Number(item) : item instanceof Map ? Object.fromEntries(item) : item,
    ),
  );

function run(source: string, object: unknown = {}) {
  const program = compileCel(source, { constructsObjects: true });
  if (typeof program === 'string') throw new Error(program);
  return plain(program.run({ object: toCel(object), oldObject: null, request: null, params: null, variables: new Map() }));
}

describe('object construction', () => {
  it('an apply configuration that injects a sidecar (the documentation’s ApplyConfiguration example)', () => {
    const source = `Object{
      spec: Object.spec{
        initContainers: [
          Object.spec.initContainers{
            name: "mesh-proxy",
            image: "mesh/proxy:v1.0.0",
            args: ["proxy", "sidecar"],
            restartPolicy: "Always"
          }
        ]
      }
    }`;
    expect(run(source)).toEqual({
      spec: { initContainers: [{ name: 'mesh-proxy', image: 'mesh/proxy:v1.0.0', args: ['proxy', 'sidecar'], restartPolicy: 'Always' }] },
    });
  });

  it('JSONPatch operations with escaped keys (the documentation’s JSONPatch example)', () => {
    const source = `[
      JSONPatch{
        op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/environment"),
        value: object.metadata.name == "web" ? "test" : "prod"
      }
    ]`;
    expect(run(source, { metadata: { name: 'web' } })).toEqual([
      { op: 'add', path: '/metadata/labels/example.com~1environment', value: 'test' },
    ]);
  });

  it('text inside strings, map literals and comments is left as written', () => {
    expect(withObjectsAsMaps('{"a{": Object{b: "c: d{"}} // Object{x: 1}')).toBe('{"a{": dyn({"b": "c: d{"})} // Object{x: 1}');
    expect(withObjectsAsMaps("x in Object{a: 1} && y != 'T{'")).toBe('x in dyn({"a": 1}) && y != \'T{\'');
  });

  it.each([
    ['an optional field', 'Object{?spec: optional.none()}', /optional field initializers/],
    ['a field that is not a name', 'Object{"spec": 1}', /expected a field name and ':'/],
  ])('%s is an error', (_name, source, error) => {
    expect(compileCel(source, { constructsObjects: true })).toMatch(error);
  });

  it('a validating expression cannot construct objects, as in Kubernetes', () => {
    expect(compileCel('Object{spec: 1} == {}')).toMatch(/does not compile/);
  });

  it('jsonpatch.escapeKey writes a JSON Pointer token (RFC 6901)', () => {
    expect(run('jsonpatch.escapeKey("a~b/c")')).toBe('a~0b~1c');
  });
});

describe("has() of a field selected from an indexed value or a call's, which the engine does not parse", () => {
  it.each([
    ['has(object.spec.containers[idx].env)', '("env" in object.spec.containers[idx])'],
    ['has(f(x).manifest.annotations)', '("annotations" in f(x).manifest)'],
    ['has(a.b) && f(x)', 'has(a.b) && f(x)'],
    ['has(a[0].b) && has(a.b)', '("b" in a[0]) && has(a.b)'],
    ['"has(a[0].b)" == x', '"has(a[0].b)" == x'],
  ])('%s', (source, rewritten) => {
    expect(withIndexedPresence(source)).toBe(rewritten);
  });

  it('tests presence as has() does', () => {
    const program = compileCel('has(object.items[0].env) && !has(object.items[1].env)');
    if (typeof program === 'string') throw new Error(program);
    expect(program.run({ object: { items: [{ env: [] }, {}] } })).toBe(true);
  });

  it("tests presence in a call's value as has() does", () => {
    const program = compileCel('has(object.items.filter(i, i.on)[0].env) && !has(dyn(object).items[1].env)');
    if (typeof program === 'string') throw new Error(program);
    expect(program.run({ object: { items: [{ on: true, env: [] }, { on: false }] } })).toBe(true);
  });
});
