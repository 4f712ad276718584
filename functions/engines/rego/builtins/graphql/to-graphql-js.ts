// gqlparser's documents (gql-ast.ts) as graphql-js's syntax tree, for graphql-js to validate: a query as it
// is, and a schema as gqlparser merged it (gql-schema.ts), every extension folded into its type.
import type {
  ArgumentNode,
  ConstDirectiveNode,
  ConstValueNode,
  DefinitionNode,
  DirectiveNode,
  DocumentNode,
  FieldDefinitionNode,
  InputValueDefinitionNode,
  NamedTypeNode,
  NameNode,
  OperationTypeNode,
  SelectionSetNode,
  TypeNode,
  ValueNode,
  VariableDefinitionNode,
} from 'graphql';
import {
  type GqlArgument,
  type GqlArgumentDefinition,
  type GqlDefinition,
  type GqlDirective,
  type GqlDirectiveDefinition,
  type GqlQueryDocument,
  type GqlSelection,
  type GqlType,
  type GqlValue,
  type GqlVariableDefinition,
  ValueKind,
} from './gql-ast.js';

// Nodes are written with their kinds as strings (the values of graphql-js's Kind enum), as they are read.
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const name = (value: string) => ({ kind: 'Name', value }) as NameNode;
const named = (value: string) => ({ kind: 'NamedType', name: name(value) }) as NamedTypeNode;

function value(node: GqlValue): ValueNode {
  switch (node.Kind) {
    case ValueKind.Variable:
      return { kind: 'Variable', name: name(node.Raw) } as ValueNode;
    case ValueKind.Int:
      return { kind: 'IntValue', value: node.Raw } as ValueNode;
    case ValueKind.Float:
      return { kind: 'FloatValue', value: node.Raw } as ValueNode;
    case ValueKind.String:
    case ValueKind.Block:
      return { kind: 'StringValue', value: node.Raw, block: node.Kind === ValueKind.Block } as ValueNode;
    case ValueKind.Boolean:
      return { kind: 'BooleanValue', value: node.Raw === 'true' } as ValueNode;
    case ValueKind.Null:
      return { kind: 'NullValue' } as ValueNode;
    case ValueKind.List:
      return { kind: 'ListValue', values: node.Children.map((child) => value(child.Value)) } as ValueNode;
    case ValueKind.Object:
      return {
        kind: 'ObjectValue',
        fields: node.Children.map((child) => ({ kind: 'ObjectField', name: name(child.Name), value: value(child.Value) })),
      } as ValueNode;
    default:
      // Enum values, and kinds gqlparser does not have, which it treats as one.
      return { kind: 'EnumValue', value: node.Raw } as ValueNode;
  }
}

function type(node: GqlType): TypeNode {
  const inner: TypeNode = node.Elem ? ({ kind: 'ListType', type: type(node.Elem) } as TypeNode) : named(node.NamedType);
  return node.NonNull ? ({ kind: 'NonNullType', type: inner } as TypeNode) : inner;
}

const argument = (node: GqlArgument) => ({ kind: 'Argument', name: name(node.Name), value: value(node.Value) }) as ArgumentNode;
const directives = (nodes: GqlDirective[]) =>
  nodes.map((node) => ({ kind: 'Directive', name: name(node.Name), arguments: node.Arguments.map(argument) }) as DirectiveNode);

function selectionSet(nodes: GqlSelection[]): SelectionSetNode {
  const selections = nodes.map((node) => {
    if (node.kind === 'spread') return { kind: 'FragmentSpread', name: name(node.Name), directives: directives(node.Directives) };
    if (node.kind === 'inline')
      return {
        kind: 'InlineFragment',
        ...(node.TypeCondition ? { typeCondition: named(node.TypeCondition) } : {}),
        directives: directives(node.Directives),
        selectionSet: selectionSet(node.SelectionSet),
      };
    return {
      kind: 'Field',
      ...(node.Alias && node.Alias !== node.Name ? { alias: name(node.Alias) } : {}),
      name: name(node.Name),
      arguments: node.Arguments.map(argument),
      directives: directives(node.Directives),
      ...(node.SelectionSet.length > 0 ? { selectionSet: selectionSet(node.SelectionSet) } : {}),
    };
  });
  return { kind: 'SelectionSet', selections } as SelectionSetNode;
}

