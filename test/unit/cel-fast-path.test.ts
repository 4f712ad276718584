// The fast path of CEL evaluation (functions/engines/cel/fast-path.ts) against the engine it stands in
// for: wherever the closures answer, the answer must be the engine's. Checked on edge cases chosen for
// each operator, and on every expression of the Kyverno ValidatingPolicy corpus against every resource of
// its suites, as the cel policy evaluates them.
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { compileCel, type CelProgram, EVALUATION_FAILED, evaluationPathsOf, toCel } from '../../functions/engines/cel/program.js';
import { certainlyFails, gaveUp } from '../../functions/engines/cel/fast-path.js';
import { CostBudget } from '../../functions/engines/runtime/cost-budget.js';
import { loadRegexEngine } from '../../functions/engines/runtime/re2.js';
import { celPolicy } from '../../functions/cel/policy.js';
import type { CelParameters } from '../../functions/cel/rules.js';
import { type CelValidation, celEngine } from '../../functions/engines/cel/index.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { kyvernoSuites } from '../helpers/kyverno-vpol.js';

type Outcome = { value: unknown } | { error: string } | { gaveUp: true } | { fails: true };

function outcome(evaluate: () => unknown): Outcome {
  try {
    return { value: evaluate() };
  } catch (error) {
    if (certainlyFails(error)) return { fails: true };
    return gaveUp(error) ? { gaveUp: true } : { error: String(error) };
  }
}

/** Where the closures answer, the engine's answer: the same value, or an error when they are certain of one. */
function agree(fast: Outcome, engine: Outcome): boolean {
  if ('gaveUp' in fast) return true;
  if ('fails' in fast) return 'error' in engine;
  return JSON.stringify(fast, celJson) === JSON.stringify(engine, celJson);
}

/** The closures' outcome and the engine's, on the same bindings. */
function bothWays(program: CelProgram, bindings: Record<string, unknown>) {
  const { fastPath, engine } = evaluationPathsOf(program);
  return {
    fast: fastPath ? outcome(() => fastPath(bindings, new CostBudget())) : ({ gaveUp: true } as const),
    engine: outcome(() => engine(bindings, new CostBudget())),
  };
}

const programOf = (source: string): CelProgram => {
  const program = compileCel(source);
  if (typeof program === 'string') throw new Error(program);
  return program;
};

const pod = {
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    containers: [
      {
        name: 'a',
        image: 'nginx:1',
        ports: [{ containerPort: 80 }],
        securityContext: { privileged: false, capabilities: { drop: ['ALL'] } },
      },
      { name: 'b', image: 'redis:7', securityContext: null },
    ],
    replicas: 3,
    ratio: 1.5,
    flags: [true, false],
    mixed: ['a', 1],
    nothing: null,
  },
};
const bindings = {
  object: toCel(pod),
  oldObject: null,
  request: toCel({ operation: 'CREATE', namespace: 'shop' }),
  params: toCel({ max: 2 }),
  variables: new Map([['names', ['a', 'b']]]),
};

