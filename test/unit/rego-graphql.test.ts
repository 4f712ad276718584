// The GraphQL built-ins held to OPA's own unit tests (topdown/graphql_test.go: the employee schema, as text
// and as the value parse_schema gives), to gqlparser's schema rules where they differ from graphql-js's, and to
// our limits, which stop the evaluation rather than make a call false or undefined.
import { beforeAll, describe, expect, it } from 'vitest';
import { callsGraphql, loadGraphqlLibrary } from '../../functions/engines/rego/builtins/graphql/library.js';
import { compileSources } from '../../functions/engines/rego/compile-sources.js';
import { evalQuery } from '../../functions/engines/rego/rego.js';
import type { Value } from '../../functions/engines/rego/values.js';
import { CostBudget, EngineLimitError } from '../../functions/engines/runtime/cost-budget.js';

beforeAll(() => loadGraphqlLibrary());
const policy = compileSources([{ file: 'p.rego', source: 'package p' }]);
const run = (expression: string, input: Record<string, unknown> = {}, budget = new CostBudget(10_000_000)) =>
  evalQuery(policy, `x := ${expression}`, { input: input as Value, strictBuiltinErrors: true, now: new Date(), budget })[0]?.bindings.x;

const EMPLOYEE_SCHEMA = `
  type Employee {
    id: String!
    salary: Int!
  }

  schema {
    query: Query
  }

  type Query {
    employeeByID(id: String!): Employee
  }`;
const BROKEN_SCHEMA = `
  type Employee {
    id: String!
  }

  type Broken {
    fixme

  type Query {
    employeeByID(id: String!): Employee
  }`;
const EMPLOYEE_QUERY = '{ employeeByID(id: "alice") { salary } }';
const EMPLOYEE_QUERY_AST = {
  Operations: [
    {
      Name: '',
      Operation: 'query',
      SelectionSet: [
        {
          Alias: 'employeeByID',
          Arguments: [{ Name: 'id', Value: { ExpectedTypeHasDefault: false, Kind: 3, Raw: 'alice' } }],
          Name: 'employeeByID',
          SelectionSet: [{ Alias: 'salary', Name: 'salary' }],
        },
      ],
    },
  ],
};
const EMPLOYEE_SCHEMA_AST = {
  Definitions: [
    {
      BuiltIn: false,
      Description: '',
      Fields: [
        { Description: '', Name: 'id', Type: { NamedType: 'String', NonNull: true } },
        { Description: '', Name: 'salary', Type: { NamedType: 'Int', NonNull: true } },
      ],
      Kind: 'OBJECT',
      Name: 'Employee',
    },
    {
      BuiltIn: false,
      Description: '',
      Fields: [
        {
          Arguments: [{ Description: '', Name: 'id', Type: { NamedType: 'String', NonNull: true } }],
          Description: '',
          Name: 'employeeByID',
          Type: { NamedType: 'Employee', NonNull: false },
        },
      ],
      Kind: 'OBJECT',
      Name: 'Query',
    },
  ],
  Schema: [{ Description: '', OperationTypes: [{ Operation: 'query', Type: 'Query' }] }],
};

