// Server-side apply's merge of an apply configuration into an object, as a MutatingAdmissionPolicy's
// ApplyConfiguration mutation does it (structured-merge-diff's Merge, without field ownership): maps merged key
// by key, associative lists merged element by element on their keys, sets by value, scalars taken from the
// configuration. As Kubernetes does, a configuration that sets an atomic list, struct or map is refused rather
// than merged, because everything it leaves out would be deleted. The schema is ./apply-schema.ts.
import { type FieldShape, type KeyedList, TYPES, type TypeShape } from './apply-schema.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field's shape resolved: a struct's type, a keyed list or set, an atomic map, or nothing known (default). */
interface Resolved {
  type?: TypeShape;
  list?: KeyedList | 'set';
  atomicMap?: boolean;
}

const DEFAULT: Resolved = {};

function resolve(shape: FieldShape | undefined): Resolved {
  if (shape === undefined) return DEFAULT;
  if (shape === 'set') return { list: 'set' };
  if (shape === 'atomic-map') return { atomicMap: true };
  if (typeof shape === 'string') return { type: TYPES[shape] };
  return { list: shape };
}

const fieldOf = (field: Resolved, key: string): Resolved =>
  resolve(field.type?.fields && Object.hasOwn(field.type.fields, key) ? field.type.fields[key] : undefined);
const elementOf = (list: KeyedList | 'set'): Resolved => (list === 'set' || !list.of ? DEFAULT : { type: TYPES[list.of] });

/** An element's identity in its list: its key fields (or defaults) for a keyed list, its value for a set. */
function keyOf(list: KeyedList | 'set', element: unknown, path: string): string {
  if (list === 'set') {
    if (isObject(element) || Array.isArray(element))
      throw new Error(`${path}: a set holds scalars, found ${Array.isArray(element) ? 'a list' : 'a map'}`);
    return JSON.stringify(element);
  }
  if (!isObject(element)) throw new Error(`${path}: expected a map with ${list.keys.join(', ')}`);
  return JSON.stringify(
    list.keys.map((key) => {
      const value = element[key] ?? list.defaults?.[key];
      if (value === undefined || value === null)
        throw new Error(`${path}: associative list with keys has an element that omits key field ${JSON.stringify(key)}`);
      if (typeof value === 'object') throw new Error(`${path}.${key}: a list key must be a scalar`);
      return value;
    }),
  );
}

/** Every place the configuration sets an atomic list, struct or map, and any element a list cannot key. */
function problemsOf(value: unknown, field: Resolved, path: string, problems: string[]): void {
  if (Array.isArray(value)) {
    if (!field.list) {
      problems.push(path || '.');
      return;
    }
    const seen = new Set<string>();
    for (const [index, element] of value.entries()) {
      const at = `${path}[${index}]`;
      const key = keyOf(field.list, element, at);
      if (seen.has(key)) throw new Error(`${at}: duplicate entries for key ${key}`);
      seen.add(key);
      problemsOf(element, elementOf(field.list), at, problems);
    }
    return;
  }
  if (!isObject(value)) return;
  if (field.atomicMap || field.type?.atomic) {
    problems.push(path || '.');
    return;
  }
  for (const [key, item] of Object.entries(value)) problemsOf(item, fieldOf(field, key), `${path}.${key}`, problems);
}

/** The order structured-merge-diff gives a merged list: the live order, with the configuration's new elements where it puts them. */
function mergeList(live: unknown[], applied: unknown[], list: KeyedList | 'set', path: string, typed: boolean): unknown[] {
  const element = elementOf(list);
  const liveKeys = live.map((item, index) => keyOf(list, item, `${path}[${index}]`));
  const appliedKeys = applied.map((item, index) => keyOf(list, item, `${path}[${index}]`));
  // A key live holds twice is not merged with either: the configuration's element replaces both.
  const liveByKey = new Map<string, unknown>();
  for (const [index, key] of liveKeys.entries()) liveByKey.set(key, liveByKey.has(key) ? null : live[index]);
  const appliedByKey = new Map(appliedKeys.map((key, index) => [key, applied[index]]));
  const shared = appliedKeys.filter((key) => liveByKey.has(key));
  let nextShared = 0;
  const merged = new Set<string>();
  const out: unknown[] = [];
  const take = (key: string) => {
    merged.add(key);
    out.push(mergeValue(liveByKey.get(key) ?? undefined, appliedByKey.get(key), element, path, typed));
  };
  let l = 0;
  let r = 0;
  while (l < live.length || r < applied.length) {
    if (l < live.length && r < applied.length) {
      if (liveKeys[l] === appliedKeys[r]) {
        take(liveKeys[l]!);
        l++;
        r++;
        nextShared++;
        continue;
      }
      const upcoming = shared[nextShared];
      if (appliedByKey.has(liveKeys[l]!) && upcoming !== undefined && upcoming !== liveKeys[l]) {
        l++;
        continue;
      }
    }
    if (l < live.length) {
      const key = liveKeys[l]!;
      if (!appliedByKey.has(key)) {
        out.push(live[l]);
        l++;
        continue;
      }
      if (merged.has(key)) l++;
    }
    if (r < applied.length) {
      const key = appliedKeys[r]!;
      take(key);
      r++;
      if (shared[nextShared] === key) nextShared++;
    }
  }
  return out;
}

function mergeValue(live: unknown, applied: unknown, field: Resolved, path: string, typed: boolean): unknown {
  if (applied === undefined) return live;
  if (Array.isArray(applied)) {
    const current = Array.isArray(live) ? live : [];
    if (!field.list || (current.length === 0 && applied.length === 0)) return applied;
    return mergeList(current, applied, field.list, path, typed);
  }
  if (!isObject(applied)) return applied;
  const base = isObject(live) ? live : {};
  const out: Json = {};
  // Assigned, which keeps the object's fast shape; `__proto__` only is defined, as assigning it sets the prototype.
  const put = (key: string, value: unknown) => {
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  };
  for (const [key, value] of Object.entries(base)) {
    if (!Object.hasOwn(applied, key)) put(key, value);
    // A field the configuration sets to null is left out, as the typed object Kubernetes returns leaves it.
    else if (applied[key] !== null) put(key, mergeValue(value, applied[key], fieldOf(field, key), `${path}.${key}`, typed));
  }
  for (const [key, value] of Object.entries(applied)) {
    if (Object.hasOwn(base, key) || value === null) continue;
    const merged = mergeValue(undefined, value, fieldOf(field, key), `${path}.${key}`, typed);
    // A built-in kind's typed object omits an empty list or map, so one the configuration adds is not there.
    if (!(typed && isEmpty(merged))) put(key, merged);
  }
  return out;
}

const isEmpty = (value: unknown) => (Array.isArray(value) ? value.length === 0 : isObject(value) && Object.keys(value).length === 0);

/**
 * The object with the apply configuration merged in; an error says which field the configuration may not
 * set. `typed`: the object is of a built-in kind, which Kubernetes returns as its typed object.
 */
export function applyConfiguration(object: Json, configuration: Json, type: TypeShape, typed: boolean): Json {
  const problems: string[] = [];
  problemsOf(configuration, { type }, '', problems);
  if (problems.length > 0) throw new Error(`may not mutate atomic arrays, maps or structs: ${problems.join(', ')}`);
  return mergeValue(object, configuration, { type }, '', typed) as Json;
}
