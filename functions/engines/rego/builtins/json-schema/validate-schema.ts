// A document validated against a compiled schema as OPA's gojsonschema validates it (validation.go): the same
// order of checks, the same error types, fields and descriptions, and the same choice, for anyOf, oneOf and
// contains, of the closest failing schema by its score. Every node visited is charged to the evaluation.
import { units } from '../../../runtime/size-units.js';
import { goShortest } from '../format.js';
import { matcher } from '../regex.js';
import { EngineLimitError } from '../../../runtime/cost-budget.js';
import { type CompiledSchema, canonical, isObject, type Json, type JsonObject, MAX_DEPTH } from './compile-schema.js';
import { formatHolds } from './formats.js';

export interface SchemaViolation {
  type: string;
  field: string;
  desc: string;
  error: string;
}

interface Result {
  errors: SchemaViolation[];
  score: number;
}

const DESCRIPTIONS: Record<string, (details: Record<string, string>) => string> = {
  false: () => 'False always fails validation',
  required: (d) => `${d.property} is required`,
  invalid_type: (d) => `Invalid type. Expected: ${d.expected}, given: ${d.given}`,
  number_any_of: () => 'Must validate at least one schema (anyOf)',
  number_one_of: () => 'Must validate one and only one schema (oneOf)',
  number_all_of: () => 'Must validate all the schemas (allOf)',
  number_not: () => 'Must not validate the schema (not)',
  missing_dependency: (d) => `Has a dependency on ${d.dependency}`,
  const: (d) => `${d.field} does not match: ${d.allowed}`,
  enum: (d) => `${d.field} must be one of the following: ${d.allowed}`,
  array_no_additional_items: () => 'No additional items allowed on array',
  array_min_items: (d) => `Array must have at least ${d.min} items`,
  array_max_items: (d) => `Array must have at most ${d.max} items`,
  unique: (d) => `${d.type} items[${d.i},${d.j}] must be unique`,
  contains: () => 'At least one of the items must match',
  array_min_properties: (d) => `Must have at least ${d.min} properties`,
  array_max_properties: (d) => `Must have at most ${d.max} properties`,
  additional_property_not_allowed: (d) => `Additional property ${d.property} is not allowed`,
  invalid_property_name: (d) => `Property name of "${d.property}" does not match`,
  string_gte: (d) => `String length must be greater than or equal to ${d.min}`,
  string_lte: (d) => `String length must be less than or equal to ${d.max}`,
  pattern: (d) => `Does not match pattern '${d.pattern}'`,
  format: (d) => `Does not match format '${d.format}'`,
  multiple_of: (d) => `Must be a multiple of ${d.multiple}`,
  number_gte: (d) => `Must be greater than or equal to ${d.min}`,
  number_gt: (d) => `Must be greater than ${d.min}`,
  number_lte: (d) => `Must be less than or equal to ${d.max}`,
  number_lt: (d) => `Must be less than ${d.max}`,
  condition_then: () => 'Must validate "then" as "if" was valid',
  condition_else: () => 'Must validate "else" as "if" was not valid',
};

const typeOf = (value: Json): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : typeof value === 'object'
          ? 'object'
          : typeof value;

/** A schema's const and enum as canonical JSON, made once per schema object. */
const canonicalSchemas = new WeakMap<JsonObject, { constant?: string; allowed?: Set<string>; allowedText?: string }>();
function canonicalOf(schema: JsonObject) {
  let found = canonicalSchemas.get(schema);
  if (!found) {
    const allowed = Array.isArray(schema.enum) ? schema.enum.map((each) => canonical(each)) : undefined;
    found = {
      ...(schema.const !== undefined ? { constant: canonical(schema.const) } : {}),
      ...(allowed ? { allowed: new Set(allowed), allowedText: allowed.length > 0 ? allowed.join(', ') : '(none)' } : {}),
    };
    canonicalSchemas.set(schema, found);
  }
  return found;
}