describe("graphql.* as OPA's unit tests (topdown/graphql_test.go)", () => {
  it("parse_query and parse_schema give gqlparser's documents; empty text is an empty document", () => {
    expect(run('graphql.parse_query(input.q)', { q: EMPLOYEE_QUERY })).toEqual(EMPLOYEE_QUERY_AST);
    expect(run('graphql.parse_schema(input.s)', { s: EMPLOYEE_SCHEMA })).toEqual(EMPLOYEE_SCHEMA_AST);
    expect(run('graphql.parse_query("")')).toEqual({});
    expect(run('graphql.parse_schema("")')).toEqual({});
    expect(() => run('graphql.parse_query(input.q)', { q: '{ employeeByID("id: bob") }' })).toThrow(
      'graphql.parse_query: Expected Name, found String "id: bob" in GraphQL string at location 1:16',
    );
    expect(() => run('graphql.parse_schema(input.s)', { s: BROKEN_SCHEMA })).toThrow('graphql.parse_schema: Expected :, found Name "type"');
  });

  it.each([
    ['the employee query and schema', EMPLOYEE_QUERY, EMPLOYEE_SCHEMA, [true, EMPLOYEE_QUERY_AST, EMPLOYEE_SCHEMA_AST]],
    [
      'the schema given as the value parse_schema gives',
      EMPLOYEE_QUERY,
      EMPLOYEE_SCHEMA_AST,
      [true, EMPLOYEE_QUERY_AST, EMPLOYEE_SCHEMA_AST],
    ],
    [
      'the query given as the value parse_query gives',
      EMPLOYEE_QUERY_AST,
      EMPLOYEE_SCHEMA,
      [true, EMPLOYEE_QUERY_AST, EMPLOYEE_SCHEMA_AST],
    ],
    ['a query that does not parse', '{employeeByID("alice"', EMPLOYEE_SCHEMA, [false, {}, {}]],
    ['a schema that does not parse', EMPLOYEE_QUERY, BROKEN_SCHEMA, [false, {}, {}]],
    ['a query missing its selections', '{ employeeByID(id:"bob") }', EMPLOYEE_SCHEMA, [false, {}, {}]],
    ['an empty schema (no Query type)', '{ employeeByID(id: "charlie") { id salary } }', '', [false, {}, {}]],
    ['an empty query', '', EMPLOYEE_SCHEMA, [true, {}, EMPLOYEE_SCHEMA_AST]],
    ['a number for the query', 7, EMPLOYEE_SCHEMA, [false, {}, {}]],
  ])('parse_and_verify: %s', (_note, q, s, expected) => {
    expect(run('graphql.parse_and_verify(input.q, input.s)', { q, s })).toEqual(expected);
    expect(run('graphql.is_valid(input.q, input.s)', { q, s })).toBe(expected[0]);
  });

  it('parse raises the error parse_and_verify answers false for, worded as OPA words it', () => {
    expect(() => run('graphql.parse(input.q, input.s)', { q: '{ employeeByID(id:"bob") }', s: EMPLOYEE_SCHEMA })).toThrow(
      'graphql.parse: Field "employeeByID" of type "Employee" must have a selection of subfields. Did you mean "employeeByID { ... }"? in GraphQL string at location 1:3',
    );
    expect(() => run('graphql.parse(input.q, "")', { q: EMPLOYEE_QUERY })).toThrow(
      'graphql.parse: Schema does not support operation type "query" in GraphQL string at location 1:1',
    );
    expect(() => run('graphql.parse(1, "")')).toThrow('graphql.parse: operand 0 must be one of {string, object} but got number');
    expect(() => run('graphql.parse(input.q, "")', { q: { Operations: [{ Name: 3 }] } })).toThrow(
      'graphql.parse: json: cannot unmarshal number into Go struct field OperationDefinition.Name of type string',
    );
  });

  it.each([
    ['the employee schema', EMPLOYEE_SCHEMA, true],
    ['a schema that does not parse', BROKEN_SCHEMA, false],
    ['an empty schema (the prelude alone)', '', true],
    ['the employee schema as a value', EMPLOYEE_SCHEMA_AST, true],
  ])('schema_is_valid: %s', (_note, s, expected) => {
    expect(run('graphql.schema_is_valid(input.s)', { s })).toBe(expected);
  });
});

