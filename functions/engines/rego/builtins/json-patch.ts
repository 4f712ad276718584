// json.patch (OPA's object category): RFC 6902 over Rego values, the document never changed (each step
// copies the containers along its path). Paths are JSON pointers or arrays of keys; a set's member is
// addressed by its value, `-` is past an array's end. replace and move are a remove then an add, as OPA's
// are, so a member of a set whose insides change is no longer found. A patch that does not apply is undefined.
import { unescapedSegment } from '../../../admission/kubernetes/json-patch-operations.js';
import { lookup } from '../collections.js';
import { equal, isObject, makeObject, objectEntries, RegoSet, sizeOf, type Value } from '../values.js';
import { type Builtin, type BuiltinContext, builtin } from './builtin.js';
import { array } from './operands.js';

class PatchFailure extends Error {}
const fail = (): never => {
  throw new PatchFailure();
};
/** A value the operation must have (null is one). */
const present = (value: Value | undefined): Value => (value === undefined ? fail() : value);

type Path = Value[];

function pathOf(value: Value | undefined): Path {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string') return fail();
  // OPA reads a pointer with its leading slashes trimmed: "foo/b" is "/foo/b".
  const trimmed = value.replace(/^\/+/, '');
  return trimmed === '' ? [] : trimmed.split('/').map(unescapedSegment);
}

/** An array index a path part names: digits without a leading zero, or a whole number. */
function indexOf(part: Value, length: number, append: boolean): number {
  if (append && part === '-') return length;
  const index = typeof part === 'string' && /^(0|[1-9][0-9]*)$/.test(part) ? Number(part) : typeof part === 'number' ? part : Number.NaN;
  if (!Number.isSafeInteger(index) || index < 0 || index > (append ? length : length - 1)) return fail();
  return index;
}

function child(container: Value, part: Value): Value {
  if (Array.isArray(container)) return container[indexOf(part, container.length, false)]!;
  if (container instanceof RegoSet || isObject(container)) return present(lookup(container, part));
  return fail();
}

function at(document: Value | undefined, path: Path): Value {
  let value: Value = present(document);
  for (const part of path) value = child(value, part);
  return value;
}

/** The document with the value at `path` changed by `change` (undefined: removed), containers copied and charged. */
function changed(
  document: Value | undefined,
  path: Path,
  change: (container: Value, last: Value) => Value,
  context: BuiltinContext,
): Value {
  if (document === undefined) return fail();
  context.charge(sizeOf(document));
  if (path.length === 1) return change(document, path[0]!);
  const [first, ...rest] = path;
  const inner = changed(child(document, first!), rest, change, context);
  return replaceChild(document, first!, inner);
}

function replaceChild(container: Value, part: Value, value: Value): Value {
  if (Array.isArray(container)) {
    const copy = [...container];
    copy[indexOf(part, container.length, false)] = value;
    return copy;
  }
  if (container instanceof RegoSet) {
    const members = [...container.values()].filter((member) => !equal(member, part));
    return new RegoSet([...members, value]);
  }
  if (isObject(container)) return makeObject([...objectEntries(container).filter(([key]) => !equal(key, part)), [part, value]]);
  return fail();
}

function add(document: Value | undefined, path: Path, value: Value, context: BuiltinContext): Value {
  if (path.length === 0) return value;
  const addTo = (container: Value, last: Value): Value => {
    if (Array.isArray(container)) {
      const copy = [...container];
      copy.splice(indexOf(last, container.length, true), 0, value);
      return copy;
    }
    // A set's member is its own key: it is added where the path names it.
    if (container instanceof RegoSet) return equal(last, value) ? new RegoSet([...container.values(), value]) : fail();
    if (isObject(container)) return makeObject([...objectEntries(container).filter(([key]) => !equal(key, last)), [last, value]]);
    return fail();
  };
  return changed(document, path, addTo, context);
}

function remove(document: Value | undefined, path: Path, context: BuiltinContext): Value | undefined {
  if (path.length === 0) return document === undefined ? fail() : undefined;
  const removeFrom = (container: Value, last: Value): Value => {
    child(container, last);
    if (Array.isArray(container)) return container.filter((_, index) => index !== indexOf(last, container.length, false));
    if (container instanceof RegoSet) return new RegoSet([...container.values()].filter((member) => !equal(member, last)));
    return makeObject(objectEntries(container as never).filter(([key]) => !equal(key, last)));
  };
  return changed(document, path, removeFrom, context);
}

function apply(document: Value | undefined, operation: Value, context: BuiltinContext): Value | undefined {
  if (!isObject(operation)) return fail();
  const field = (name: string) => lookup(operation, name);
  const op = field('op');
  const path = pathOf(field('path'));
  const value = field('value');
  switch (op) {
    case 'add':
      return add(document, path, present(value), context);
    case 'remove':
      return remove(document, path, context);
    case 'replace':
      at(document, path);
      return add(remove(document, path, context), path, present(value), context);
    case 'test':
      return equal(at(document, path), present(value)) ? document : fail();
    case 'copy':
      return add(document, path, at(document, pathOf(field('from'))), context);
    case 'move': {
      const from = pathOf(field('from'));
      // A node cannot move into its own child.
      if (path.length > from.length && from.every((part, index) => equal(part, path[index]!))) return fail();
      const moved = at(document, from);
      return add(remove(document, from, context), path, moved, context);
    }
    default:
      return fail();
  }
}

export const JSON_PATCH: Builtin[] = [
  builtin('json.patch', 2, (args, context) => {
    const operations = array(args, 1);
    let document: Value | undefined = args[0]!;
    try {
      for (const operation of operations) {
        context.charge(1);
        document = apply(document, operation, context);
      }
    } catch (error) {
      if (error instanceof PatchFailure) return undefined;
      throw error;
    }
    return document;
  }),
];
