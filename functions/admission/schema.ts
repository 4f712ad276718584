// Validation for the whole project: valibot, imported from here (`import * as v from './schema.js'`).
// Chosen over zod/mini by measurement (the README's Dependencies), because schemas are built and first run
// on every cold start: valibot schemas are plain objects, zod's class instances with initialisers.
// One difference is corrected here: valibot's object and record schemas accept arrays (an array is an
// object with keys "0", "1"…), so `match: []` would read as an empty match. `object`, `strictObject` and
// `record` below refuse arrays first, as zod and Kubernetes' own decoding do; use them, never valibot's.
import * as v from 'valibot';

export * from 'valibot';

/** How an input is named in messages: `null`, `array`, `NaN`, else its typeof. */
export const kindOf = (input: unknown) =>
  input === null ? 'null' : Array.isArray(input) ? 'array' : Number.isNaN(input) ? 'NaN' : typeof input;

const anObject = v.custom<Record<string, unknown>>(
  (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
  (issue) => `expected object, received ${kindOf(issue.input)}`,
);

/** valibot's object (unknown keys dropped), refusing arrays. */
export const object = <const Entries extends v.ObjectEntries>(entries: Entries) => v.pipe(anObject, v.object(entries));

/**
 * An object whose unknown keys are errors, refusing arrays. Not valibot's strictObject, which names only the
 * first unknown key: every one is reported, with the entries' own errors, so one pass shows every bad field.
 */
export const strictObject = <const Entries extends v.ObjectEntries>(entries: Entries) =>
  // Typed as the strict object it checks, with no step to say so: every object of every rule passes here.
  v.pipe(
    anObject,
    v.looseObject(entries),
    v.rawCheck(({ dataset, addIssue }) => {
      for (const key of Object.keys(dataset.value as object))
        if (!Object.hasOwn(entries, key)) addIssue({ message: `unknown field "${key}"` });
    }),
  ) as unknown as v.GenericSchema<
    v.InferInput<v.StrictObjectSchema<Entries, undefined>>,
    v.InferOutput<v.StrictObjectSchema<Entries, undefined>>
  >;

/** valibot's record, refusing arrays. */
export const record = <
  const Key extends v.BaseSchema<string, string | number | symbol, v.BaseIssue<unknown>>,
  const Value extends v.BaseSchema<unknown, unknown, v.BaseIssue<unknown>>,
>(
  key: Key,
  value: Value,
) => v.pipe(anObject, v.record(key, value));

/** A path for an issue raised by a check on a whole object (rawCheck's addIssue), from plain keys. */
export const issuePath = (...keys: (string | number)[]): [v.IssuePathItem, ...v.IssuePathItem[]] =>
  keys.map((key) => ({ type: 'unknown', origin: 'value', input: undefined, key, value: undefined })) as [
    v.IssuePathItem,
    ...v.IssuePathItem[],
  ];