describe("schemas made by gqlparser's rules, not graphql-js's", () => {
  const made = (schema: string) => () => run('graphql.parse("", input.s)', { s: schema });
  it('an extension of a type nobody defined defines it, and no Query type is needed', () => {
    expect(run('graphql.schema_is_valid("extend type User { id: ID! }")')).toBe(true);
    expect(run('graphql.schema_is_valid("type Thing { id: ID! }")')).toBe(true);
  });

  it.each([
    ['a type declared twice', 'type A { a: Int }\ntype A { b: Int }', 'input:2:6: Cannot redeclare type A.'],
    ['a built-in scalar redeclared', 'scalar String', 'input:1:8: Cannot redeclare type String.'],
    ['a field of an undefined type', 'type A { a: Nope }', 'input:1:13: Undefined type Nope.'],
    ['an object with no fields', 'type A', 'input:1:6: OBJECT must define one or more fields.'],
    ['a field defined twice', 'type A { a: Int\n a: Int }', 'input:2:2: Field A.a can only be defined once.'],
    [
      'a reserved name',
      'type __A { a: Int }',
      'input:1:6: Name "__A" must not begin with "__", which is reserved by GraphQL introspection.',
    ],
    ['an unknown directive', 'type A { a: Int @nope }', 'input:1:18: Undefined directive nope.'],
    [
      'an interface not implemented',
      'interface Named { name: String }\ntype A implements Named { id: ID }',
      'input:2:6: For A to implement Named it must have a field called name.',
    ],
    ['a union of a scalar', 'union U = String', 'input:1:7: UNION type "String" must be OBJECT.'],
    [
      'an extension of another kind',
      'type A { a: Int }\nextend enum A { X }',
      'input:2:13: Cannot extend type A because the base type is a OBJECT, not ENUM.',
    ],
    ['a root of an undefined type', 'schema { query: Q }', 'input:1:10: Schema root query refers to a type Q that does not exist.'],
  ])('%s is refused', (_note, schema, error) => {
    expect(made(schema)).toThrow(`graphql.parse: Error in gqlparser SchemaDocument to Schema conversion: ${error}`);
    expect(run('graphql.schema_is_valid(input.s)', { s: schema })).toBe(false);
  });
});

describe('limits of ours stop the evaluation; they never answer false or undefined', () => {
  it.each([
    ['more than 100,000 tokens', `{ ${'a '.repeat(100_001)}}`],
    ['nesting past 200', `${'{a'.repeat(201)}${'}'.repeat(201)}`],
  ])('%s', (_note, query) => {
    expect(() => run('graphql.is_valid(input.q, "type Query { a: Int }")', { q: query })).toThrow(EngineLimitError);
    expect(() => run('graphql.parse_query(input.q)', { q: query })).toThrow(EngineLimitError);
  });

  it("validation is charged the square of the fields, which the budget bounds, and graphql-js's own budget stops it", () => {
    const query = (fields: number) => `{ ${'a '.repeat(fields)}}`;
    const isValid = (fields: number, budget?: CostBudget) =>
      run('graphql.is_valid(input.q, "type Query { a: Int }")', { q: query(fields) }, budget);
    expect(isValid(500)).toBe(true);
    expect(() => isValid(500, new CostBudget(200_000))).toThrow('cost limit');
    expect(() => isValid(2_000)).toThrow(EngineLimitError);
  });
});

it('a policy needs graphql-js only when it calls a GraphQL built-in', () => {
  expect(callsGraphql(compileSources([{ file: 'a.rego', source: 'package a\nv := graphql.is_valid("", "")' }]).builtinsCalled)).toBe(true);
  expect(callsGraphql(compileSources([{ file: 'b.rego', source: 'package b\nv := count([])' }]).builtinsCalled)).toBe(false);
});

it("empty parentheses in a query are no arguments and no variables, as gqlparser's `many` reads them", () => {
  expect(run('graphql.parse_query("query Q() { f() @d() }")')).toEqual({
    Operations: [{ Name: 'Q', Operation: 'query', SelectionSet: [{ Alias: 'f', Directives: [{ Location: '', Name: 'd' }], Name: 'f' }] }],
  });
  expect(() => run('graphql.parse_schema("type A { f(): Int }")')).toThrow(
    'expected at least one definition, found ) in GraphQL string at location 1:12',
  );
});

it('a document value nested past the limit stops the evaluation, as text nested too deep does', () => {
  let value: Record<string, unknown> = { Kind: 6, Raw: 'null' };
  for (let level = 0; level < 400; level++) value = { Kind: 8, Children: [{ Name: '', Value: value }] };
  const query = {
    Operations: [{ Operation: 'query', SelectionSet: [{ Alias: 'a', Name: 'a', Arguments: [{ Name: 'x', Value: value }] }] }],
  };
  expect(() => run('graphql.is_valid(input.q, "type Query { a(x: Int): Int }")', { q: query })).toThrow(EngineLimitError);
});
