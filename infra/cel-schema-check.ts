// Checks the fields cel expressions read against the OpenAPI schemas of the built-in kinds their rule
// matches, so a typo (`object.spec.containres`) is found at validate/push rather than as a policy that
// silently never denies. Kubernetes type-checks VAP expressions against these schemas; the function
// evaluates them over `dyn` objects, so this is where the check lives. The schemas are those
// @kubernetes/client-node is generated from (its models' attributeTypeMap; the models module alone, which
// loads in a fifth of the time the whole client takes); it is loaded only here, never into a function.
// Followed: chains from `object`/`oldObject`, through `.`, `.?`, `[]`, orValue, the iteration variable of
// all/exists/exists_one/map/filter, and `variables.<name>` bound to such a chain (or to lists joined
// with `+`). Anything else is not judged: a warning only names a field no matched kind has.
import * as kubernetes from '@kubernetes/client-node/dist/gen/models/all.js';
import { type CelValidation, celEngine, celEnvironment, celExpressionsOf, type ExpressionNode } from '../functions/engines/cel/index.js';
import type { CelParameters } from '../functions/cel/rules.js';
import type { Rule } from '../functions/admission/rules/rules-document-schema.js';
import { KIND_RESOURCES } from '../functions/admission/kubernetes/kubernetes-resources.js';

type SchemaType = { model: string } | { list: SchemaType } | { map: SchemaType } | undefined;
/** A value's schema type and how to name it in a message (`object.spec.containers[]`). */
type Typed = { type: SchemaType; path: string } | undefined;

const models = kubernetes as unknown as Record<string, { attributeTypeMap?: { baseName: string; type: string }[] } | undefined>;

function parseType(text: string): SchemaType {
  const list = /^Array<(.+)>$/.exec(text);
  if (list) return { list: parseType(list[1]!) } as SchemaType;
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(text);
  if (map) return { map: parseType(map[1]!) } as SchemaType;
  return models[text]?.attributeTypeMap ? { model: text } : undefined;
}

/** The model of a built-in kind: `Pod` → V1Pod (V2 for autoscaling's HPA, CoreV1 for core Events). */
function modelOfKind(kind: string): string | undefined {
  return [`V1${kind}`, `V2${kind}`, `CoreV1${kind}`].find((name) => models[name]?.attributeTypeMap);
}

const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const KEEPS_TYPE = new Set(['orValue', 'portcullisOrValue', 'value']);

interface Walk {
  scope: Map<string, Typed>;
  variables: Map<string, Typed>;
  /** Paths read that the schema does not have: `object.spec.containres` → the model that lacks it. */
  missing: Map<string, string>;
  /** Paths the schema has. */
  present: Set<string>;
}

function field(base: Typed, name: string, walk: Walk): Typed {
  if (!base?.type) return undefined;
  const path = `${base.path}.${name}`;
  if ('map' in base.type) return { type: base.type.map, path };
  if (!('model' in base.type)) return undefined;
  const attribute = models[base.type.model]!.attributeTypeMap!.find(({ baseName }) => baseName === name);
  if (!attribute) {
    walk.missing.set(path, base.type.model.replace(/^(V\d+|CoreV1)/, ''));
    return undefined;
  }
  walk.present.add(path);
  return { type: parseType(attribute.type), path };
}

const elementOf = (value: Typed): Typed => {
  if (!value?.type) return undefined;
  if ('list' in value.type) return { type: value.type.list, path: `${value.path}[]` };
  if ('map' in value.type) return { type: undefined, path: `${value.path}{}` };
  return undefined;
};

function typeOf(node: ExpressionNode, walk: Walk): Typed {
  const args = node.args as unknown[];
  switch (node.op) {
    case 'id':
      return walk.scope.get(node.args as string);
    case '.':
    case '.?': {
      const [base, name] = args as [ExpressionNode, string];
      if (base.op === 'id' && base.args === 'variables' && !walk.scope.has('variables')) return walk.variables.get(name);
      return field(typeOf(base, walk), name, walk);
    }
    case '[]':
    case '[?]': {
      const [base, index] = args as [ExpressionNode, ExpressionNode];
      typeOf(index, walk);
      return elementOf(typeOf(base, walk));
    }
    case '+': {
      const [left, right] = args as [ExpressionNode, ExpressionNode];
      const typed = typeOf(left, walk);
      typeOf(right, walk);
      return typed?.type && 'list' in typed.type ? typed : undefined;
    }
    case 'rcall': {
      const [name, receiver, callArgs] = args as [string, ExpressionNode, ExpressionNode[]];
      const target = typeOf(receiver, walk);
      if (COMPREHENSIONS.has(name) && callArgs[0]?.op === 'id') {
        const variable = callArgs[0].args as string;
        const outer = walk.scope.get(variable);
        walk.scope.set(variable, elementOf(target));
        for (const arg of callArgs.slice(1)) typeOf(arg, walk);
        walk.scope.set(variable, outer);
        return undefined;
      }
      for (const arg of callArgs) typeOf(arg, walk);
      return KEEPS_TYPE.has(name) ? target : undefined;
    }
    default:
      visitChildren(node, walk);
      return undefined;
  }
}

