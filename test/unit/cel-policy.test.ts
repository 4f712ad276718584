// The cel policy: ValidatingAdmissionPolicy-style expressions, compiled when the document is validated.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import { configFromEnv } from '../../functions/admission/config.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { celPolicy } from '../../functions/cel/policy.js';
import type { Findings } from '../../functions/admission/policy.js';
import { LazyVariables } from '../../functions/engines/cel/lazy-variables.js';
import { CelParametersSchema } from '../../functions/cel/rules.js';
import { admissionReviewFor, type ReviewOptions } from '../../infra/admission-event.js';
import { eventFor, type Handler, invoke } from '../helpers/invoke.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';
import * as v from '../../functions/admission/schema.js';

const deployment = (replicas: number, labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels },
  spec: { replicas, template: { spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
});
/** The violations' messages (cel evaluates synchronously when no regular expression is involved). */
const evaluate = (parameters: unknown, object: unknown, options: ReviewOptions = {}) => {
  const findings = celPolicy.evaluate(
    admissionReviewFor(object, options).request as AdmissionRequest,
    v.parse(CelParametersSchema, parameters),
    { now: new Date() },
  ) as Findings;
  return (Array.isArray(findings) ? findings : findings.violations).map((violation) =>
    typeof violation === 'string' ? violation : violation.message,
  );
};

