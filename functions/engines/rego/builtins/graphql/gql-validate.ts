// A query validated against a schema as OPA's gqlparser validates it: the schema made by gqlparser's rules
// (gql-schema.ts), the query checked by graphql-js's validation rules (gqlparser's are their port) after
// gqlparser's own KnownRootType, and the first error worded as OPA words it.
import { buildASTSchema, type GraphQLSchema, type OperationDefinitionNode, validate } from 'graphql';
import { EngineLimitError } from '../../../runtime/cost-budget.js';
import { BuiltinError } from '../../errors.js';
import type { GqlQueryDocument, GqlSchemaDocument, GqlSelection } from './gql-ast.js';
import { parsedNode } from './gql-parse.js';
import { InvalidSchema, mergeSchema, ownDirectives, ownTypes } from './gql-schema.js';
import { queryDocumentNode, schemaDocumentNode } from './to-graphql-js.js';

// Schemas built for validation, by their document (a policy validates many queries against one schema).
const MAX_CACHED_SCHEMAS = 16;
const builtSchemas = new Map<string, GraphQLSchema>();

/** A schema document made a schema as gqlparser makes one (a BuiltinError if it does not), for graphql-js. */
export function schemaOf(document: GqlSchemaDocument): GraphQLSchema {
  const key = JSON.stringify(document);
  const cached = builtSchemas.get(key);
  if (cached) return cached;
  let merged: ReturnType<typeof mergeSchema>;
  try {
    merged = mergeSchema(document);
  } catch (error) {
    if (error instanceof InvalidSchema) throw new BuiltinError(error.message);
    throw error;
  }
  // gqlparser's checks have passed: graphql-js's own schema checks are not OPA's and must not run.
  const schema = buildASTSchema(schemaDocumentNode(ownTypes(merged), ownDirectives(merged), merged.roots), {
    assumeValid: true,
    assumeValidSDL: true,
  });
  if (builtSchemas.size >= MAX_CACHED_SCHEMAS) builtSchemas.clear();
  builtSchemas.set(key, schema);
  return schema;
}

/** An error as OPA words one of gqlparser's: where, when the query came as text; else as it has no position. */
function worded(message: string, where: { line: number; column: number } | undefined): BuiltinError {
  const detail = message.replace(/\.$/, '');
  return new BuiltinError(
    where ? `${detail} in GraphQL string at location ${where.line}:${where.column}` : `GraphQL parse error: input: ${detail}`,
  );
}

/** gqlparser's KnownRootType, which graphql-js 16 does not have: an operation needs its root type. */
function unknownRootType(schema: GraphQLSchema, query: GqlQueryDocument): BuiltinError | undefined {
  const nodes = parsedNode(query)?.definitions.filter((node): node is OperationDefinitionNode => node.kind === 'OperationDefinition');
  for (const [index, operation] of query.Operations.entries()) {
    const root =
      operation.Operation === 'mutation'
        ? schema.getMutationType()
        : operation.Operation === 'subscription'
          ? schema.getSubscriptionType()
          : schema.getQueryType();
    if (root) continue;
    const start = nodes?.[index]?.loc?.startToken;
    return worded(`Schema does not support operation type "${operation.Operation}"`, start);
  }
  return undefined;
}

function fieldCount(selections: GqlSelection[]): number {
  return selections.reduce((count, selection) => count + 1 + ('SelectionSet' in selection ? fieldCount(selection.SelectionSet) : 0), 0);
}

/** The query's first validation error against the schema, worded as OPA words it; nothing when it is valid. */
export function validationError(schema: GraphQLSchema, query: GqlQueryDocument, charge: (units: number) => void): BuiltinError | undefined {
  // Comparing fields that share a response name (OverlappingFieldsCanBeMerged) takes up to their count squared.
  const fields = [...query.Operations, ...query.Fragments].reduce((count, entry) => count + fieldCount(entry.SelectionSet), 0);
  charge(fields * fields);
  const root = unknownRootType(schema, query);
  if (root) return root;
  const [error] = validate(schema, parsedNode(query) ?? queryDocumentNode(query), undefined, { maxErrors: 1 });
  // graphql-js's own budget for comparing fields, which gqlparser does not have: a limit, not an answer.
  if (error?.message === 'Validation aborted.' && !error.locations)
    throw new EngineLimitError('GraphQL validation: more field comparisons than graphql-js allows');
  return error && worded(error.message, error.locations?.[0]);
}
