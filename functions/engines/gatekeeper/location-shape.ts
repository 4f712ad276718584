// A location checked against the schema of the built-in kinds its mutator applies to, where Kubernetes' schema
// says what a field is (admission/kubernetes/apply-schema.ts): a list selector on a field that is an object,
// a map or a list of values, or a field step into a list of objects, would fail on every object of that kind,
// so it is refused at upload, naming the field. Fields the schema says nothing about (a scalar, a struct
// merged by default, a custom resource's) are not judged.
import { type FieldShape, type TypeShape, TYPES, typeOfKind } from '../../admission/kubernetes/apply-schema.js';
import { type Location, locationText } from './location.js';

const isKeyedList = (shape: FieldShape | undefined): shape is Exclude<FieldShape, string> => typeof shape === 'object';

/** Why the location cannot fit the kind's objects, or undefined when it can (or the schema cannot tell). */
export function locationShapeProblem(location: Location, group: string, kind: string): string | undefined {
  let type: TypeShape | undefined = typeOfKind(group, kind).type;
  for (let depth = 0; depth < location.length && type; depth++) {
    const node = location[depth]!;
    if (node.type !== 'object') return undefined;
    const field: FieldShape | undefined = type.fields?.[node.reference];
    const next = location[depth + 1];
    const at = locationText(location.slice(0, depth + 1));
    if (isKeyedList(field)) {
      if (next?.type === 'object')
        return `${at} is a list in ${kind}'s schema: select its members with [${field.keys[0]}: …] before .${next.reference}`;
      type = field.of ? TYPES[field.of] : undefined;
      depth++;
    } else if (field === 'set' || field === 'atomic-map') {
      if (next?.type === 'list')
        return `${at} is ${field === 'set' ? 'a list of values' : 'a map'} in ${kind}'s schema, not a list of objects: [${next.keyField}: …] cannot select in it`;
      type = undefined;
    } else if (typeof field === 'string') {
      if (next?.type === 'list') return `${at} is an object in ${kind}'s schema, not a list: [${next.keyField}: …] cannot select in it`;
      type = TYPES[field];
    } else type = undefined;
  }
  return undefined;
}
