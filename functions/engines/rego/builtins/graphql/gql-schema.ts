// A schema document made a schema as OPA makes it (convertSchema): gqlparser's prelude merged in, then
// gqlparser's ValidateSchemaDocument, whose rules are its own and looser than graphql-js's (an extension of a
// type nobody defined defines it; no Query type is required). The schema that passes is handed to graphql-js
// as one SDL document, every extension folded in, to validate queries against.
import type {
  GqlArgumentDefinition,
  GqlDefinition,
  GqlDefinitionKind,
  GqlDirective,
  GqlDirectiveDefinition,
  GqlPosition,
  GqlSchemaDocument,
  GqlType,
} from './gql-ast.js';
import { typeName, typeText } from './gql-ast.js';

/** A schema gqlparser would refuse, worded as OPA words it. */
export class InvalidSchema extends Error {
  constructor(detail: string, position?: GqlPosition) {
    const where = position ? `input:${position.line}:${position.column}` : 'input';
    super(`Error in gqlparser SchemaDocument to Schema conversion: ${where}: ${detail}`);
  }
}

export interface MergedSchema {
  types: Map<string, GqlDefinition>;
  directives: Map<string, GqlDirectiveDefinition>;
  roots: { Operation: string; Type: string }[];
}

const preludeType = (Name: string, Kind: GqlDefinitionKind): GqlDefinition => ({
  Kind,
  Description: '',
  Name,
  Directives: [],
  Interfaces: [],
  Fields: [],
  Types: [],
  EnumValues: [],
  BuiltIn: true,
});
const preludeArgument = (Name: string, NamedType: string, NonNull: boolean): GqlArgumentDefinition => ({
  Description: '',
  Name,
  Type: { NamedType, NonNull },
  Directives: [],
});
const preludeDirective = (Name: string, Arguments: GqlArgumentDefinition[], Locations: string[]): GqlDirectiveDefinition => ({
  Description: '',
  Name,
  Arguments,
  Locations,
  IsRepeatable: false,
});

// gqlparser's prelude.graphql: its scalars, directives and introspection types (graphql-js has its own).
const PRELUDE_TYPES: [string, GqlDefinitionKind][] = [
  ...['Int', 'Float', 'String', 'Boolean', 'ID'].map((name): [string, GqlDefinitionKind] => [name, 'SCALAR']),
  ...['__Schema', '__Type', '__Field', '__InputValue', '__EnumValue', '__Directive'].map((name): [string, GqlDefinitionKind] => [
    name,
    'OBJECT',
  ]),
  ['__TypeKind', 'ENUM'],
  ['__DirectiveLocation', 'ENUM'],
];
const FIELD_OR_FRAGMENT = ['FIELD', 'FRAGMENT_SPREAD', 'INLINE_FRAGMENT'];
const preludeDirectives = (): GqlDirectiveDefinition[] => [
  preludeDirective('include', [preludeArgument('if', 'Boolean', true)], FIELD_OR_FRAGMENT),
  preludeDirective('skip', [preludeArgument('if', 'Boolean', true)], FIELD_OR_FRAGMENT),
  preludeDirective(
    'deprecated',
    [preludeArgument('reason', 'String', false)],
    ['FIELD_DEFINITION', 'ARGUMENT_DEFINITION', 'INPUT_FIELD_DEFINITION', 'ENUM_VALUE'],
  ),
  preludeDirective('specifiedBy', [preludeArgument('url', 'String', true)], ['SCALAR']),
];
const PRELUDE_DIRECTIVES = new Set(preludeDirectives().map((directive) => directive.Name));

const isKind = (definition: GqlDefinition | undefined, ...kinds: GqlDefinitionKind[]) =>
  definition !== undefined && kinds.includes(definition.Kind);

function checkName(name: string, position: GqlPosition | undefined): void {
  if (name.startsWith('__'))
    throw new InvalidSchema(`Name "${name}" must not begin with "__", which is reserved by GraphQL introspection.`, position);
}

function checkDirectives(schema: MergedSchema, directives: GqlDirective[], location: string, current?: GqlDirectiveDefinition): void {
  for (const directive of directives) {
    checkName(directive.Name, directive.Position);
    if (current && directive.Name === current.Name)
      throw new InvalidSchema(`Directive ${current.Name} cannot refer to itself.`, directive.Position);
    const definition = schema.directives.get(directive.Name);
    if (!definition) throw new InvalidSchema(`Undefined directive ${directive.Name}.`, directive.Position);
    if (!definition.Locations.includes(location))
      throw new InvalidSchema(`Directive ${directive.Name} is not applicable on ${location}.`, directive.Position);
  }
}

function checkTypeReference(schema: MergedSchema, type: GqlType): void {
  if (!schema.types.has(typeName(type))) throw new InvalidSchema(`Undefined type ${typeName(type)}.`, type.Position);
}

