// gqlparser's documents as values, both ways. Out: as OPA gives them, null and empty members pruned
// (pruneIrrelevantGraphQLASTNodes) and Go's zero values kept. In: a document a policy hands back, read as Go's
// encoding/json reads it into gqlparser's structures (OPA's objectToQueryDocument): member names matched
// without regard to case, unknown members ignored, a member of the wrong type an error; and, as OPA's
// UnmarshalSelectionSet does, every selection read as a field.
import type {
  GqlArgumentDefinition,
  GqlDefinition,
  GqlDefinitionKind,
  GqlDirective,
  GqlFieldDefinition,
  GqlQueryDocument,
  GqlSchemaDefinition,
  GqlSchemaDocument,
  GqlSelection,
  GqlType,
  GqlValue,
  GqlVariableDefinition,
} from './gql-ast.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** OPA's pruning: no null, no empty list or object (after pruning), no Position. */
function pruned(value: unknown): Json | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(pruned).filter((item): item is Json => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === 'object') {
    const kept: { [key: string]: Json } = {};
    for (const [key, member] of Object.entries(value)) {
      const result = key === 'Position' || key === 'kind' ? undefined : pruned(member);
      if (result !== undefined) kept[key] = result;
    }
    return Object.keys(kept).length > 0 ? kept : undefined;
  }
  return value as Json;
}

// The members gqlparser's structures have that its parser leaves at their zero value.
const valueOut = (value: GqlValue): object => ({
  ...value,
  Children: value.Children.map((child) => ({ Name: child.Name, Value: valueOut(child.Value) })),
  ExpectedTypeHasDefault: false,
});
const directivesOut = (directives: GqlDirective[]) =>
  directives.map((directive) => ({
    Name: directive.Name,
    Arguments: directive.Arguments.map((argument) => ({ Name: argument.Name, Value: valueOut(argument.Value) })),
    Location: '',
  }));
const selectionsOut = (selections: GqlSelection[]): object[] =>
  selections.map((selection) => ({
    ...selection,
    Directives: directivesOut(selection.Directives),
    ...('Arguments' in selection
      ? { Arguments: selection.Arguments.map((argument) => ({ Name: argument.Name, Value: valueOut(argument.Value) })) }
      : {}),
    ...('SelectionSet' in selection ? { SelectionSet: selectionsOut(selection.SelectionSet) } : {}),
  }));
const variablesOut = (variables: GqlVariableDefinition[]) =>
  variables.map((variable) => ({
    ...variable,
    DefaultValue: variable.DefaultValue && valueOut(variable.DefaultValue),
    Directives: directivesOut(variable.Directives),
    Used: false,
  }));
const inputValuesOut = <T extends GqlArgumentDefinition>(definitions: T[]): object[] =>
  definitions.map((definition) => ({
    ...definition,
    DefaultValue: definition.DefaultValue && valueOut(definition.DefaultValue),
    Directives: directivesOut(definition.Directives),
    ...('Arguments' in definition ? { Arguments: inputValuesOut((definition as GqlFieldDefinition).Arguments) } : {}),
  }));
const definitionsOut = (definitions: GqlDefinition[]) =>
  definitions.map((definition) => ({
    ...definition,
    Directives: directivesOut(definition.Directives),
    Fields: inputValuesOut(definition.Fields),
    EnumValues: definition.EnumValues.map((entry) => ({ ...entry, Directives: directivesOut(entry.Directives) })),
  }));
const schemasOut = (schemas: GqlSchemaDefinition[]) =>
  schemas.map((schema) => ({ ...schema, Directives: directivesOut(schema.Directives) }));

/** A query document as OPA's graphql.parse_query gives it. */
export const queryDocumentValue = (document: GqlQueryDocument): Json =>
  pruned({
    Operations: document.Operations.map((operation) => ({
      ...operation,
      VariableDefinitions: variablesOut(operation.VariableDefinitions),
      Directives: directivesOut(operation.Directives),
      SelectionSet: selectionsOut(operation.SelectionSet),
    })),
    Fragments: document.Fragments.map((fragment) => ({
      ...fragment,
      VariableDefinition: variablesOut(fragment.VariableDefinition),
      Directives: directivesOut(fragment.Directives),
      SelectionSet: selectionsOut(fragment.SelectionSet),
    })),
  }) ?? {};

/** A schema document as OPA's graphql.parse_schema gives it. */
export const schemaDocumentValue = (document: GqlSchemaDocument): Json =>
  pruned({
    Schema: schemasOut(document.Schema),
    SchemaExtension: schemasOut(document.SchemaExtension),
    Directives: document.Directives.map((directive) => ({ ...directive, Arguments: inputValuesOut(directive.Arguments) })),
    Definitions: definitionsOut(document.Definitions),
    Extensions: definitionsOut(document.Extensions),
  }) ?? {};

