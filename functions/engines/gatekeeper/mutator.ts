// A Gatekeeper mutator (mutations.gatekeeper.sh: Assign, AssignMetadata, ModifySet, AssignImage) read from its
// manifest and checked as Gatekeeper's MutatorFor… functions check it when it is created, each problem naming
// the mutator and the field: the location parses and may be written by the kind; path tests are prefixes of
// it; the value is one of value and fromMetadata, an object with the list's key when it lands in a keyed
// list; applyTo names groups, versions and kinds; AssignImage's parts make an image that converges. What
// needs something this project does not have is refused with the reason (externalData, a namespaceSelector,
// match.source Generated).
import { isJsonObject } from '../../admission/kubernetes/json-object.js';
import type { LabelSelector } from '../../admission/kubernetes/label-selector.js';
import { imagePartsProblem, type ImageParts } from './image.js';
import { type Location, LocationError, parseLocation, sameNode } from './location.js';
import { locationShapeProblem } from './location-shape.js';
import type { MutatorKind } from './index.js';
import type { ApplyTo, MutatorMatch } from './match.js';

export type Setter =
  | { type: 'assign'; value?: unknown; fromMetadata?: 'name' | 'namespace'; assignIf?: { in?: unknown[]; notIn?: unknown[] } }
  | { type: 'modifySet'; operation: 'merge' | 'prune'; values: unknown[] }
  | { type: 'image'; parts: ImageParts };

/** The type a mutator implies for its location's last node, as Gatekeeper's schema database tracks it. */
export type TerminalType = 'Unknown' | 'Set' | 'String';

export interface Mutator {
  kind: MutatorKind;
  name: string;
  applyTo?: ApplyTo[];
  match: MutatorMatch;
  location: Location;
  /** Path tests by depth: the node at that depth must exist, or must not. */
  tests: ReadonlyMap<number, 'MustExist' | 'MustNotExist'>;
  terminal: TerminalType;
  setter: Setter;
}

type Spec = Record<string, unknown>;

const MATCH_FIELDS = new Set([
  'source',
  'kinds',
  'scope',
  'namespaces',
  'excludedNamespaces',
  'labelSelector',
  'namespaceSelector',
  'name',
]);
const OPERATIONS = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** A problem at a field of the mutator's manifest. */
class MutatorProblem extends Error {}
const problem = (field: string, message: string) => new MutatorProblem(`${field}: ${message}`);

function applyToOf(spec: Spec): ApplyTo[] {
  const applyTo = spec.applyTo;
  if (!Array.isArray(applyTo) || applyTo.length === 0) throw problem('spec.applyTo', 'required: the groups, versions and kinds it mutates');
  return applyTo.map((entry, index) => {
    const at = `spec.applyTo[${index}]`;
    if (!isJsonObject(entry)) throw problem(at, 'expected an object with groups, versions and kinds');
    for (const field of ['groups', 'versions', 'kinds'] as const)
      if (!isStrings(entry[field]) || entry[field].length === 0)
        throw problem(`${at}.${field}`, 'required, a list of names: all of group, version and kind must be specified');
    const operations = entry.operations ?? [];
    if (!isStrings(operations) || operations.some((operation) => !OPERATIONS.has(operation)))
      throw problem(`${at}.operations`, 'expected CREATE, UPDATE, DELETE or CONNECT');
    return { groups: entry.groups, versions: entry.versions, kinds: entry.kinds, operations } as ApplyTo;
  });
}

function matchOf(spec: Spec): MutatorMatch {
  const match = spec.match ?? {};
  if (!isJsonObject(match)) throw problem('spec.match', 'expected an object');
  const unknown = Object.keys(match).find((field) => !MATCH_FIELDS.has(field));
  if (unknown) throw problem(`spec.match.${unknown}`, `not a Gatekeeper match field (${[...MATCH_FIELDS].join(', ')})`);
  if (match.source === 'Generated')
    throw problem('spec.match.source', 'Generated mutators run only when Gatekeeper expands generator resources, which nothing does here');
  if (match.source !== undefined && match.source !== 'All' && match.source !== 'Original')
    throw problem('spec.match.source', 'expected All, Original or Generated');
  if (isJsonObject(match.namespaceSelector) && Object.keys(match.namespaceSelector).length > 0)
    throw problem('spec.match.namespaceSelector', "cannot run here: it reads the namespace's labels from the cluster");
  for (const field of ['namespaces', 'excludedNamespaces'] as const)
    if (match[field] !== undefined && !isStrings(match[field])) throw problem(`spec.match.${field}`, 'expected a list of names or globs');
  if (match.name !== undefined && typeof match.name !== 'string') throw problem('spec.match.name', 'expected a name or glob');
  if (match.labelSelector !== undefined && !isJsonObject(match.labelSelector))
    throw problem('spec.match.labelSelector', 'expected a label selector');
  if (match.kinds !== undefined && (!Array.isArray(match.kinds) || !match.kinds.every(isJsonObject)))
    throw problem('spec.match.kinds', 'expected a list of { apiGroups, kinds }');
  return {
    kinds: match.kinds as MutatorMatch['kinds'],
    scope: typeof match.scope === 'string' ? match.scope : undefined,
    namespaces: match.namespaces as string[] | undefined,
    excludedNamespaces: match.excludedNamespaces as string[] | undefined,
    labelSelector: match.labelSelector as LabelSelector | undefined,
    name: match.name as string | undefined,
  };
}