function checkArguments(schema: MergedSchema, args: GqlArgumentDefinition[], current?: GqlDirectiveDefinition): void {
  for (const argument of args) {
    checkName(argument.Name, argument.Position);
    checkTypeReference(schema, argument.Type);
    const definition = schema.types.get(typeName(argument.Type))!;
    if (!isKind(definition, 'SCALAR', 'ENUM', 'INPUT_OBJECT'))
      throw new InvalidSchema(
        `cannot use ${typeText(argument.Type)} as argument ${argument.Name} because ${definition.Kind} is not a valid input type`,
        argument.Position,
      );
    checkDirectives(schema, argument.Directives, 'ARGUMENT_DEFINITION', current);
  }
}

/** gqlparser's isCovariant: an implementing field's type against its interface's. */
function isCovariant(schema: MergedSchema, possible: Map<string, Set<string>>, required: GqlType, actual: GqlType): boolean {
  if (required.NonNull && !actual.NonNull) return false;
  if (required.NamedType !== '')
    return required.NamedType === actual.NamedType || (possible.get(required.NamedType)?.has(actual.NamedType) ?? false);
  if (!required.Elem || !actual.Elem) return required.Elem === undefined;
  return isCovariant(schema, possible, required.Elem, actual.Elem);
}

const sameType = (a: GqlType, b: GqlType): boolean =>
  a.NamedType === b.NamedType && a.NonNull === b.NonNull && (a.Elem && b.Elem ? sameType(a.Elem, b.Elem) : a.Elem === b.Elem);

function checkImplements(schema: MergedSchema, possible: Map<string, Set<string>>, definition: GqlDefinition, name: string): void {
  const implemented = schema.types.get(name);
  if (!implemented) throw new InvalidSchema(`Undefined type "${name}".`, definition.Position);
  if (implemented.Kind !== 'INTERFACE')
    throw new InvalidSchema(`"${name}" is a non interface type ${implemented.Kind}.`, definition.Position);
  const prefix = `For ${definition.Name} to implement ${name}`;
  for (const required of implemented.Fields) {
    const found = definition.Fields.find((field) => field.Name === required.Name);
    if (!found) throw new InvalidSchema(`${prefix} it must have a field called ${required.Name}.`, definition.Position);
    if (!isCovariant(schema, possible, required.Type, found.Type))
      throw new InvalidSchema(`${prefix} the field ${required.Name} must have type ${typeText(required.Type)}.`, found.Position);
    for (const argument of required.Arguments) {
      const given = found.Arguments.find((entry) => entry.Name === argument.Name);
      if (!given)
        throw new InvalidSchema(
          `${prefix} the field ${required.Name} must have the same arguments but it is missing ${argument.Name}.`,
          found.Position,
        );
      if (!sameType(argument.Type, given.Type))
        throw new InvalidSchema(
          `${prefix} the field ${required.Name} must have the same arguments but ${argument.Name} has the wrong type.`,
          given.Position,
        );
    }
    for (const extra of found.Arguments)
      if (!required.Arguments.some((entry) => entry.Name === extra.Name) && extra.Type.NonNull && !extra.DefaultValue)
        throw new InvalidSchema(
          `${prefix} any additional arguments on ${found.Name} must be optional or have a default value but ${extra.Name} is required.`,
          extra.Position,
        );
  }
}

const FIELD_KINDS: Partial<Record<GqlDefinitionKind, { allowed: GqlDefinitionKind[]; none: string }>> = {
  OBJECT: { allowed: ['SCALAR', 'OBJECT', 'INTERFACE', 'UNION', 'ENUM'], none: 'must define one or more fields.' },
  INTERFACE: { allowed: ['SCALAR', 'OBJECT', 'INTERFACE', 'UNION', 'ENUM'], none: 'must define one or more fields.' },
  INPUT_OBJECT: { allowed: ['SCALAR', 'ENUM', 'INPUT_OBJECT'], none: 'must define one or more input fields.' },
};