describe('cel expressions', () => {
  it.each([
    [2, []],
    [3, ['failed expression: object.spec.replicas <= 2']],
  ])('the seed example `object.spec.replicas <= 2` as written: replicas %s', (replicas, expected) => {
    expect(evaluate({ validations: [{ expression: 'object.spec.replicas <= 2' }] }, deployment(replicas))).toEqual(expected);
  });

  it('message, then messageExpression, then the expression itself', () => {
    const parameters = {
      params: { max: 2 },
      validations: [
        { expression: 'object.spec.replicas <= params.max', message: 'too many replicas' },
        {
          expression: 'object.spec.replicas <= params.max',
          messageExpression: "'replicas ' + string(object.spec.replicas) + ' > ' + string(params.max)",
        },
      ],
    };
    expect(evaluate(parameters, deployment(5))).toEqual(['too many replicas', 'replicas 5 > 2']);
  });

  it('variables are evaluated in order and can use each other', () => {
    const parameters = {
      variables: [
        { name: 'images', expression: 'object.spec.template.spec.containers.map(c, c.image)' },
        { name: 'unpinned', expression: "variables.images.filter(i, !i.contains(':'))" },
      ],
      validations: [{ expression: 'size(variables.unpinned) == 0', messageExpression: "'unpinned: ' + variables.unpinned.join(', ')" }],
    };
    const manifest = deployment(1);
    manifest.spec.template.spec.containers.push({ name: 'd', image: 'redis' });
    expect(evaluate(parameters, manifest)).toEqual(['unpinned: redis']);
  });

  it('matchConditions all true or the rule does not apply; request and oldObject are bound', () => {
    const parameters = {
      matchConditions: [{ name: 'updates-only', expression: "request.operation == 'UPDATE'" }],
      validations: [{ expression: 'object.spec.replicas >= oldObject.spec.replicas', message: 'no scaling down' }],
    };
    expect(evaluate(parameters, deployment(1))).toEqual([]); // CREATE: not matched
    expect(evaluate(parameters, deployment(1), { operation: 'UPDATE', oldObject: deployment(3) })).toEqual(['no scaling down']);
  });

  it.each([
    ['an error (missing field)', 'object.spec.missing == 1', /object.spec.missing == 1: No such key: missing/],
    ['a non-boolean result', 'object.spec.replicas', /returned bigint, expected a bool/],
  ])('%s throws, so the stack applies the failure policy', (_case, expression, message) => {
    expect(() => evaluate({ validations: [{ expression }] }, deployment(1))).toThrow(message);
  });

  describe('ValidatingAdmissionPolicy semantics that used to fail open', () => {
    it.each([
      ['a runtime error', "'replicas: ' + object.spec.missing"],
      ['a conversion with no overload (string of a map)', "'labels: ' + string(object.metadata.labels)"],
      ['an empty message', "''"],
      ['a message with a line break', "'too many\\nreplicas'"],
      ['a non-string', 'object.spec.replicas'],
    ])('messageExpression giving %s falls back to message, then to the expression', (_case, messageExpression) => {
      const validation = { expression: 'object.spec.replicas <= 2', messageExpression };
      expect(evaluate({ validations: [{ ...validation, message: 'at most 2 replicas' }] }, deployment(3))).toEqual(['at most 2 replicas']);
      expect(evaluate({ validations: [validation] }, deployment(3))).toEqual(['failed expression: object.spec.replicas <= 2']);
    });

    it('each validation is decided alone: a violation is reported even when another validation fails to evaluate', () => {
      const parameters = {
        validations: [
          { expression: 'object.spec.paused == false' },
          { expression: 'object.spec.replicas <= 2', message: 'at most 2 replicas' },
        ],
      };
      expect(evaluate(parameters, deployment(3))).toEqual(['at most 2 replicas']);
      // With nothing violated, the error stands: the failure policy decides.
      expect(() => evaluate(parameters, deployment(1))).toThrow(/object.spec.paused == false: No such key: paused/);
    });

    it('variables are lazy: one that would fail is never evaluated when a matchCondition excludes the request', () => {
      const parameters = {
        variables: [{ name: 'paused', expression: 'object.spec.paused' }],
        matchConditions: [{ name: 'updates-only', expression: "request.operation == 'UPDATE'" }],
        validations: [{ expression: 'variables.paused == false' }],
      };
      expect(evaluate(parameters, deployment(1))).toEqual([]); // CREATE: excluded before the variable is needed
      expect(() => evaluate(parameters, deployment(1), { operation: 'UPDATE', oldObject: deployment(1) })).toThrow(
        /variables.paused: No such key: paused/,
      );
    });

    it('a variable is evaluated once however often it is used, failures included', () => {
      let evaluations = 0;
      const variables = new LazyVariables(
        new Map([
          ['n', () => ++evaluations],
          [
            'bad',
            () => {
              evaluations++;
              throw new Error('bad');
            },
          ],
        ]),
        { variable: (evaluate) => evaluate() },
      );
      expect([variables.get('n'), variables.get('n'), variables.has('n'), variables.has('other'), variables.size]).toEqual([
        1,
        1,
        true,
        false,
        2,
      ]);
      expect(() => variables.get('bad')).toThrow('bad');
      expect(() => variables.get('bad')).toThrow('bad');
      expect(evaluations).toBe(2);
    });

    it('a variable used by several validations; one that refers to itself is an error', () => {
      const parameters = {
        variables: [{ name: 'names', expression: 'object.spec.template.spec.containers.map(c, c.name)' }],
        validations: [
          { expression: 'size(variables.names) == 1' },
          { expression: "variables.names.all(n, n != 'x')" },
          { expression: 'variables.names[0] == "c"' },
        ],
      };
      expect(evaluate(parameters, deployment(1))).toEqual([]);
      const selfReference = {
        variables: [{ name: 'loop', expression: 'variables.loop + 1' }],
        validations: [{ expression: 'variables.loop > 0' }],
      };
      expect(() => evaluate(selfReference, deployment(1))).toThrow(/variables.loop refers to itself/);
    });
  });

  it.each([
    ['a syntax error', 'object.spec.replicas <=', 'does not compile: Unexpected token: EOF (at column'],
    ['an unknown function', 'lenght(object) > 1', 'unknown function lenght'],
    ['an undeclared variable', 'objct.spec.replicas > 1', 'undeclared objct'],
    ['a bad variable name', null, 'expected a CEL identifier'],
    [
      'a map literal key the engine would drop',
      "{'constructor': 1, 'a': 2}.size() == 2",
      "a map literal cannot have the key 'constructor'",
    ],
  ])('a document with %s is invalid, naming the field', (_case, expression, message) => {
    const parameters =
      expression === null
        ? '{ variables: [{ name: "1x", expression: "1" }], validations: [{ expression: "true" }] }'
        : `{ validations: [{ expression: ${JSON.stringify(expression)} }] }`;
    const result = parseRulesDocument(celPolicy, `rules: [{ name: r, match: { kinds: [Deployment] }, parameters: ${parameters} }]`);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors.join('\n')).toMatch(
        new RegExp(
          `rules\\[0\\]\\.parameters\\.(validations\\[0\\]\\.expression|variables\\[0\\]\\.name): .*${message.replace(/[()[\]]/g, '\\$&')}`,
        ),
      );
  });

  it('a rule must name its kinds: cel has no default', () => {
    const result = parseRulesDocument(celPolicy, 'rules: [{ name: r, parameters: { validations: [{ expression: "true" }] } }]');
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors).toContain('rules[0].match.kinds: required: name the kinds (or resourceRules) this rule applies to');
  });

  it('through the stack: an evaluation error fails open with the expression named, and compiles once per rules version', async () => {
    const dir = temporaryDirectory('portcullis-cel-');
    try {
      writeFileSync(
        join(dir, 'cel.yaml'),
        'rules: [{ name: r, match: { kinds: [Deployment] }, parameters: { validations: [{ expression: "object.spec.paused == false" }] } }]',
      );
      const handler = createAdmissionHandler(celPolicy, { config: configFromEnv({ RULES_DIR: dir }) }) as unknown as Handler;
      const { response } = (await invoke(handler, eventFor(deployment(1)))).body;
      expect(response.allowed).toBe(true);
      expect(response.auditAnnotations['failed-open']).toBe(
        'policy error: object.spec.paused == false: No such key: paused (at column 13)',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