describe('the closures answer as the engine does', () => {
  const ERROR = Symbol('an evaluation error');
  it.each<[string, unknown]>([
    // Selection, optional selection, orValue and has, on present and missing fields and on non-maps.
    ['object.metadata.name', 'web'],
    ['object.spec.missing', ERROR],
    ['object.spec.?containers.orValue([]).size()', 2n],
    ['object.spec.?initContainers.orValue([]).size()', 0n],
    ['object.spec.?nothing.?deeper.orValue("none")', 'none'],
    ['object.metadata.name.?x.orValue(1)', 1n],
    ['object.spec.containers[0].?securityContext.privileged.orValue(true)', false],
    ['object.spec.containers[1].?securityContext.privileged.orValue(true)', true],
    ['object.spec.containers[2]', ERROR],
    ['object.spec.containers.all(c, c.?securityContext.?privileged.orValue(false) == false)', true],
    ['object.spec.containers.exists(c, c.?securityContext.?capabilities.?drop.orValue([]).exists(d, d.lowerAscii() == "all"))', true],
    ['object.spec.?containers.hasValue()', true],
    ['object.spec.?initContainers.hasValue()', false],
    ['has(object.metadata.labels)', true],
    ['has(object.metadata.annotations)', false],
    ['has(object.metadata.annotations.x)', ERROR],
    ['object.metadata.labels[?"app"].orValue("")', 'web'],
    ['object.metadata.labels[?"tier"].orValue("")', ''],
    // Comparisons within a type, and across types (the engine's to decide).
    ['object.spec.replicas == 3', true],
    ['object.spec.replicas != 3', false],
    ['object.spec.replicas < 3', false],
    ['object.spec.replicas <= 3', true],
    ['object.spec.replicas > 3', false],
    ['object.spec.replicas >= 4', false],
    ['object.spec.replicas > params.max', true],
    ['object.spec.ratio >= 1.5', true],
    ['object.spec.replicas == 3.0', true],
    ['object.spec.nothing == null', true],
    ['object.metadata.name < "x"', true],
    ['object.metadata.name > "x"', false],
    // Membership, in lists of one type and of several, and in maps.
    ['"app" in object.metadata.labels', true],
    ['"tier" in object.metadata.labels', false],
    ['"nginx:1" in object.spec.containers.map(c, c.image)', true],
    ['"a" in object.spec.mixed', true],
    ['false in object.spec.flags', true],
    ['"c" in variables.names', false],
    // Logic, including what an error on one side leaves to the engine.
    ['object.spec.replicas > 1 && object.metadata.name == "web"', true],
    ['object.spec.replicas > 5 || object.metadata.name == "db"', false],
    ['has(object.spec.missing) || object.spec.replicas == 3', true],
    ['object.spec.missing == 1 || true', true],
    ['false && object.spec.missing == 1', false],
    ['true && object.spec.missing == 1', ERROR],
    ['!(object.spec.replicas > 5) ? "small" : "large"', 'small'],
    // Arithmetic and concatenation, overflow included.
    ['size(object.spec.containers + object.spec.containers)', 4n],
    ['"pod " + object.metadata.name', 'pod web'],
    ['object.spec.replicas + 2', 5n],
    ['object.spec.replicas + 9223372036854775805', ERROR],
    ['object.spec.ratio + 1.0', 2.5],
    // Literals, the string functions and the macros.
    ['{"a": object.spec.replicas, "b": [1, 2]}.b.size()', 2n],
    ['object.spec.containers.exists_one(c, c.name == "a")', true],
    ['object.spec.containers.exists_one(c, c.name != "")', false],
    ['object.spec.containers.filter(c, has(c.ports)).map(c, c.name)', ['a']],
    ['object.spec.containers.map(c, c.name != "b", c.image)', ['nginx:1']],
    ['object.metadata.labels.all(key, key.startsWith("a"))', true],
    ['object.spec.containers.all(c, c.image.matches("^[a-z]+:[0-9]+$"))', true],
    ['object.spec.containers.exists(c, c.image.matches("^redis"))', true],
    ['object.metadata.name.contains("e") && object.metadata.name.endsWith("b")', true],
    ['object.metadata.name.upperAscii()', 'WEB'],
    ['size(object.spec.containers) == 2', true],
    ['object.metadata.name.size()', 3n],
    ['oldObject.metadata.name', ERROR],
    // string(): the certain conversions, the engine's formatting of doubles, and no conversion of a map or list.
    ['string(object.spec.replicas)', '3'],
    ['string(object.spec.flags[0])', 'true'],
    ['string(object.metadata.name)', 'web'],
    ['string(object.spec.ratio)', '1.5'],
    ['string(object.metadata.labels)', ERROR],
    ['"labels: " + string(object.spec.containers)', ERROR],
    ['string(object.metadata.labels) == "" || true', true],
    ['object.spec.containers.exists(c, string(c) == "" || c.name == "a")', true],
  ])('%s', async (source, expected) => {
    await loadRegexEngine();
    const { fast, engine } = bothWays(programOf(source), bindings);
    expect(engine).toEqual(expected === ERROR ? { error: expect.any(String) } : { value: expected });
    if ('fails' in fast) expect(engine).toHaveProperty('error');
    else if (!('gaveUp' in fast)) expect(fast).toEqual(engine);
  });

  it.each([
    ['a map', 'string(object.metadata.labels)'],
    ['a list, inside an expression', '"labels: " + string(object.spec.containers)'],
  ])('string() of %s is an error the closures are certain of, without the engine', (_, source) => {
    const program = programOf(source);
    expect(bothWays(program, bindings).fast).toEqual({ fails: true });
    // Not put in words when the caller says it needs none; in the engine's words otherwise.
    expect(() => program.runUnworded(bindings, new CostBudget())).toThrow(EVALUATION_FAILED);
    expect(() => program.run(bindings, new CostBudget())).toThrow(/found no matching overload|no such overload/i);
  });

  it.each([
    ['||', 'string(object.metadata.labels) == "" || true', true],
    ['&&', 'string(object.metadata.labels) == "" && false', false],
    ['exists', 'object.spec.containers.exists(c, string(c) == "" || c.name == "a")', true],
    ['all', 'object.spec.containers.all(c, string(c) == "" && c.name == "z")', false],
  ])('under %s, which may absorb the error, the closures give up and the engine answers', (_, source, expected) => {
    const program = programOf(source);
    expect(bothWays(program, bindings).fast).toEqual({ gaveUp: true });
    expect(program.runUnworded(bindings, new CostBudget())).toBe(expected);
  });

  it.each([
    'object.spec.containers.all(c, c.?securityContext.?privileged.orValue(false) == false)',
    'object.spec.?initContainers.orValue([]).size()',
    '"app" in object.metadata.labels && has(object.spec.containers)',
    'object.spec.containers.map(c, c.image).exists(i, i.startsWith("nginx"))',
  ])('the common constructs are answered without the engine: %s', (source) => {
    expect(bothWays(programOf(source), bindings).fast).toHaveProperty('value');
  });

  it.each([
    ['a missing field', 'object.spec.missing'],
    ['an error the engine absorbs', 'object.spec.missing == 1 || true'],
    ['int overflow', 'object.spec.replicas + 9223372036854775805'],
    ['a comparison across types', 'object.spec.replicas == 3.0'],
    ['membership in a list of several types', '"a" in object.spec.mixed'],
  ])('%s is left to the engine', (_, source) => {
    expect(bothWays(programOf(source), bindings).fast).toEqual({ gaveUp: true });
  });

  it("an expression the closures give up on still gets the engine's answer, within one budget", () => {
    const program = programOf('object.spec.missing == 1 || true');
    const budget = new CostBudget();
    expect(program.run(bindings, budget)).toBe(true);
    expect(budget.spent).toBeLessThan(50);
  });
});

