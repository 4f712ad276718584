// OPA's JSON Schema built-ins (topdown/jsonschema.go): json.verify_schema, whose bad schema is an answer
// (`[false, "jsonschema: …"]`), and json.match_schema, whose is an error, both reading a schema or document
// given as JSON text or as a value, on a validator with gojsonschema's semantics and words (json-schema/).
// Written here rather than taken from a JavaScript validator: none words its errors as gojsonschema does,
// matches patterns in linear time (RE2), or charges its work to the evaluation's budget.
import { units } from '../../runtime/size-units.js';
import { BuiltinError } from '../errors.js';
import { fromJson, isObject as isRegoObject, type Value } from '../values.js';
import { type Builtin, builtin } from './builtin.js';
import { toJsonData } from './encoding.js';
import { compileSchema, type Json, SchemaError } from './json-schema/compile-schema.js';
import { validateDocument } from './json-schema/validate-schema.js';

/** OPA's astValueToJSONSchemaLoader: JSON text, or an object or array as JSON. */
function loaded(value: Value): Json {
  if (typeof value === 'string') {
    try {
      return JSON.parse(value) as Json;
    } catch {
      throw new SchemaError('invalid JSON string');
    }
  }
  if (isRegoObject(value) || Array.isArray(value)) return toJsonData(value) as Json;
  throw new SchemaError('wrong type, expected string or object');
}

const asBuiltinError = <T>(work: () => T): T => {
  try {
    return work();
  } catch (error) {
    if (error instanceof SchemaError) throw new BuiltinError(error.message);
    throw error;
  }
};

export const JSON_SCHEMA: Builtin[] = [
  builtin('json.verify_schema', 1, (args, context) => {
    context.charge(units(args[0]!));
    try {
      compileSchema(loaded(args[0]!));
      return [true, null];
    } catch (error) {
      if (error instanceof SchemaError) return [false, `jsonschema: ${error.message}`];
      throw error;
    }
  }),
  builtin('json.match_schema', 2, (args, context) =>
    asBuiltinError(() => {
      context.charge(units(args[0]!) + units(args[1]!));
      const document = loaded(args[0]!);
      const schema = compileSchema(loaded(args[1]!));
      const { errors } = validateDocument(schema, document, (cost) => context.charge(cost));
      return [errors.length === 0, errors.map((found) => fromJson(found))];
    }),
  ),
];
