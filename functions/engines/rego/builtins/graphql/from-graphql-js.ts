// graphql-js's syntax tree as gqlparser's (gql-ast.ts): what OPA's graphql.parse_query and parse_schema give,
// from a document graphql-js parsed.
import type {
  ArgumentNode,
  ConstDirectiveNode,
  DefinitionNode,
  DirectiveNode,
  DocumentNode,
  FieldDefinitionNode,
  InputValueDefinitionNode,
  SelectionNode,
  TypeNode,
  ValueNode,
  VariableDefinitionNode,
} from 'graphql';
import type { ASTNode } from 'graphql';
import {
  type GqlArgument,
  type GqlArgumentDefinition,
  type GqlDefinition,
  type GqlDefinitionKind,
  type GqlDirective,
  type GqlFieldDefinition,
  type GqlQueryDocument,
  type GqlSchemaDefinition,
  type GqlSchemaDocument,
  type GqlSelection,
  type GqlType,
  type GqlValue,
  type GqlVariableDefinition,
  ValueKind,
} from './gql-ast.js';

/** A definition that does not belong in the document being read (a type in a query, an operation in a schema). */
export class MisplacedDefinition extends Error {
  constructor(readonly node: DefinitionNode) {
    super('misplaced definition');
  }
}

/** Where a node starts, as gqlparser's errors name it. */
const at = (node: ASTNode | undefined) =>
  node?.loc ? { Position: { line: node.loc.startToken.line, column: node.loc.startToken.column } } : {};

function value(node: ValueNode): GqlValue {
  const leaf = (Kind: ValueKind, Raw: string): GqlValue => ({ Raw, Children: [], Kind });
  switch (node.kind) {
    case 'Variable':
      return leaf(ValueKind.Variable, node.name.value);
    case 'IntValue':
      return leaf(ValueKind.Int, node.value);
    case 'FloatValue':
      return leaf(ValueKind.Float, node.value);
    case 'StringValue':
      return leaf(node.block ? ValueKind.Block : ValueKind.String, node.value);
    case 'BooleanValue':
      return leaf(ValueKind.Boolean, String(node.value));
    case 'NullValue':
      return leaf(ValueKind.Null, 'null');
    case 'EnumValue':
      return leaf(ValueKind.Enum, node.value);
    case 'ListValue':
      return { Raw: '', Children: node.values.map((item) => ({ Name: '', Value: value(item) })), Kind: ValueKind.List };
    case 'ObjectValue':
      return {
        Raw: '',
        Children: node.fields.map((field) => ({ Name: field.name.value, Value: value(field.value) })),
        Kind: ValueKind.Object,
      };
    default:
      throw new Error(`graphql-js gave a value of an unknown kind: ${(node as ValueNode).kind}`);
  }
}

function type(node: TypeNode, nonNull = false): GqlType {
  if (node.kind === 'NonNullType') return type(node.type, true);
  if (node.kind === 'ListType') return { ...at(node), NamedType: '', Elem: type(node.type), NonNull: nonNull };
  return { ...at(node), NamedType: node.name.value, NonNull: nonNull };
}

const argument = (node: ArgumentNode): GqlArgument => ({ Name: node.name.value, Value: value(node.value) });

const directives = (nodes: readonly (DirectiveNode | ConstDirectiveNode)[] | undefined): GqlDirective[] =>
  (nodes ?? []).map((node) => ({ ...at(node.name), Name: node.name.value, Arguments: (node.arguments ?? []).map(argument) }));

function selection(node: SelectionNode): GqlSelection {
  switch (node.kind) {
    case 'Field':
      return {
        kind: 'field',
        Alias: node.alias?.value ?? node.name.value,
        Name: node.name.value,
        Arguments: (node.arguments ?? []).map(argument),
        Directives: directives(node.directives),
        SelectionSet: (node.selectionSet?.selections ?? []).map(selection),
      };
    case 'FragmentSpread':
      return { kind: 'spread', Name: node.name.value, Directives: directives(node.directives) };
    case 'InlineFragment':
      return {
        kind: 'inline',
        TypeCondition: node.typeCondition?.name.value ?? '',
        Directives: directives(node.directives),
        SelectionSet: node.selectionSet.selections.map(selection),
      };
    default:
      throw new Error(`graphql-js gave a selection of an unknown kind: ${(node as SelectionNode).kind}`);
  }
}

const variableDefinitions = (nodes: readonly VariableDefinitionNode[] | undefined): GqlVariableDefinition[] =>
  (nodes ?? []).map((node) => ({
    Variable: node.variable.name.value,
    Type: type(node.type),
    ...(node.defaultValue ? { DefaultValue: value(node.defaultValue) } : {}),
    Directives: directives(node.directives),
  }));

