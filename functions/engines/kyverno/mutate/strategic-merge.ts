// Strategic merge as Kyverno's patchStrategicMerge applies it: kustomize's patchstrategicmerge filter (kyaml's
// merge2 walk, the patch's list elements first). Maps merge field by field and a field patched to null is removed; a list the
// schema says merges (`x-kubernetes-patch-strategy: merge`) merges its elements by their keys (containers by
// name, ports by containerPort and protocol, an element whose secondary key is missing matching one that has
// it), a list of scalars with that strategy is a set, and any other list is replaced. `$patch: replace` and
// `$patch: delete` directives apply to the map or list element that holds them, and `- $patch: replace` to
// its list. A kind without a schema here merges a list by key when every element has one of kyaml's
// associative keys (name, containerPort, ...), as kyaml infers it.
import { type FieldShape, type KeyedList, TYPES, type TypeShape } from '../../../admission/kubernetes/apply-schema.js';
import type { CostBudget } from '../../runtime/cost-budget.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What is known of a place: a struct's type, a keyed list or set; `schema` when its kind has one here; the
 * budget the merge charges.
 */
interface Place {
  type?: TypeShape;
  list?: KeyedList | 'set';
  schema: boolean;
  budget: CostBudget;
}

// kyaml's AssociativeSequenceKeys, in the order it tries them.
const ASSOCIATIVE_KEYS = ['mountPath', 'devicePath', 'ip', 'type', 'topologyKey', 'name', 'containerPort'];
const DIRECTIVE = '$patch';
const REMOVED = Symbol('removed');

function placeOf(shape: FieldShape | undefined, { schema, budget }: Place): Place {
  if (shape === undefined || shape === 'atomic-map') return { schema, budget };
  if (shape === 'set') return { list: 'set', schema, budget };
  if (typeof shape === 'string') return { type: TYPES[shape], schema, budget };
  return shape.strategicMerge === false ? { schema, budget } : { list: shape, schema, budget };
}

const fieldOf = (place: Place, key: string): Place =>
  placeOf(place.type?.fields && Object.hasOwn(place.type.fields, key) ? place.type.fields[key] : undefined, place);

const elementOf = (place: Place): Place =>
  place.list && place.list !== 'set' && place.list.of
    ? { type: TYPES[place.list.of], schema: place.schema, budget: place.budget }
    : { schema: place.schema, budget: place.budget };

function directiveOf(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (value === 'replace' || value === 'delete' || value === 'merge') return value;
  throw new Error(`${where}: $patch ${JSON.stringify(value)}: expected replace, delete or merge`);
}

/** The key fields a list's elements are matched by, or none when the list is replaced (or a set). */
function listKeys(place: Place, lists: unknown[][]): string[] | 'set' | undefined {
  if (place.list) return place.list === 'set' ? 'set' : [...place.list.keys];
  if (place.schema) return undefined;
  const elements = lists.flat();
  if (elements.length === 0 || !elements.every(isObject)) return undefined;
  const key = ASSOCIATIVE_KEYS.find((candidate) => elements.every((element) => Object.hasOwn(element as Json, candidate)));
  return key === undefined ? undefined : [key];
}

/** Two elements are the same when their keys agree wherever both have a value, and some key is shared. */
function sameElement(a: Json, b: Json, keys: string[]): boolean {
  let shared = false;
  for (const key of keys) {
    const [x, y] = [a[key], b[key]];
    if (x === undefined || x === null || y === undefined || y === null) continue;
    if (String(x) !== String(y)) return false;
    shared = true;
  }
  return shared;
}

function mergeList(dest: unknown, patch: unknown[], place: Place, where: string): unknown {
  const replaced = patch.findIndex(
    (element) => isObject(element) && Object.keys(element).length === 1 && Object.hasOwn(element, DIRECTIVE),
  );
  let elements = patch;
  if (replaced !== -1) {
    const directive = directiveOf((patch[replaced] as Json)[DIRECTIVE], `${where}[${replaced}]`);
    elements = patch.filter((_, index) => index !== replaced);
    if (directive === 'delete') return REMOVED;
    if (directive === 'replace') return mergeList(undefined, elements, place, where);
  }
  const current = Array.isArray(dest) ? dest : [];
  const keys = listKeys(place, [current, elements]);
  if (keys === undefined) return elements.map((element, index) => normalised(element, elementOf(place), `${where}[${index}]`));
  // kustomize merges with the patch's elements first (ListIncreaseDirection prepend): each in the patch's
  // order, merged with its element of the resource, then the resource's elements the patch does not name.
  // Every element of both lists is visited: charged, so a foreach patching a long list stops on the budget.
  place.budget.charge(current.length + elements.length);
  if (keys === 'set') {
    const out: unknown[] = [];
    for (const value of [...elements, ...current]) if (!out.some((seen) => JSON.stringify(seen) === JSON.stringify(value))) out.push(value);
    return out;
  }
  const out: unknown[] = [];
  const taken = new Set<number>();
  for (const [index, element] of elements.entries()) {
    const match = isObject(element)
      ? current.findIndex((existing, position) => !taken.has(position) && isObject(existing) && sameElement(existing, element, keys))
      : -1;
    if (match !== -1) taken.add(match);
    const merged = mergeValue(match === -1 ? undefined : current[match], element, elementOf(place), `${where}[${index}]`);
    if (merged !== REMOVED && !(isObject(merged) && Object.keys(merged).length === 0)) out.push(merged);
  }
  for (const [position, existing] of current.entries()) if (!taken.has(position)) out.push(existing);
  return out;
}

const normalised = (value: unknown, place: Place, where: string): unknown => mergeValue(undefined, value, place, where);

function mergeValue(dest: unknown, patch: unknown, place: Place, where: string): unknown {
  if (patch === null) return REMOVED;
  if (Array.isArray(patch)) return mergeList(dest, patch, place, where);
  if (!isObject(patch)) return patch;
  const directive = directiveOf(patch[DIRECTIVE], where);
  if (directive === 'delete') return REMOVED;
  const base = directive !== 'replace' && isObject(dest) ? dest : {};
  const out: Json = {};
  // Assigned, which keeps the object's fast shape; `__proto__` only is defined, as assigning it sets the prototype.
  const put = (key: string, value: unknown) => {
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  };
  for (const [key, value] of Object.entries(base)) if (!Object.hasOwn(patch, key)) put(key, value);
  for (const [key, value] of Object.entries(patch)) {
    if (key === DIRECTIVE) continue;
    const merged = mergeValue(base[key], value, fieldOf(place, key), `${where}.${key}`);
    if (merged !== REMOVED) put(key, merged);
  }
  return out;
}

/**
 * The resource with the patch merged in, by the schema of its kind (`type`, with `schema` when it is known),
 * every list element visited charged to `budget`.
 */
export function strategicMerge(resource: unknown, patch: unknown, type: TypeShape, schema: boolean, budget: CostBudget): unknown {
  const merged = mergeValue(resource, patch, { type, schema, budget }, '');
  return merged === REMOVED ? {} : merged;
}