describe('on the Kyverno ValidatingPolicy corpus, every expression against every resource of its suite', () => {
  it('the closures agree with the engine wherever they answer, and answer most evaluations', async () => {
    await loadRegexEngine();
    let answered = 0;
    let evaluations = 0;
    const disagreements: string[] = [];
    // Each program is wrapped so that, as the policy evaluates it, both ways are compared on its bindings.
    const compared = (program: CelProgram | undefined): CelProgram | undefined =>
      program && {
        ...program,
        run(programBindings, budget) {
          const { fast, engine } = bothWays(program, programBindings);
          evaluations++;
          if (!('gaveUp' in fast)) {
            answered++;
            if (!agree(fast, engine))
              disagreements.push(`${program.source}: ${JSON.stringify(fast, celJson)} ≠ ${JSON.stringify(engine, celJson)}`);
          }
          return program.run(programBindings, budget);
        },
      };
    for (const suite of kyvernoSuites()) {
      const parsed = parseRulesDocument(celPolicy, suite.policyTexts.map(({ text }) => text).join('\n---\n'));
      if (!parsed.ok) continue;
      for (const rule of parsed.document.rules) {
        const parameters = rule.parameters as CelParameters;
        if (parameters.run.engine !== celEngine) continue;
        const cel = parameters.run.rule as CelValidation;
        const wrappedRule: CelValidation = {
          ...cel,
          validations: cel.validations.map((validation) => ({
            ...validation,
            program: compared(validation.program)!,
            messageProgram: compared(validation.messageProgram),
          })),
          variables: cel.variables.map((variable) => ({ ...variable, program: compared(variable.program)! })),
          declaredVariables: new Map(
            [...cel.declaredVariables].map(([name, source]) => [
              name,
              'program' in source ? { program: compared(source.program)! } : source,
            ]),
          ),
          matchConditions: cel.matchConditions.map((condition) => ({ ...condition, program: compared(condition.program)! })),
          auditAnnotations: cel.auditAnnotations.map((annotation) => ({ ...annotation, program: compared(annotation.program)! })),
        };
        const wrapped: CelParameters = { ...parameters, run: { ...parameters.run, rule: wrappedRule } };
        for (const { object } of suite.cases) {
          if (!object) continue;
          const request = admissionReviewFor(object).request as AdmissionRequest;
          try {
            await celPolicy.evaluate(request, wrapped, { now: new Date() });
          } catch {
            // A rule's error is the engine's as well: each expression was compared above.
          }
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(evaluations).toBeGreaterThan(1000);
    expect(answered / evaluations).toBeGreaterThan(0.8);
  });
});

/** JSON for CEL values: ints as `123n`, optionals by their content. */
function celJson(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Map) return Object.fromEntries(value);
  if (value && typeof value === 'object' && typeof (value as { hasValue?: unknown }).hasValue === 'function') {
    const optional = value as { hasValue(): boolean; value(): unknown };
    return { optional: optional.hasValue() ? optional.value() : 'none' };
  }
  return value;
}
