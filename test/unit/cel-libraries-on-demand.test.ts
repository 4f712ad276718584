// The Kubernetes and Kyverno CEL libraries are registered when the first expression that names them is
// compiled (environment.ts): rules that call none of them skip their part of the cold start. This file
// runs in its own module graph, so the environment starts without them.
import type { Environment } from '@marcbachmann/cel-js';
import { expect, it } from 'vitest';
import { celEnvironment, registerLibraries } from '../../functions/engines/cel/environment.js';
import { compileCel, toCel } from '../../functions/engines/cel/program.js';
import { LIBRARY_FUNCTIONS, LIBRARY_IDENTIFIERS } from '../../functions/engines/cel/libraries/all-libraries.js';

const definedFunctions = () => new Set(celEnvironment.getDefinitions().functions.map((definition) => definition.signature));
const functionName = (signature: string) => /(\w+)\(/.exec(signature)![1]!;

function evaluate(source: string, object: unknown = {}): unknown {
  const program = compileCel(source);
  if (typeof program === 'string') throw new Error(program);
  return program.run({ object: toCel(object), oldObject: null, request: new Map(), params: null, variables: new Map() });
}

it('lists every name the registration adds', () => {
  const functions = new Set<string>();
  const identifiers = new Set<string>();
  const recorder = {
    registerFunction: (signature: string) => functions.add(functionName(signature)),
    registerType: (name: string) => identifiers.add(name.split('.')[0]!) && functions.add('type'),
    registerConstant: (name: string) => identifiers.add(name),
  };
  registerLibraries(recorder as unknown as Environment);
  expect(functions).toEqual(LIBRARY_FUNCTIONS);
  expect(identifiers).toEqual(LIBRARY_IDENTIFIERS);
});

it('registers the libraries at the first expression that names one of their functions, and only then', () => {
  const engineOnly = definedFunctions();
  expect(
    evaluate("object.spec.containers.all(c, !c.image.endsWith(':latest')) && 'abc'.startsWith('a')", {
      spec: { containers: [{ image: 'a:1' }] },
    }),
  ).toBe(true);
  expect(compileCel('lenght(object) > 1')).toBe('does not compile: unknown function lenght');
  expect(definedFunctions()).toEqual(engineOnly);

  // indexOf on a list is the Kubernetes library's overload of a name the engine has for strings.
  expect(evaluate("['a', 'b'].indexOf('b')")).toBe(1n);
  const added = [...definedFunctions()].filter((signature) => !engineOnly.has(signature));
  expect(new Set(added.map(functionName))).toEqual(LIBRARY_FUNCTIONS);
  expect(evaluate("quantity('1Gi').isGreaterThan(quantity('1Mi')) && sets.contains([1, 2], [2])")).toBe(true);
});

it('names a library function that does not exist as unknown, after registering the libraries', () => {
  expect(compileCel("quantity('1Gi').isBigger(quantity('1Mi'))")).toBe('does not compile: unknown function isBigger');
  expect(compileCel('object.spec.containers.all(c, c.image.startz("a"))')).toBe('does not compile: unknown function startz');
});
