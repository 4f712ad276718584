// json.verify_schema and json.match_schema held to OPA's own unit tests (topdown/jsonschema_test.go:
// TestBuiltinJSONSchemaVerify, TestBuiltinJSONMatchSchema), and to gojsonschema's order and words on the
// keywords those leave out, with the evaluation's budget charged and RE2 for patterns.
import { beforeAll, describe, expect, it } from 'vitest';
import { compileSources } from '../../functions/engines/rego/compile-sources.js';
import { evalQuery } from '../../functions/engines/rego/rego.js';
import type { Value } from '../../functions/engines/rego/values.js';
import { CostBudget, EngineLimitError } from '../../functions/engines/runtime/cost-budget.js';
import { loadRegexEngine } from '../../functions/engines/runtime/re2.js';

beforeAll(() => loadRegexEngine());
const policy = compileSources([{ file: 'p.rego', source: 'package p' }]);
const run = (expression: string, input: Record<string, unknown>, budget = new CostBudget()) =>
  evalQuery(policy, `x := ${expression}`, { input: input as Value, strictBuiltinErrors: true, now: new Date(), budget })[0]?.bindings.x;
const verify = (schema: unknown) => run('json.verify_schema(input.schema)', { schema });
const match = (document: unknown, schema: unknown) => run('json.match_schema(input.document, input.schema)', { document, schema });
const violation = (field: string, type: string, desc: string) => ({ error: `${field}: ${desc}`, type, field, desc });

const ID_INTEGER = `{"properties": {"id": {"type": "integer"}}, "required": ["id"]}`;
const NAME_PATTERN = (pattern: string) => `{"properties": {"name": {"type": "string", "pattern": ${JSON.stringify(pattern)}}}}`;

describe("json.verify_schema, as OPA's TestBuiltinJSONSchemaVerify", () => {
  it.each([
    ['string empty schema', '{}', [true, null]],
    ['string broken JSON', '{ "a": "', [false, 'jsonschema: invalid JSON string']],
    ['string simple schema', ID_INTEGER, [true, null]],
    [
      'string broken schema',
      `{"properties": {"id": {"type": "UNKNOWN"}}, "required": ["id"]}`,
      [
        false,
        'jsonschema: has a primitive type that is NOT VALID -- given: /UNKNOWN/ Expected valid values are:[array boolean integer number null object string]',
      ],
    ],
    ['string schema with valid pattern', NAME_PATTERN('^[a-z]+$'), [true, null]],
    [
      'a pattern RE2 does not compile (negative lookahead)',
      NAME_PATTERN('^(?!testing:.*)[a-z]+$'),
      [false, 'jsonschema: pattern must be a valid regex'],
    ],
  ])('%s', (_note, schema, expected) => {
    expect(verify(schema)).toEqual(expected);
  });

  it('takes an object as the schema, and refuses what is neither text nor object', () => {
    expect(verify({ type: 'boolean' })).toEqual([true, null]);
    expect(verify(1)).toEqual([false, 'jsonschema: wrong type, expected string or object']);
  });
});

describe("json.match_schema, as OPA's TestBuiltinJSONMatchSchema", () => {
  it('a valid document: true and no errors; an invalid schema is an error', () => {
    expect(match('{ "id": 5 }', ID_INTEGER)).toEqual([true, []]);
    expect(() => match('{ "id": 5 }', `{"properties": {"id": {"type": "UNKNOWN"}}}`)).toThrow(
      'json.match_schema: has a primitive type that is NOT VALID',
    );
    expect(() =>
      evalQuery(policy, 'x := json.match_schema("{}", "{")', { strictBuiltinErrors: true, now: new Date(), budget: new CostBudget() }),
    ).toThrow('json.match_schema: invalid JSON string');
  });

  it.each([
    ['a wrong type', '{ "id": "test" }', ID_INTEGER, [violation('id', 'invalid_type', 'Invalid type. Expected: integer, given: string')]],
    [
      'an empty enum rejects a string',
      '{ "id": "anything" }',
      '{ "properties": { "id": { "enum": [] } } }',
      [violation('id', 'enum', 'id must be one of the following: (none)')],
    ],
    [
      'an empty enum rejects null',
      '{ "id": null }',
      '{ "properties": { "id": { "enum": [] } } }',
      [violation('id', 'enum', 'id must be one of the following: (none)')],
    ],
    [
      'a value outside an enum',
      '{ "id": "z" }',
      '{ "properties": { "id": { "enum": ["a", "b"] } } }',
      [violation('id', 'enum', 'id must be one of the following: "a", "b"')],
    ],
    [
      'a pattern not matched',
      '{ "name": "Alice1" }',
      NAME_PATTERN('^[a-z]+$'),
      [violation('name', 'pattern', "Does not match pattern '^[a-z]+$'")],
    ],
  ])('%s', (_note, document, schema, errors) => {
    expect(match(document, schema)).toEqual([false, errors]);
  });

  it('an absent enum constrains nothing; a matching pattern passes', () => {
    expect(match('{ "id": "anything" }', '{ "properties": { "id": { "type": "string" } } }')).toEqual([true, []]);
    expect(match('{ "name": "alice" }', NAME_PATTERN('^[a-z]+$'))).toEqual([true, []]);
  });
});