/** The executable definitions of a document, as gqlparser's ParseQuery reads them. */
export function queryDocument(document: DocumentNode): GqlQueryDocument {
  const read: GqlQueryDocument = { Operations: [], Fragments: [] };
  for (const node of document.definitions) {
    if (node.kind === 'OperationDefinition') {
      read.Operations.push({
        Operation: node.operation,
        Name: node.name?.value ?? '',
        VariableDefinitions: variableDefinitions(node.variableDefinitions),
        Directives: directives(node.directives),
        SelectionSet: node.selectionSet.selections.map(selection),
      });
    } else if (node.kind === 'FragmentDefinition') {
      read.Fragments.push({
        Name: node.name.value,
        VariableDefinition: variableDefinitions(node.variableDefinitions),
        TypeCondition: node.typeCondition.name.value,
        Directives: directives(node.directives),
        SelectionSet: node.selectionSet.selections.map(selection),
      });
    } else {
      throw new MisplacedDefinition(node);
    }
  }
  return read;
}

const argumentDefinition = (node: InputValueDefinitionNode): GqlArgumentDefinition => ({
  ...at(node.name),
  Description: node.description?.value ?? '',
  Name: node.name.value,
  ...(node.defaultValue ? { DefaultValue: value(node.defaultValue) } : {}),
  Type: type(node.type),
  Directives: directives(node.directives),
});

const fieldDefinition = (node: FieldDefinitionNode | InputValueDefinitionNode): GqlFieldDefinition => ({
  ...argumentDefinition(node as InputValueDefinitionNode),
  Arguments: node.kind === 'FieldDefinition' ? (node.arguments ?? []).map(argumentDefinition) : [],
});

const KINDS: Record<string, GqlDefinitionKind> = {
  Scalar: 'SCALAR',
  Object: 'OBJECT',
  Interface: 'INTERFACE',
  Union: 'UNION',
  Enum: 'ENUM',
  InputObject: 'INPUT_OBJECT',
};

type TypeNodeOf<K> = Extract<DefinitionNode, { kind: K }>;

function definition(node: TypeNodeOf<`${string}Type${'Definition' | 'Extension'}`>): GqlDefinition {
  const kind = KINDS[node.kind.replace(/Type(Definition|Extension)$/, '')]!;
  const fields = 'fields' in node ? (node.fields ?? []) : [];
  return {
    ...at(node.name),
    Kind: kind,
    Description: 'description' in node ? (node.description?.value ?? '') : '',
    Name: node.name.value,
    Directives: directives(node.directives),
    Interfaces: 'interfaces' in node ? (node.interfaces ?? []).map((named) => named.name.value) : [],
    Fields: fields.map(fieldDefinition),
    Types: 'types' in node ? (node.types ?? []).map((named) => named.name.value) : [],
    EnumValues:
      'values' in node
        ? (node.values ?? []).map((entry) => ({
            Description: entry.description?.value ?? '',
            Name: entry.name.value,
            Directives: directives(entry.directives),
          }))
        : [],
    BuiltIn: false,
  };
}

const schemaDefinition = (node: TypeNodeOf<'SchemaDefinition' | 'SchemaExtension'>): GqlSchemaDefinition => ({
  Description: node.kind === 'SchemaDefinition' ? (node.description?.value ?? '') : '',
  Directives: directives(node.directives),
  OperationTypes: (node.operationTypes ?? []).map((entry) => ({ ...at(entry), Operation: entry.operation, Type: entry.type.name.value })),
  ...at(node),
});

/** The type system definitions of a document, as gqlparser's ParseSchema reads them. */
export function schemaDocument(document: DocumentNode): GqlSchemaDocument {
  const read: GqlSchemaDocument = { Schema: [], SchemaExtension: [], Directives: [], Definitions: [], Extensions: [] };
  for (const node of document.definitions) {
    if (node.kind === 'SchemaDefinition') read.Schema.push(schemaDefinition(node));
    else if (node.kind === 'SchemaExtension') read.SchemaExtension.push(schemaDefinition(node));
    else if (node.kind === 'DirectiveDefinition')
      read.Directives.push({
        ...at(node.name),
        Description: node.description?.value ?? '',
        Name: node.name.value,
        Arguments: (node.arguments ?? []).map(argumentDefinition),
        Locations: node.locations.map((location) => location.value),
        IsRepeatable: node.repeatable,
      });
    else if (node.kind.endsWith('TypeDefinition')) read.Definitions.push(definition(node as TypeNodeOf<`${string}TypeDefinition`>));
    else if (node.kind.endsWith('TypeExtension')) read.Extensions.push(definition(node as TypeNodeOf<`${string}TypeExtension`>));
    else throw new MisplacedDefinition(node);
  }
  return read;
}