function visitChildren(node: ExpressionNode, walk: Walk): void {
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null && typeof (value as ExpressionNode).op === 'string')
      typeOf(value as ExpressionNode, walk);
  };
  visit(node.args);
}

/** The built-in kinds a rule's `object` can be, or undefined when one of them is not known (custom, `*`). */
function kindsOf(rule: Rule<CelParameters>): string[] | undefined {
  const match = rule.match ?? {};
  const kinds = new Set<string>();
  if (!match.resourceRules) {
    if (!match.kinds || match.kinds.includes('*')) return undefined;
    for (const kind of match.kinds) kinds.add(kind);
  }
  for (const resourceRule of match.resourceRules ?? []) {
    for (const group of resourceRule.apiGroups) {
      for (const pattern of resourceRule.resources) {
        const [resource, subresource] = pattern.split('/', 2) as [string, string?];
        // A subresource request carries the whole object (status, ephemeralcontainers), except scale and connections.
        const named =
          subresource === 'scale'
            ? 'Scale'
            : Object.entries(KIND_RESOURCES).find(([, list]) =>
                list.some((entry) => entry.apiGroup === group && entry.resource === resource),
              )?.[0];
        if (!named || (subresource && !['status', 'ephemeralcontainers', 'scale', 'resize'].includes(subresource))) return undefined;
        kinds.add(named);
      }
    }
  }
  // Autogen judges the controllers' pod templates as Pods: a field either shape has is fine.
  if ([...kinds].some((kind) => rule.parameters.podControllers.includes(kind))) kinds.add('Pod');
  return [...kinds];
}

/** Each CEL expression of a rule (its own, or the CEL beside another engine's rule), with where it was written. */
function expressionsOf({ run }: CelParameters): { where: string; source: string }[] {
  return [run, run.embedded].flatMap((part) => (part?.engine === celEngine ? celExpressionsOf(part.rule as CelValidation) : []));
}

/** The fields of one rule's expressions that none of its matched kinds' schemas has, as messages. */
function ruleWarnings(rule: Rule<CelParameters>): string[] {
  const kinds = kindsOf(rule);
  if (!kinds || kinds.length === 0) return [];
  const roots = kinds.map((kind) => modelOfKind(kind));
  if (roots.some((model) => !model)) return [];
  // Parsed once, walked once per kind.
  const expressions = expressionsOf(rule.parameters).map(({ where, source }) => ({
    where,
    ast: celEnvironment.parse(source).ast as unknown as ExpressionNode,
  }));
  const missing: { where: string; path: string; model: string }[] = [];
  const present = new Set<string>();
  for (const model of roots) {
    const root = { type: { model: model! }, path: 'object' };
    const walk: Walk = {
      scope: new Map<string, Typed>([
        ['object', root],
        ['oldObject', { ...root, path: 'oldObject' }],
      ]),
      variables: new Map(),
      missing: new Map(),
      present,
    };
    // Variables are typed in order, so later expressions can follow `variables.<name>`.
    for (const { where, ast } of expressions) {
      walk.missing.clear();
      const typed = typeOf(ast, walk);
      const variable = where.startsWith('variables ') ? where.slice('variables '.length) : undefined;
      if (variable) walk.variables.set(variable, typed && { ...typed, path: `variables.${variable}` });
      for (const [path, lacking] of walk.missing) missing.push({ where, path, model: lacking });
    }
  }
  // A field one matched kind has is fine (a policy may branch on the kind); report each once.
  const label = rule.origin ? `${rule.origin.kind} ${rule.origin.name}` : `rule ${rule.name}`;
  const reported = new Set<string>();
  return missing
    .filter(({ where, path }) => !present.has(path) && !reported.has(`${where} ${path}`) && Boolean(reported.add(`${where} ${path}`)))
    .map(
      ({ where, path, model }) =>
        `${label}: ${where}: ${path}: ${path.split('.').at(-1)} is not a field of ${model} (the schema of ${kinds.join(', ')})`,
    );
}

/** Warnings for every rule of a valid cel document (rules from one manifest are checked once). */
export function celSchemaWarnings(rules: readonly Rule<CelParameters>[]): string[] {
  const warnings = new Set<string>();
  for (const rule of rules) for (const warning of ruleWarnings(rule)) warnings.add(warning);
  return [...warnings];
}
