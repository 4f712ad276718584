// Kyverno's JMESPath functions (pkg/engine/jmespath, its documentation's list), registered on the JMESPath
// library once. Regular expressions run on RE2 (linear time; the rule loads it before it runs, see
// usesRegex). Time functions read the evaluation's clock, never the system's. Functions that need what the
// function cannot have (random, DNS, the image registry) are not registered: a policy calling one is
// refused when it is read (unsupportedFunctions).
import { registerFunction, TYPE_ARRAY, TYPE_OBJECT } from '@jmespath-community/jmespath';
import { parse as parseYaml } from 'yaml';
import { parseImageReference } from '../../../admission/kubernetes/image-reference.js';
import { x509Decode } from '../../runtime/go/x509-decode.js';
import { imageInfo } from '../context/rule-data.js';
import { ARITHMETIC_FUNCTIONS } from './arithmetic-functions.js';
import { STRING_FUNCTIONS } from './string-functions.js';
import { TIME_FUNCTIONS } from './time-functions.js';
import { type Arguments, string, stringOrNumber, fail, type FunctionEntry } from './function-signatures.js';

const crypto = () => process.getBuiltinModule('node:crypto') as typeof import('node:crypto');

const FUNCTIONS: FunctionEntry[] = [
  ...STRING_FUNCTIONS,
  [
    'to_boolean',
    ([text]) => {
      const lower = (text as string).toLowerCase();
      if (lower === 'true' || lower === 'false') return lower === 'true';
      return fail('to_boolean', `${JSON.stringify(text)} is not true or false`);
    },
    [string],
  ],
  ['base64_decode', ([text]) => Buffer.from(text as string, 'base64').toString('utf8'), [string]],
  ['base64_encode', ([text]) => Buffer.from(text as string, 'utf8').toString('base64'), [string]],
  ['parse_json', ([text]) => JSON.parse(text as string), [string]],
  ['parse_yaml', ([text]) => parseYaml(text as string) ?? null, [string]],
  [
    'items',
    ([source, keyName, valueName]) => {
      if (Array.isArray(source)) return source.map((value, index) => ({ [keyName as string]: index, [valueName as string]: value }));
      return Object.keys(source as object)
        .sort()
        .map((key) => ({ [keyName as string]: key, [valueName as string]: (source as Record<string, unknown>)[key] }));
    },
    [{ types: [TYPE_OBJECT, TYPE_ARRAY] }, string, string],
  ],
  [
    'object_from_lists',
    ([keys, values]) => Object.fromEntries((keys as unknown[]).map((key, index) => [String(key), (values as unknown[])[index] ?? null])),
    [{ types: [TYPE_ARRAY] }, { types: [TYPE_ARRAY] }],
  ],
  [
    'lookup',
    ([source, key]) => {
      if (Array.isArray(source))
        return Number.isInteger(key) ? (source[key as number] ?? null) : fail('lookup', 'an array is looked up by an integer');
      return Object.hasOwn(source as object, String(key)) ? (source as Record<string, unknown>)[String(key)] : null;
    },
    [{ types: [TYPE_OBJECT, TYPE_ARRAY] }, stringOrNumber],
  ],
  [
    'image_normalize',
    // Kyverno's GetImageInfo(image).String(): the path as written and `latest` when untagged, as `images` has it.
    ([image]) =>
      (parseImageReference(image as string) && imageInfo(image)?.reference) ??
      fail('image_normalize', `${JSON.stringify(image)} is not an image reference`),
    [string],
  ],
  [
    'x509_decode',
    ([text]) => {
      try {
        return x509Decode(String(text));
      } catch (error) {
        return fail('x509_decode', (error as Error).message);
      }
    },
    [string],
  ],
  // Hex of the text's SHA-256; node:crypto is loaded the first time a policy asks for it.
  ['sha256', ([text]) => crypto().createHash('sha256').update(String(text)).digest('hex'), [string]],
  ...ARITHMETIC_FUNCTIONS,
  ...TIME_FUNCTIONS,
];

// Kyverno's own definition wins where the community library has a function of the same name (replace, split).
for (const [name, handler, signature] of FUNCTIONS)
  registerFunction(name, (args) => handler(args as Arguments) as never, signature as never, { override: true });

/** Kyverno's functions that are not here, and why: a policy calling one is refused when it is read. */
export const UNSUPPORTED_FUNCTIONS: Record<string, string> = {
  random: 'random answers differently each time, so a decision could not be reproduced',
  is_external_url: 'is_external_url resolves host names through DNS, which an admission decision must not wait on',
};