export function validateDocument(compiled: CompiledSchema, document: Json, charge: (units: number) => void): Result {
  const add = (result: Result, type: string, path: readonly string[], details: Record<string, string> = {}) => {
    const field = path.length === 0 ? '(root)' : path.join('.');
    const desc = DESCRIPTIONS[type]!({ ...details, field });
    result.errors.push({ type, field, desc, error: `${field}: ${desc}` });
  };
  const merge = (into: Result, from: Result) => {
    into.errors.push(...from.errors);
    into.score += from.score;
  };
  // How deep the walk is: schemas within schemas, references and the document's own nesting all count.
  let depth = 0;
  const sub = (schema: Json, node: Json, path: readonly string[]): Result => {
    const result: Result = { errors: [], score: 0 };
    walk(schema, node, path, result);
    return result;
  };
  const valid = (result: Result) => result.errors.length === 0;

  const walk = (schema: Json, node: Json, path: readonly string[], result: Result): void => {
    charge(1);
    if (++depth > MAX_DEPTH)
      throw new EngineLimitError('json schema: schema or document nested too deeply (or a $ref that refers to itself)');
    try {
      step(schema, node, path, result);
    } finally {
      depth--;
    }
  };

  const step = (schema: Json, node: Json, path: readonly string[], result: Result): void => {
    if (typeof schema === 'boolean') {
      if (!schema) add(result, 'false', path);
      return;
    }
    const s = schema as JsonObject;
    if (typeof s.$ref === 'string') {
      walk(compiled.resolve(s.$ref), node, path, result);
      return;
    }
    const given = typeOf(node);
    if (s.type !== undefined) {
      const types = typeof s.type === 'string' ? [s.type] : (s.type as string[]);
      const allowed = types.includes(given) || (given === 'integer' && types.includes('number'));
      if (!allowed) {
        add(result, 'invalid_type', path, { expected: types.length > 1 ? `[${types.join(',')}]` : types[0]!, given });
        return;
      }
    }
    validateSchema(s, node, path, result);
    if (typeof node === 'number') validateNumber(s, node, path, result);
    if (Array.isArray(node)) validateArray(s, node, path, result);
    if (isObject(node)) validateObject(s, node, path, result);
    validateCommon(s, node, path, result);
    if (typeof node === 'string') validateString(s, node, path, result);
    // In key order: gojsonschema's is Go's map order, which varies from run to run.
    if (isObject(node) && isObject(s.properties))
      for (const property of Object.keys(s.properties).sort())
        if (Object.hasOwn(node, property)) walk(s.properties[property]!, node[property]!, [...path, property], result);
    result.score++;
  };

  /** The closest of several failing results: the first of the highest score. */
  const closer = (best: Result | undefined, candidate: Result) => (best === undefined || candidate.score > best.score ? candidate : best);

  const validateSchema = (s: JsonObject, node: Json, path: readonly string[], result: Result) => {
    if (Array.isArray(s.anyOf)) {
      let best: Result | undefined;
      let matched = false;
      for (const each of s.anyOf) {
        const tried = sub(each, node, path);
        if (valid(tried)) {
          matched = true;
          break;
        }
        best = closer(best, tried);
      }
      if (!matched) {
        add(result, 'number_any_of', path);
        if (best) merge(result, best);
      }
    }
    if (Array.isArray(s.oneOf)) {
      let best: Result | undefined;
      let matched = 0;
      for (const each of s.oneOf) {
        const tried = sub(each, node, path);
        if (valid(tried)) matched++;
        else if (matched === 0) best = closer(best, tried);
      }
      if (matched !== 1) {
        add(result, 'number_one_of', path);
        if (matched === 0 && best) merge(result, best);
      }
    }
    if (Array.isArray(s.allOf)) {
      let matched = 0;
      for (const each of s.allOf) {
        const tried = sub(each, node, path);
        if (valid(tried)) matched++;
        merge(result, tried);
      }
      if (matched !== s.allOf.length) add(result, 'number_all_of', path);
    }
    if (s.not !== undefined && valid(sub(s.not, node, path))) add(result, 'number_not', path);
    if (isObject(s.dependencies) && isObject(node))
      for (const key of Object.keys(node)) {
        const dependency = Object.hasOwn(s.dependencies, key) ? s.dependencies[key] : undefined;
        if (Array.isArray(dependency)) {
          for (const needed of dependency as string[])
            if (!Object.hasOwn(node, needed)) add(result, 'missing_dependency', path, { dependency: needed });
        } else if (dependency !== undefined) walk(dependency, node, path, result);
      }
    if (s.if !== undefined) {
      const condition = valid(sub(s.if, node, path));
      const branch = condition ? s.then : s.else;
      if (branch !== undefined) {
        const tried = sub(branch, node, path);
        if (!valid(tried)) {
          add(result, condition ? 'condition_then' : 'condition_else', path);
          merge(result, tried);
        }
      }
    }
    result.score++;
  };

  const validateCommon = (s: JsonObject, node: Json, path: readonly string[], result: Result) => {
    if (s.const !== undefined || Array.isArray(s.enum)) {
      charge(units(node as never));
      const text = canonical(node);
      if (s.const !== undefined && text !== canonicalOf(s).constant) add(result, 'const', path, { allowed: canonicalOf(s).constant! });
      if (Array.isArray(s.enum) && !canonicalOf(s).allowed!.has(text)) add(result, 'enum', path, { allowed: canonicalOf(s).allowedText! });
    }
    if (typeof s.format === 'string' && !formatHolds(s.format, node)) add(result, 'format', path, { format: s.format });
    result.score++;
  };

  const validateArray = (s: JsonObject, node: Json[], path: readonly string[], result: Result) => {
    if (Array.isArray(s.items)) {
      const items = s.items;
      for (let index = 0; index < Math.min(items.length, node.length); index++)
        merge(result, sub(items[index]!, node[index]!, [...path, String(index)]));
      if (items.length < node.length) {
        if (s.additionalItems === false) add(result, 'array_no_additional_items', path);
        else if (isObject(s.additionalItems))
          for (let index = items.length; index < node.length; index++)
            merge(result, sub(s.additionalItems, node[index]!, [...path, String(index)]));
      }
    } else if (s.items !== undefined)
      for (let index = 0; index < node.length; index++) merge(result, sub(s.items, node[index]!, [...path, String(index)]));
    if (typeof s.minItems === 'number' && node.length < s.minItems) add(result, 'array_min_items', path, { min: String(s.minItems) });
    if (typeof s.maxItems === 'number' && node.length > s.maxItems) add(result, 'array_max_items', path, { max: String(s.maxItems) });
    if (s.uniqueItems === true) {
      const seen = new Map<string, number>();
      node.forEach((item, j) => {
        charge(units(item));
        const text = canonical(item);
        const i = seen.get(text);
        if (i !== undefined) add(result, 'unique', path, { type: 'array', i: String(i), j: String(j) });
        seen.set(text, j);
      });
    }
    if (s.contains !== undefined) {
      let best: Result | undefined;
      let matched = false;
      for (let index = 0; index < node.length && !matched; index++) {
        const tried = sub(s.contains, node[index]!, [...path, String(index)]);
        if (valid(tried)) matched = true;
        else best = closer(best, tried);
      }
      if (!matched) {
        add(result, 'contains', path);
        if (best) merge(result, best);
      }
    }
    result.score++;
  };

  const validateObject = (s: JsonObject, node: JsonObject, path: readonly string[], result: Result) => {
    const keys = Object.keys(node).sort();
    if (typeof s.minProperties === 'number' && keys.length < s.minProperties)
      add(result, 'array_min_properties', path, { min: String(s.minProperties) });
    if (typeof s.maxProperties === 'number' && keys.length > s.maxProperties)
      add(result, 'array_max_properties', path, { max: String(s.maxProperties) });
    for (const property of (s.required as string[] | undefined) ?? []) {
      if (Object.hasOwn(node, property)) result.score++;
      else add(result, 'required', path, { property });
    }
    for (const key of keys) {
      const declared = isObject(s.properties) && Object.hasOwn(s.properties, key);
      let patterned = false;
      for (const [pattern, each] of isObject(s.patternProperties) ? Object.entries(s.patternProperties) : []) {
        if (!matcher(pattern, key, { charge }).find()) continue;
        patterned = true;
        merge(result, sub(each, node[key]!, [...path, key]));
      }
      if (patterned) result.score++;
      if (declared || patterned) continue;
      if (s.additionalProperties === false) add(result, 'additional_property_not_allowed', path, { property: key });
      else if (isObject(s.additionalProperties)) merge(result, sub(s.additionalProperties, node[key]!, [...path, key]));
    }
    if (s.propertyNames !== undefined)
      for (const key of keys) {
        const tried = sub(s.propertyNames, key, path);
        if (!valid(tried)) {
          add(result, 'invalid_property_name', path, { property: key });
          merge(result, tried);
        }
      }
    result.score++;
  };

  const validateString = (s: JsonObject, node: string, path: readonly string[], result: Result) => {
    const length = [...node].length;
    if (typeof s.minLength === 'number' && length < s.minLength) add(result, 'string_gte', path, { min: String(s.minLength) });
    if (typeof s.maxLength === 'number' && length > s.maxLength) add(result, 'string_lte', path, { max: String(s.maxLength) });
    if (typeof s.pattern === 'string') {
      if (!matcher(s.pattern, node, { charge }).find()) add(result, 'pattern', path, { pattern: s.pattern });
    }
    result.score++;
  };

  const validateNumber = (s: JsonObject, node: number, path: readonly string[], result: Result) => {
    if (typeof s.multipleOf === 'number') {
      const quotient = node / s.multipleOf;
      if (Math.abs(quotient - Math.round(quotient)) > 1e-9 * Math.max(1, Math.abs(quotient)))
        add(result, 'multiple_of', path, { multiple: goShortest(s.multipleOf) });
    }
    // Draft 4's boolean exclusiveMaximum makes maximum exclusive; drafts 6 and 7 give the bound itself.
    const [maximum, exclusiveMaximum] =
      s.exclusiveMaximum === true
        ? [undefined, s.maximum]
        : [s.maximum, typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : undefined];
    const [minimum, exclusiveMinimum] =
      s.exclusiveMinimum === true
        ? [undefined, s.minimum]
        : [s.minimum, typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : undefined];
    if (typeof maximum === 'number' && node > maximum) add(result, 'number_lte', path, { max: goShortest(maximum) });
    if (typeof exclusiveMaximum === 'number' && node >= exclusiveMaximum)
      add(result, 'number_lt', path, { max: goShortest(exclusiveMaximum) });
    if (typeof minimum === 'number' && node < minimum) add(result, 'number_gte', path, { min: goShortest(minimum) });
    if (typeof exclusiveMinimum === 'number' && node <= exclusiveMinimum)
      add(result, 'number_gt', path, { min: goShortest(exclusiveMinimum) });
    result.score++;
  };

  const result: Result = { errors: [], score: 0 };
  walk(compiled.root, document, [], result);
  return result;
}
