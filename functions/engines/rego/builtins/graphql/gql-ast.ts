// The GraphQL documents as OPA's built-ins give them to a policy: gqlparser's Go structures (ast package) as
// OPA turns them into values, without positions and with null and empty members left out
// (pruneIrrelevantGraphQLASTNodes). Parsing and validation run on graphql-js; these are what a policy sees and
// may hand back (`graphql.is_valid(graphql.parse_query(q), schema)`).

/** gqlparser's ValueKind, in its order. */
export enum ValueKind {
  Variable = 0,
  Int = 1,
  Float = 2,
  String = 3,
  Block = 4,
  Boolean = 5,
  Null = 6,
  Enum = 7,
  List = 8,
  Object = 9,
}

export interface GqlValue {
  /** The literal's text; a variable's name without `$`; a string's content; empty for lists and objects. */
  Raw: string;
  /** A list's items (with empty names) or an object's fields. */
  Children: { Name: string; Value: GqlValue }[];
  Kind: ValueKind;
}

/** Where in the source a node was (gqlparser's errors name it); OPA leaves it out of the values it gives. */
export interface GqlPosition {
  line: number;
  column: number;
}

export interface GqlType {
  Position?: GqlPosition;
  /** Empty for a list, whose item type is Elem. */
  NamedType: string;
  Elem?: GqlType;
  NonNull: boolean;
}

export interface GqlArgument {
  Name: string;
  Value: GqlValue;
}

export interface GqlDirective {
  Position?: GqlPosition;
  Name: string;
  Arguments: GqlArgument[];
}

/** Field, fragment spread and inline fragment: gqlparser tells them apart by which members they have. */
export type GqlSelection =
  | { kind: 'field'; Alias: string; Name: string; Arguments: GqlArgument[]; Directives: GqlDirective[]; SelectionSet: GqlSelection[] }
  | { kind: 'spread'; Name: string; Directives: GqlDirective[] }
  | { kind: 'inline'; TypeCondition: string; Directives: GqlDirective[]; SelectionSet: GqlSelection[] };

export interface GqlVariableDefinition {
  Variable: string;
  Type: GqlType;
  DefaultValue?: GqlValue;
  Directives: GqlDirective[];
}

export interface GqlOperation {
  Operation: string;
  Name: string;
  VariableDefinitions: GqlVariableDefinition[];
  Directives: GqlDirective[];
  SelectionSet: GqlSelection[];
}

export interface GqlFragment {
  Name: string;
  /** Fragment variables (an experimental syntax gqlparser reads), in gqlparser's singular. */
  VariableDefinition: GqlVariableDefinition[];
  TypeCondition: string;
  Directives: GqlDirective[];
  SelectionSet: GqlSelection[];
}

export interface GqlQueryDocument {
  Operations: GqlOperation[];
  Fragments: GqlFragment[];
}

export interface GqlArgumentDefinition {
  Position?: GqlPosition;
  Description: string;
  Name: string;
  DefaultValue?: GqlValue;
  Type: GqlType;
  Directives: GqlDirective[];
}

/** A field of an object or interface, or an input object's field (which has DefaultValue, not Arguments). */
export interface GqlFieldDefinition extends GqlArgumentDefinition {
  Arguments: GqlArgumentDefinition[];
}

export type GqlDefinitionKind = 'SCALAR' | 'OBJECT' | 'INTERFACE' | 'UNION' | 'ENUM' | 'INPUT_OBJECT';

/** A type's definition or extension (gqlparser's one structure for every kind). */
export interface GqlDefinition {
  Position?: GqlPosition;
  Kind: GqlDefinitionKind;
  Description: string;
  Name: string;
  Directives: GqlDirective[];
  Interfaces: string[];
  Fields: GqlFieldDefinition[];
  Types: string[];
  EnumValues: { Description: string; Name: string; Directives: GqlDirective[] }[];
  BuiltIn: boolean;
}

export interface GqlDirectiveDefinition {
  Position?: GqlPosition;
  Description: string;
  Name: string;
  Arguments: GqlArgumentDefinition[];
  Locations: string[];
  IsRepeatable: boolean;
}

export interface GqlSchemaDefinition {
  Description: string;
  Directives: GqlDirective[];
  OperationTypes: { Operation: string; Type: string; Position?: GqlPosition }[];
  Position?: GqlPosition;
}

export interface GqlSchemaDocument {
  Schema: GqlSchemaDefinition[];
  SchemaExtension: GqlSchemaDefinition[];
  Directives: GqlDirectiveDefinition[];
  Definitions: GqlDefinition[];
  Extensions: GqlDefinition[];
}

/** A named or list type's name at its root (gqlparser's Type.Name()). */
export const typeName = (type: GqlType): string => (type.Elem ? typeName(type.Elem) : type.NamedType);

/** As gqlparser's Type.String(): `[Int!]!`. */
export const typeText = (type: GqlType): string => `${type.Elem ? `[${typeText(type.Elem)}]` : type.NamedType}${type.NonNull ? '!' : ''}`;