/** A document a policy handed in that Go's encoding/json would not read into gqlparser's structures. */
export class UnreadableDocument extends Error {}

const jsonType = (value: Json): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;

/** Reads members of one Go structure, named `Struct` in errors as Go names them. */
class StructReader {
  constructor(
    private readonly json: { [key: string]: Json },
    private readonly struct: string,
    /** OPA's own decoders (Field, OperationDefinition…) match member names exactly; Go's, without case. */
    private readonly exact = false,
  ) {}

  member(name: string): Json | undefined {
    if (name in this.json || this.exact) return this.json[name] ?? undefined;
    const lower = name.toLowerCase();
    const key = Object.keys(this.json).find((candidate) => candidate.toLowerCase() === lower);
    return key === undefined ? undefined : (this.json[key] ?? undefined);
  }

  private refuse(name: string, found: Json, goType: string): never {
    throw new UnreadableDocument(`json: cannot unmarshal ${jsonType(found)} into Go struct field ${this.struct}.${name} of type ${goType}`);
  }

  string(name: string): string {
    const found = this.member(name);
    if (found === undefined || found === null) return '';
    return typeof found === 'string' ? found : this.refuse(name, found, 'string');
  }

  boolean(name: string): boolean {
    const found = this.member(name);
    if (found === undefined || found === null) return false;
    return typeof found === 'boolean' ? found : this.refuse(name, found, 'bool');
  }

  integer(name: string): number {
    const found = this.member(name);
    if (found === undefined || found === null) return 0;
    return typeof found === 'number' && Number.isInteger(found) ? found : this.refuse(name, found, 'int');
  }

  list<T>(name: string, goType: string, read: (item: Json) => T): T[] {
    const found = this.member(name);
    if (found === undefined || found === null) return [];
    return Array.isArray(found) ? found.map(read) : this.refuse(name, found, `[]${goType}`);
  }

  object<T>(name: string, goType: string, read: (json: { [key: string]: Json }) => T): T | undefined {
    const found = this.member(name);
    if (found === undefined || found === null) return undefined;
    return typeof found === 'object' && !Array.isArray(found) ? read(found) : this.refuse(name, found, goType);
  }
}

function structOf(json: Json, struct: string, exact = false): StructReader {
  if (json === null) return new StructReader({}, struct, exact);
  if (typeof json !== 'object' || Array.isArray(json))
    throw new UnreadableDocument(`json: cannot unmarshal ${jsonType(json)} into Go value of type ast.${struct}`);
  return new StructReader(json, struct, exact);
}

function valueIn(json: Json): GqlValue {
  const read = structOf(json, 'Value');
  return {
    Raw: read.string('Raw'),
    Children: read.list('Children', 'ast.ChildValue', (child) => {
      const entry = structOf(child, 'ChildValue');
      return { Name: entry.string('Name'), Value: entry.object('Value', '*ast.Value', valueIn) ?? valueIn(null) };
    }),
    Kind: read.integer('Kind'),
  };
}

function typeIn(json: Json): GqlType {
  const read = structOf(json, 'Type');
  const Elem = read.object('Elem', '*ast.Type', typeIn);
  return { NamedType: read.string('NamedType'), ...(Elem ? { Elem } : {}), NonNull: read.boolean('NonNull') };
}

const argumentsIn = (read: StructReader) =>
  read.list('Arguments', '*ast.Argument', (json) => {
    const argument = structOf(json, 'Argument');
    return { Name: argument.string('Name'), Value: argument.object('Value', '*ast.Value', valueIn) ?? valueIn(null) };
  });
const directivesIn = (read: StructReader): GqlDirective[] =>
  read.list('Directives', '*ast.Directive', (json) => {
    const directive = structOf(json, 'Directive');
    return { Name: directive.string('Name'), Arguments: argumentsIn(directive) };
  });

function selectionsIn(read: StructReader): GqlSelection[] {
  const found = read.member('SelectionSet');
  if (!Array.isArray(found)) return [];
  return found
    .filter((json) => json !== null && typeof json === 'object' && !Array.isArray(json))
    .map((json) => {
      const field = structOf(json, 'Field', true);
      return {
        kind: 'field',
        Alias: field.string('Alias'),
        Name: field.string('Name'),
        Arguments: argumentsIn(field),
        Directives: directivesIn(field),
        SelectionSet: selectionsIn(field),
      };
    });
}