function checkDefinition(schema: MergedSchema, possible: Map<string, Set<string>>, definition: GqlDefinition): void {
  for (const field of definition.Fields) {
    checkName(field.Name, field.Position);
    checkTypeReference(schema, field.Type);
    checkArguments(schema, field.Arguments);
    checkDirectives(schema, field.Directives, 'FIELD_DEFINITION');
  }
  for (const member of definition.Types) {
    const found = schema.types.get(member);
    if (!found) throw new InvalidSchema(`Undefined type "${member}".`, definition.Position);
    if (found.Kind !== 'OBJECT') throw new InvalidSchema(`${definition.Kind} type "${member}" must be OBJECT.`, definition.Position);
  }
  for (const name of definition.Interfaces) checkImplements(schema, possible, definition, name);
  const fieldKinds = FIELD_KINDS[definition.Kind];
  if (fieldKinds) {
    if (definition.Fields.length === 0) throw new InvalidSchema(`${definition.Kind} ${fieldKinds.none}`, definition.Position);
    for (const field of definition.Fields) {
      const fieldType = schema.types.get(typeName(field.Type));
      if (fieldType && !fieldKinds.allowed.includes(fieldType.Kind))
        throw new InvalidSchema(`${definition.Kind} field must be one of ${fieldKinds.allowed.join(', ')}.`, field.Position);
    }
  }
  if (definition.Kind === 'ENUM' && definition.EnumValues.length === 0)
    throw new InvalidSchema('ENUM must define one or more unique enum values.', definition.Position);
  const seen = new Set<string>();
  for (const field of definition.Fields) {
    if (seen.has(field.Name)) throw new InvalidSchema(`Field ${definition.Name}.${field.Name} can only be defined once.`, field.Position);
    seen.add(field.Name);
  }
  if (!definition.BuiltIn) checkName(definition.Name, definition.Position);
  checkDirectives(schema, definition.Directives, definition.Kind);
}

const copy = (definition: GqlDefinition): GqlDefinition => ({
  ...definition,
  Directives: [...definition.Directives],
  Interfaces: [...definition.Interfaces],
  Fields: [...definition.Fields],
  Types: [...definition.Types],
  EnumValues: [...definition.EnumValues],
});

/** The prelude and the document merged and checked as gqlparser's ValidateSchemaDocument does; throws InvalidSchema. */
export function mergeSchema(document: GqlSchemaDocument): MergedSchema {
  const schema: MergedSchema = { types: new Map(), directives: new Map(), roots: [] };
  for (const [name, kind] of PRELUDE_TYPES) schema.types.set(name, preludeType(name, kind));
  const checked: GqlDefinition[] = [];
  for (const definition of document.Definitions) {
    if (schema.types.has(definition.Name)) throw new InvalidSchema(`Cannot redeclare type ${definition.Name}.`, definition.Position);
    const own = copy(definition);
    schema.types.set(definition.Name, own);
    checked.push(own);
  }
  for (const extension of document.Extensions) {
    let base = schema.types.get(extension.Name);
    if (!base) {
      base = { ...copy(extension), Description: '', Directives: [], Interfaces: [], Fields: [], Types: [], EnumValues: [], BuiltIn: false };
      schema.types.set(extension.Name, base);
      checked.push(base);
    } else if (base.BuiltIn && !checked.includes(base)) checked.push(base);
    if (base.Kind !== extension.Kind)
      throw new InvalidSchema(
        `Cannot extend type ${extension.Name} because the base type is a ${base.Kind}, not ${extension.Kind}.`,
        extension.Position,
      );
    base.Directives.push(...extension.Directives);
    base.Interfaces.push(...extension.Interfaces);
    base.Fields.push(...extension.Fields);
    base.Types.push(...extension.Types);
    base.EnumValues.push(...extension.EnumValues);
  }
  const possible = new Map<string, Set<string>>();
  const addPossible = (name: string, member: string) => possible.set(name, (possible.get(name) ?? new Set()).add(member));
  for (const definition of schema.types.values()) {
    if (definition.Kind === 'UNION') for (const member of definition.Types) addPossible(definition.Name, member);
    if (definition.Kind === 'OBJECT' || definition.Kind === 'INPUT_OBJECT') {
      for (const name of definition.Interfaces) addPossible(name, definition.Name);
      addPossible(definition.Name, definition.Name);
    }
  }
  for (const directive of [...preludeDirectives(), ...document.Directives]) {
    if (schema.directives.has(directive.Name)) throw new InvalidSchema(`Cannot redeclare directive ${directive.Name}.`, directive.Position);
    schema.directives.set(directive.Name, directive);
  }
  if (document.Schema.length > 1)
    throw new InvalidSchema('Cannot have multiple schema entry points, consider schema extensions instead.', document.Schema[1]!.Position);
  for (const entry of [...document.Schema, ...document.SchemaExtension].flatMap((definition) => definition.OperationTypes)) {
    if (!schema.types.has(entry.Type))
      throw new InvalidSchema(`Schema root ${entry.Operation} refers to a type ${entry.Type} that does not exist.`, entry.Position);
    schema.roots = [...schema.roots.filter((root) => root.Operation !== entry.Operation), entry];
  }
  for (const definition of checked) checkDefinition(schema, possible, definition);
  for (const directive of document.Directives) {
    checkName(directive.Name, directive.Position);
    checkArguments(schema, directive.Arguments, directive);
  }
  return schema;
}

/** The merged schema's own types and directives, what graphql-js does not define itself. */
export const ownTypes = (schema: MergedSchema) => [...schema.types.values()].filter((definition) => !definition.BuiltIn);
export const ownDirectives = (schema: MergedSchema) =>
  [...schema.directives.values()].filter((directive) => !PRELUDE_DIRECTIVES.has(directive.Name));