function locationOf(text: unknown, field: string): Location {
  if (typeof text !== 'string' || text === '') throw problem(field, 'required, a path such as spec.containers[name: *].image');
  try {
    return parseLocation(text);
  } catch (error) {
    if (error instanceof LocationError) throw problem(field, `invalid location format \`${text}\`: ${error.message}`);
    throw error;
  }
}

function testsOf(parameters: Spec, location: Location): Map<number, 'MustExist' | 'MustNotExist'> {
  const tests = new Map<number, 'MustExist' | 'MustNotExist'>();
  const written = parameters.pathTests ?? [];
  if (!Array.isArray(written)) throw problem('spec.parameters.pathTests', 'expected a list of { subPath, condition }');
  written.forEach((test, index) => {
    const at = `spec.parameters.pathTests[${index}]`;
    const condition = (test as Spec | null)?.condition;
    if (condition !== 'MustExist' && condition !== 'MustNotExist') throw problem(`${at}.condition`, 'expected MustExist or MustNotExist');
    const subPath = locationOf((test as Spec).subPath, `${at}.subPath`);
    if (subPath.length > location.length || !subPath.every((node, depth) => sameNode(node, location[depth]!)))
      throw problem(`${at}.subPath`, 'all subpaths must be a prefix of the `location` value of the mutation');
    const depth = subPath.length - 1;
    if (tests.has(depth) && tests.get(depth) !== condition) throw problem(at, 'conflicting path test conditions');
    tests.set(depth, condition);
  });
  return tests;
}

/** Gatekeeper's CheckKeyNotChanged: `foo[name: bar].name` would change the member's key. */
function checkKeyNotChanged(location: Location): void {
  const [last, beforeLast] = [location.at(-1)!, location.at(-2)];
  if (beforeLast?.type !== 'list') return;
  if (last.type !== 'object') throw problem('spec.location', "invalid path format: child of a list can't be a list");
  if (last.reference === beforeLast.keyField) throw problem('spec.location', 'invalid path format: changing the item key is not allowed');
}

const rootIsMetadata = (location: Location) => location[0]?.type === 'object' && location[0].reference === 'metadata';

function assignSetter(assign: unknown, location: Location, kind: MutatorKind): Setter & { type: 'assign' } {
  if (!isJsonObject(assign)) throw problem('spec.parameters.assign', 'required: one of value or fromMetadata');
  const given = ['value', 'fromMetadata', 'externalData'].filter((field) => assign[field] !== undefined);
  if (given.length === 0) throw problem('spec.parameters.assign', 'assign must set one of `externalData`, `value` or `fromMetadata`');
  if (given.length > 1) throw problem('spec.parameters.assign', 'assign must only set one of `externalData`, `value` or `fromMetadata`');
  if (given[0] === 'externalData')
    throw problem(
      'spec.parameters.assign.externalData',
      'cannot run here: it calls an external data provider, which nothing here can reach',
    );
  const last = location.at(-1)!;
  if (given[0] === 'fromMetadata') {
    const field = (assign.fromMetadata as Spec | null)?.field;
    if (field !== 'name' && field !== 'namespace')
      throw problem('spec.parameters.assign.fromMetadata.field', `field ${String(field)} is not recognized (name or namespace)`);
    if (last.type === 'list') throw problem('spec.parameters.assign.fromMetadata', 'cannot assign a metadata field to a list');
    return { type: 'assign', fromMetadata: field };
  }
  const value = assign.value;
  if (kind === 'AssignMetadata' && typeof value !== 'string')
    throw problem('spec.parameters.assign.value', 'must be a string for AssignMetadata');
  if (last.type === 'list') {
    if (last.glob) throw problem('spec.location', "can't append to a globbed list");
    if (!isJsonObject(value)) throw problem('spec.parameters.assign.value', 'only objects can be added to keyed lists');
    if (value[last.keyField] !== last.keyValue)
      throw problem(
        'spec.parameters.assign.value',
        `adding object to list with different key ${last.keyField}: list key ${last.keyValue}, object key ${String(value[last.keyField])}`,
      );
  }
  return { type: 'assign', value };
}

function assignIfOf(parameters: Spec): { in?: unknown[]; notIn?: unknown[] } | undefined {
  const assignIf = parameters.assignIf;
  if (assignIf === undefined) return undefined;
  if (!isJsonObject(assignIf) || Object.keys(assignIf).some((key) => key !== 'in' && key !== 'notIn'))
    throw problem('spec.parameters.assignIf', 'expected { in: [...], notIn: [...] }');
  for (const key of ['in', 'notIn'] as const)
    if (assignIf[key] !== undefined && !Array.isArray(assignIf[key]))
      throw problem(`spec.parameters.assignIf.${key}`, 'expected a list of values');
  return assignIf as { in?: unknown[]; notIn?: unknown[] };
}