const variableDefinitions = (nodes: GqlVariableDefinition[]) =>
  nodes.map(
    (node) =>
      ({
        kind: 'VariableDefinition',
        variable: { kind: 'Variable', name: name(node.Variable) },
        type: type(node.Type),
        ...(node.DefaultValue ? { defaultValue: value(node.DefaultValue) } : {}),
        directives: directives(node.Directives),
      }) as VariableDefinitionNode,
  );

/** A query document for graphql-js's validate. */
export function queryDocumentNode(document: GqlQueryDocument): DocumentNode {
  const definitions: DefinitionNode[] = [
    ...document.Operations.map((operation) => ({
      kind: 'OperationDefinition' as const,
      operation: operation.Operation as OperationTypeNode,
      ...(operation.Name ? { name: name(operation.Name) } : {}),
      variableDefinitions: variableDefinitions(operation.VariableDefinitions),
      directives: directives(operation.Directives),
      selectionSet: selectionSet(operation.SelectionSet),
    })),
    ...document.Fragments.map((fragment) => ({
      kind: 'FragmentDefinition' as const,
      name: name(fragment.Name),
      ...(fragment.VariableDefinition.length > 0 ? { variableDefinitions: variableDefinitions(fragment.VariableDefinition) } : {}),
      typeCondition: named(fragment.TypeCondition),
      directives: directives(fragment.Directives),
      selectionSet: selectionSet(fragment.SelectionSet),
    })),
  ] as DefinitionNode[];
  return { kind: 'Document', definitions } as DocumentNode;
}

const description = (text: string) => (text ? { description: { kind: 'StringValue', value: text } } : {});

const inputValue = (node: GqlArgumentDefinition) =>
  ({
    kind: 'InputValueDefinition',
    ...description(node.Description),
    name: name(node.Name),
    type: type(node.Type),
    ...(node.DefaultValue ? { defaultValue: value(node.DefaultValue) as ConstValueNode } : {}),
    directives: directives(node.Directives) as ConstDirectiveNode[],
  }) as InputValueDefinitionNode;

const KIND_NODES: Record<string, string> = {
  SCALAR: 'ScalarTypeDefinition',
  OBJECT: 'ObjectTypeDefinition',
  INTERFACE: 'InterfaceTypeDefinition',
  UNION: 'UnionTypeDefinition',
  ENUM: 'EnumTypeDefinition',
  INPUT_OBJECT: 'InputObjectTypeDefinition',
};

function typeDefinition(node: GqlDefinition): DefinitionNode {
  const built: Mutable<Record<string, unknown>> = {
    kind: KIND_NODES[node.Kind],
    ...description(node.Description),
    name: name(node.Name),
    directives: directives(node.Directives),
  };
  if (node.Kind === 'OBJECT' || node.Kind === 'INTERFACE') {
    built.interfaces = node.Interfaces.map(named);
    built.fields = node.Fields.map(
      (field) => ({ ...inputValue(field), kind: 'FieldDefinition', arguments: field.Arguments.map(inputValue) }) as FieldDefinitionNode,
    );
  }
  if (node.Kind === 'INPUT_OBJECT') built.fields = node.Fields.map(inputValue);
  if (node.Kind === 'UNION') built.types = node.Types.map(named);
  if (node.Kind === 'ENUM')
    built.values = node.EnumValues.map((entry) => ({
      kind: 'EnumValueDefinition',
      ...description(entry.Description),
      name: name(entry.Name),
      directives: directives(entry.Directives),
    }));
  return built as unknown as DefinitionNode;
}

/** A merged schema's types, directives and roots as one SDL document for graphql-js's buildASTSchema. */
export function schemaDocumentNode(
  types: Iterable<GqlDefinition>,
  directiveDefinitions: Iterable<GqlDirectiveDefinition>,
  roots: { Operation: string; Type: string }[],
): DocumentNode {
  const definitions: DefinitionNode[] = [...types].map(typeDefinition);
  for (const directive of directiveDefinitions)
    definitions.push({
      kind: 'DirectiveDefinition',
      ...description(directive.Description),
      name: name(directive.Name),
      arguments: directive.Arguments.map(inputValue),
      repeatable: directive.IsRepeatable,
      locations: directive.Locations.map(name),
    } as DefinitionNode);
  if (roots.length > 0)
    definitions.push({
      kind: 'SchemaDefinition',
      directives: [],
      operationTypes: roots.map((root) => ({
        kind: 'OperationTypeDefinition',
        operation: root.Operation as OperationTypeNode,
        type: named(root.Type),
      })),
    } as DefinitionNode);
  return { kind: 'Document', definitions } as DocumentNode;
}