describe("gojsonschema's order and words on the other keywords", () => {
  it('required at the object, items by index, uniqueness, additional properties, and anyOf with its closest branch', () => {
    const schema = {
      required: ['kind'],
      additionalProperties: false,
      properties: {
        kind: { type: 'string' },
        ports: { type: 'array', uniqueItems: true, items: { type: 'integer', minimum: 1, exclusiveMaximum: 65536 } },
        replicas: { anyOf: [{ type: 'integer', maximum: 3 }, { type: 'string' }] },
      },
    };
    expect(match({ ports: [80, 80, 70000], replicas: 5, extra: true }, schema)).toEqual([
      false,
      [
        violation('(root)', 'required', 'kind is required'),
        violation('(root)', 'additional_property_not_allowed', 'Additional property extra is not allowed'),
        violation('ports.2', 'number_lt', 'Must be less than 65536'),
        violation('ports', 'unique', 'array items[0,1] must be unique'),
        violation('replicas', 'number_any_of', 'Must validate at least one schema (anyOf)'),
        violation('replicas', 'number_lte', 'Must be less than or equal to 3'),
      ],
    ]);
  });

  // Properties are validated in key order (Go's map order is random: OPA's own order varies from run to run).
  it('$ref into definitions, oneOf, not, if/then, const, dependencies, formats and lengths', () => {
    const schema = {
      definitions: { name: { type: 'string', minLength: 2, maxLength: 5 } },
      properties: {
        name: { $ref: '#/definitions/name' },
        mode: { oneOf: [{ const: 'a' }, { enum: ['a', 'b'] }] },
        when: { format: 'date-time' },
        host: { format: 'hostname' },
        level: { not: { type: 'integer' } },
        // `then` written as JSON: an object literal with a then property reads as a promise.
        tls: JSON.parse('{"if": {"const": true}, "then": {"required": ["cert"]}}'),
      },
      dependencies: { cert: ['key'] },
    };
    const [valid, errors] = match(
      { name: 'x', mode: 'a', when: '2026-13-01T00:00:00Z', host: 'bad_host', level: 3, cert: 'c' },
      schema,
    ) as [boolean, { type: string; field: string }[]];
    expect(valid).toBe(false);
    expect(errors.map(({ field, type }) => `${field} ${type}`)).toEqual([
      '(root) missing_dependency',
      'host format',
      'level number_not',
      'mode number_one_of',
      'name string_gte',
      'when format',
    ]);
  });

  it('a schema that refers to itself without reading the document is an error, not a loop', () => {
    expect(() =>
      evalQuery(policy, 'x := json.match_schema({}, {"$ref": "#"})', {
        strictBuiltinErrors: true,
        now: new Date(),
        budget: new CostBudget(),
      }),
    ).toThrow('refers to itself');
  });

  it('each node visited is charged to the evaluation’s budget', () => {
    const spent = (count: number) => {
      const budget = new CostBudget(Number.POSITIVE_INFINITY);
      match(
        Array.from({ length: count }, (_, index) => ({ n: index })),
        { items: { properties: { n: { type: 'integer' } } } },
      );
      run(
        'json.match_schema(input.d, {"items": {"properties": {"n": {"type": "integer"}}}})',
        { d: Array.from({ length: count }, (_, index) => ({ n: index })) },
        budget,
      );
      return budget.spent;
    };
    expect(spent(2000) - spent(1000)).toBeGreaterThan(2000);
  });
});

describe('what a schema or document cannot do to the evaluation', () => {
  const error = (expression: string) => () =>
    evalQuery(policy, `x := ${expression}`, { strictBuiltinErrors: true, now: new Date(), budget: new CostBudget() });

  it('a bad reference, a format named like an object method and duplicate enum members are answers, not crashes', () => {
    expect(verify('{"$ref": "#/%"}')).toEqual([false, "jsonschema: Object has no key '%'"]);
    expect(match('"x"', '{"format": "hasOwnProperty"}')).toEqual([true, []]);
    expect(verify('{"enum": [{"a": 1, "b": 2}, {"b": 2, "a": 1}]}')).toEqual([false, 'jsonschema: enum items must be unique']);
    expect(verify('{"$schema": "http://json-schema.org/draft-04/schema#", "exclusiveMaximum": true}')).toEqual([
      false,
      'jsonschema: exclusiveMaximum cannot be used without maximum',
    ]);
  });

  it('a reference loop through allOf and a deeply nested document stop with an error, not a stack overflow', () => {
    expect(error('json.match_schema("1", {"allOf": [{"$ref": "#"}]})')).toThrow('nested too deeply');
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expect(error(`json.match_schema(${JSON.stringify(deep)}, {"items": {"$ref": "#"}})`)).toThrow('nested too deeply');
    expect(error(`json.match_schema(${JSON.stringify(deep)}, {"const": 1})`)).toThrow('nested too deeply');
    // The limit is ours: it stops the evaluation even where a built-in's error would make the call undefined.
    const lenient = () =>
      evalQuery(policy, 'x := json.match_schema("1", {"allOf": [{"$ref": "#"}]})', {
        strictBuiltinErrors: false,
        now: new Date(),
        budget: new CostBudget(),
      });
    expect(lenient).toThrow(EngineLimitError);
  });
});