const variablesIn = (read: StructReader, member: string): GqlVariableDefinition[] =>
  read.list(member, '*ast.VariableDefinition', (json) => {
    const variable = structOf(json, 'VariableDefinition');
    const DefaultValue = variable.object('DefaultValue', '*ast.Value', valueIn);
    return {
      Variable: variable.string('Variable'),
      Type: variable.object('Type', '*ast.Type', typeIn) ?? typeIn(null),
      ...(DefaultValue ? { DefaultValue } : {}),
      Directives: directivesIn(variable),
    };
  });

/** A query document a policy handed in, as OPA reads one. */
export function queryDocumentIn(json: Json): GqlQueryDocument {
  const read = structOf(json, 'QueryDocument');
  return {
    Operations: read.list('Operations', '*ast.OperationDefinition', (item) => {
      const operation = structOf(item, 'OperationDefinition', true);
      return {
        Operation: operation.string('Operation'),
        Name: operation.string('Name'),
        VariableDefinitions: variablesIn(operation, 'VariableDefinitions'),
        Directives: directivesIn(operation),
        SelectionSet: selectionsIn(operation),
      };
    }),
    Fragments: read.list('Fragments', '*ast.FragmentDefinition', (item) => {
      const fragment = structOf(item, 'FragmentDefinition', true);
      return {
        Name: fragment.string('Name'),
        VariableDefinition: variablesIn(fragment, 'VariableDefinition'),
        TypeCondition: fragment.string('TypeCondition'),
        Directives: directivesIn(fragment),
        SelectionSet: selectionsIn(fragment),
      };
    }),
  };
}

function argumentDefinitionIn(json: Json, struct = 'ArgumentDefinition'): GqlArgumentDefinition {
  const read = structOf(json, struct);
  const DefaultValue = read.object('DefaultValue', '*ast.Value', valueIn);
  return {
    Description: read.string('Description'),
    Name: read.string('Name'),
    ...(DefaultValue ? { DefaultValue } : {}),
    Type: read.object('Type', '*ast.Type', typeIn) ?? typeIn(null),
    Directives: directivesIn(read),
  };
}

function definitionIn(json: Json): GqlDefinition {
  const read = structOf(json, 'Definition');
  const strings = (member: string) => read.list(member, 'string', (item) => (typeof item === 'string' ? item : ''));
  return {
    Kind: read.string('Kind') as GqlDefinitionKind,
    Description: read.string('Description'),
    Name: read.string('Name'),
    Directives: directivesIn(read),
    Interfaces: strings('Interfaces'),
    Fields: read.list('Fields', '*ast.FieldDefinition', (item) => ({
      ...argumentDefinitionIn(item, 'FieldDefinition'),
      Arguments: structOf(item, 'FieldDefinition').list('Arguments', '*ast.ArgumentDefinition', (entry) => argumentDefinitionIn(entry)),
    })),
    Types: strings('Types'),
    EnumValues: read.list('EnumValues', '*ast.EnumValueDefinition', (item) => {
      const entry = structOf(item, 'EnumValueDefinition');
      return { Description: entry.string('Description'), Name: entry.string('Name'), Directives: directivesIn(entry) };
    }),
    BuiltIn: read.boolean('BuiltIn'),
  };
}

function schemaDefinitionIn(json: Json): GqlSchemaDefinition {
  const read = structOf(json, 'SchemaDefinition');
  return {
    Description: read.string('Description'),
    Directives: directivesIn(read),
    OperationTypes: read.list('OperationTypes', '*ast.OperationTypeDefinition', (item) => {
      const entry = structOf(item, 'OperationTypeDefinition');
      return { Operation: entry.string('Operation'), Type: entry.string('Type') };
    }),
  };
}

/** A schema document a policy handed in, as OPA reads one. */
export function schemaDocumentIn(json: Json): GqlSchemaDocument {
  const read = structOf(json, 'SchemaDocument');
  return {
    Schema: read.list('Schema', '*ast.SchemaDefinition', schemaDefinitionIn),
    SchemaExtension: read.list('SchemaExtension', '*ast.SchemaDefinition', schemaDefinitionIn),
    Directives: read.list('Directives', '*ast.DirectiveDefinition', (item) => {
      const entry = structOf(item, 'DirectiveDefinition');
      return {
        Description: entry.string('Description'),
        Name: entry.string('Name'),
        Arguments: entry.list('Arguments', '*ast.ArgumentDefinition', (argument) => argumentDefinitionIn(argument)),
        Locations: entry.list('Locations', 'ast.DirectiveLocation', (location) => (typeof location === 'string' ? location : '')),
        IsRepeatable: entry.boolean('IsRepeatable'),
      };
    }),
    Definitions: read.list('Definitions', '*ast.Definition', definitionIn),
    Extensions: read.list('Extensions', '*ast.Definition', definitionIn),
  };
}