const METADATA_FIELDS = new Set(['labels', 'annotations']);

/** The parts each kind adds to what all share: its setter, the type its location implies, its own checks. */
function kindParts(kind: MutatorKind, spec: Spec, parameters: Spec, location: Location): { setter: Setter; terminal: TerminalType } {
  if (kind === 'AssignMetadata') {
    const [, field, key] = location;
    if (
      location.length !== 3 ||
      !rootIsMetadata(location) ||
      field?.type !== 'object' ||
      key?.type !== 'object' ||
      !METADATA_FIELDS.has(field.reference)
    )
      throw problem('spec.location', 'invalid location for assignmetadata: only metadata.labels.<key> or metadata.annotations.<key>');
    if (spec.applyTo !== undefined) throw problem('spec.applyTo', 'AssignMetadata has no applyTo (it mutates any kind its match selects)');
    return { setter: assignSetter(parameters.assign, location, kind), terminal: 'Unknown' };
  }
  if (rootIsMetadata(location))
    throw problem('spec.location', `${kind.toLowerCase()} can't change metadata (AssignMetadata adds labels and annotations)`);
  const last = location.at(-1)!;
  if (kind === 'ModifySet') {
    if (last.type === 'list') throw problem('spec.location', 'final node in a modifyset location cannot be a keyed list');
    const operation = parameters.operation ?? 'merge';
    if (operation !== 'merge' && operation !== 'prune') throw problem('spec.parameters.operation', 'expected merge or prune');
    const values = (parameters.values as Spec | undefined)?.fromList ?? [];
    if (!Array.isArray(values)) throw problem('spec.parameters.values.fromList', 'expected a list of values');
    return { setter: { type: 'modifySet', operation, values }, terminal: 'Set' };
  }
  checkKeyNotChanged(location);
  if (kind === 'AssignImage') {
    if (last.type === 'list') throw problem('spec.location', 'assignImage location cannot end in a keyed list');
    const parts: ImageParts = {};
    for (const field of ['assignDomain', 'assignPath', 'assignTag'] as const) {
      const part = parameters[field];
      if (part !== undefined && typeof part !== 'string') throw problem(`spec.parameters.${field}`, 'expected a string');
      if (part) parts[field] = part;
    }
    const invalid = imagePartsProblem(parts);
    if (invalid) throw problem('spec.parameters', invalid);
    return { setter: { type: 'image', parts }, terminal: 'String' };
  }
  const setter = assignSetter(parameters.assign, location, kind);
  const assignIf = assignIfOf(parameters);
  return { setter: assignIf ? { ...setter, assignIf } : setter, terminal: 'Unknown' };
}

type Read = Mutator | { problem: string };

// A bundle is read twice, by its format's check and by the rule's schema, which passes each spec through
// unchanged: the second read reuses the first (kind and name compared too, as YAML aliases share specs).
const readBySpec = new WeakMap<object, { kind: unknown; name: unknown; read: Read }>();

/** The mutator the manifest describes, or the problem that stops it, worded `spec.location: …`. */
export function mutatorOf(manifest: Spec): Read {
  const spec = manifest.spec;
  const name = (manifest.metadata as Spec | undefined)?.name;
  const known = isJsonObject(spec) ? readBySpec.get(spec) : undefined;
  if (known && known.kind === manifest.kind && known.name === name) return known.read;
  const read = readMutator(manifest);
  if (isJsonObject(spec)) readBySpec.set(spec, { kind: manifest.kind, name, read });
  return read;
}

function readMutator(manifest: Spec): Read {
  try {
    const kind = manifest.kind as MutatorKind;
    const name = String((manifest.metadata as Spec | undefined)?.name ?? '');
    if (name.length > 63) throw problem('metadata.name', 'a mutator name is at most 63 characters');
    const spec = isJsonObject(manifest.spec) ? manifest.spec : {};
    const parameters = isJsonObject(spec.parameters) ? spec.parameters : {};
    const location = locationOf(spec.location, 'spec.location');
    const parts = kindParts(kind, spec, parameters, location);
    const tests = kind === 'AssignMetadata' ? new Map([[2, 'MustNotExist' as const]]) : testsOf(parameters, location);
    const applyTo = kind === 'AssignMetadata' ? undefined : applyToOf(spec);
    for (const { groups, kinds } of applyTo ?? [])
      for (const [group, kindName] of groups.flatMap((g) => kinds.map((k) => [g, k] as const))) {
        const misfit = locationShapeProblem(location, group, kindName);
        if (misfit) throw problem('spec.location', misfit);
      }
    return { kind, name, applyTo, match: matchOf(spec), location, tests, ...parts };
  } catch (error) {
    if (error instanceof MutatorProblem) return { problem: error.message };
    throw error;
  }
}
