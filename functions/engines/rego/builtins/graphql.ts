// OPA's GraphQL built-ins (topdown/graphql.go): documents parsed as its gqlparser reads them and given as its
// values (graphql/gql-values.ts), schemas made as gqlparser makes them (graphql/gql-schema.ts), and queries
// validated by graphql-js against them, all in graphql/, loaded only for a policy that calls one (library.ts). A query or schema is GraphQL text or a document a built-in gave.
// parse_and_verify, is_valid and schema_is_valid answer false where parse and the others raise an error.
import { nestedDeeperThan } from '../../../admission/decide/object-depth.js';
import { EngineLimitError } from '../../runtime/cost-budget.js';
import { BuiltinError, operandError } from '../errors.js';
import { fromJson, isObject, typeName, type Value } from '../values.js';
import { type Builtin, type BuiltinContext, builtin } from './builtin.js';
import { toJsonData } from './encoding.js';
import type { GqlQueryDocument, GqlSchemaDocument } from './graphql/gql-ast.js';
import { graphqlLibrary } from './graphql/library.js';
import { string } from './operands.js';

type Json = Parameters<ReturnType<typeof graphqlLibrary>['queryDocumentIn']>[0];

// A document handed in as a value is read recursively: as deep as text nested to the parser's limit, and no more.
const MAX_VALUE_DEPTH = 1000;

/**
 * A query or schema operand: text to parse, or a document a built-in gave; else OPA's operand type error,
 * which numbers graphql.parse's operands from 0.
 */
function documentOf<T>(value: Value, position: number, parse: (text: string) => T, readIn: (json: Json) => T): T {
  if (typeof value === 'string') return parse(value);
  if (!isObject(value)) throw operandError(position, 'one of {string, object}', typeName(value));
  const json = toJsonData(value) as Json;
  if (nestedDeeperThan(json, MAX_VALUE_DEPTH))
    throw new EngineLimitError(`GraphQL document value: nested more than ${MAX_VALUE_DEPTH} deep`);
  try {
    return readIn(json);
  } catch (error) {
    if (error instanceof graphqlLibrary().UnreadableDocument) throw new BuiltinError(error.message);
    throw error;
  }
}

const charger = (context: BuiltinContext) => (units: number) => context.charge(units);
const queryOf = (value: Value, context: BuiltinContext): GqlQueryDocument =>
  documentOf(value, 0, (text) => graphqlLibrary().parseQuery(text, charger(context)), graphqlLibrary().queryDocumentIn);
const schemaDocumentOf = (value: Value, context: BuiltinContext): GqlSchemaDocument =>
  documentOf(value, 1, (text) => graphqlLibrary().parseSchema(text, charger(context)), graphqlLibrary().schemaDocumentIn);

/** Query and schema parsed and the query validated: both documents, or the first error (a BuiltinError). */
function verified(queryValue: Value, schemaValue: Value, context: BuiltinContext): [Value, Value] {
  const query = queryOf(queryValue, context);
  const schemaDocument = schemaDocumentOf(schemaValue, context);
  const { schemaOf, validationError, queryDocumentValue, schemaDocumentValue } = graphqlLibrary();
  const invalid = validationError(schemaOf(schemaDocument), query, charger(context));
  if (invalid) throw invalid;
  return [fromJson(queryDocumentValue(query)), fromJson(schemaDocumentValue(schemaDocument))];
}

/** Whether the work succeeds, where OPA answers false on any error (its own limits and ours still stop the evaluation). */
function succeeds(work: () => unknown): boolean {
  try {
    work();
    return true;
  } catch (error) {
    if (error instanceof BuiltinError) return false;
    throw error;
  }
}

export const GRAPHQL: Builtin[] = [
  builtin('graphql.parse_query', 1, (args, context) => {
    const { queryDocumentValue, parseQuery } = graphqlLibrary();
    return fromJson(queryDocumentValue(parseQuery(string(args, 0), charger(context))));
  }),
  builtin('graphql.parse_schema', 1, (args, context) => {
    const { schemaDocumentValue, parseSchema } = graphqlLibrary();
    return fromJson(schemaDocumentValue(parseSchema(string(args, 0), charger(context))));
  }),
  builtin('graphql.parse', 2, (args, context) => verified(args[0]!, args[1]!, context)),
  builtin('graphql.parse_and_verify', 2, (args, context) => {
    let documents: Value[] = [{}, {}];
    const valid = succeeds(() => (documents = verified(args[0]!, args[1]!, context)));
    return [valid, ...(valid ? documents : [{}, {}])];
  }),
  builtin('graphql.is_valid', 2, (args, context) => succeeds(() => verified(args[0]!, args[1]!, context))),
  builtin('graphql.schema_is_valid', 1, (args, context) => succeeds(() => graphqlLibrary().schemaOf(schemaDocumentOf(args[0]!, context)))),
];
