// Kyverno's CEL functions that need nothing outside the request, so they run here as in Kyverno: the user
// library's parseServiceAccount; the image library (parseImageReference, isImage and an image's parts,
// as go-containerregistry's name.ParseReference gives them); the hash library (sha1, sha256, md5 of a
// string, in hex); math.round; json.unmarshal. Kyverno's lookups of the cluster, registries and HTTP are
// refused at compile (program.ts); its time, transform, random, x509 and yaml libraries are not here,
// so an expression that calls them does not compile (an unknown function), never a failure at admission.
import type { Environment } from '@marcbachmann/cel-js';
import { parseImageReference } from '../../admission/kubernetes/image-reference.js';
import { accepts } from './accepts.js';
import { PROTOTYPE_KEYS } from '../values.js';
import { registerNamespace } from './kubernetes.js';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** `system:serviceaccount:<namespace>:<name>` as { Namespace, Name }; other users give empty strings. */
function parseServiceAccount(username: string): Map<string, string> {
  const [namespace, name, ...rest] = username.startsWith(SERVICE_ACCOUNT_PREFIX) ? username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':') : [];
  const valid = namespace && name && rest.length === 0;
  return new Map([
    ['Namespace', valid ? namespace : ''],
    ['Name', valid ? name : ''],
  ]);
}

/** An image reference as Kyverno's image library gives it: a tag or a digest, never both. */
export class KyvernoImage {
  constructor(
    readonly registry: string,
    readonly repository: string,
    readonly tag: string,
    readonly digest: string,
  ) {}
}

// go-containerregistry names Docker Hub by its API host, and a reference with a digest is a digest
// reference (its tag, if written, is dropped); one with neither is the tag `latest`.
const DOCKER_HUB_REGISTRY = 'index.docker.io';
const DEFAULT_TAG = 'latest';

function parseKyvernoImage(text: string): KyvernoImage {
  const reference = parseImageReference(text);
  if (!reference) throw new Error(`could not parse reference: ${text}`);
  const registry = reference.registry === 'docker.io' ? DOCKER_HUB_REGISTRY : reference.registry;
  return new KyvernoImage(registry, reference.repository, reference.digest ? '' : (reference.tag ?? DEFAULT_TAG), reference.digest ?? '');
}

/** A string's digest in hex, as Kyverno's hash library gives it; node:crypto is loaded on the first use. */
const hexDigest = (algorithm: 'sha1' | 'sha256' | 'md5') => (text: string) =>
  process.getBuiltinModule('node:crypto').createHash(algorithm).update(text, 'utf8').digest('hex');

/** Go's math.Round(value × 10^precision) / 10^precision: halves round away from zero. */
function round(value: number, precision: bigint): number {
  const shift = 10 ** Number(precision);
  const scaled = value * shift;
  return (Math.sign(scaled) * Math.round(Math.abs(scaled))) / shift;
}

// A JSON object with a key Object.prototype has becomes a Map, as toCel makes it (program.ts).
const hasPrototypeKey = (value: object) => Object.keys(value).some((key) => PROTOTYPE_KEYS.has(key));

/**
 * JSON text as Go's encoding/json decodes it into `any`, and Kyverno hands it to CEL: objects are maps,
 * every number is a double (not an int), invalid text is an error.
 */
function unmarshal(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) && hasPrototypeKey(value) ? new Map(Object.entries(value)) : value,
  );
}

/** The functions registered here, which the API server's own CEL environment does not have. */
export const KYVERNO_FUNCTIONS = ['parseServiceAccount', 'parseImageReference', 'isImage', 'sha1', 'sha256', 'md5', 'round', 'unmarshal'];

export function registerKyvernoLibrary(env: Environment): void {
  env.registerFunction('parseServiceAccount(string): map', parseServiceAccount);
  env.registerType('kyverno.Image', KyvernoImage);
  env.registerFunction('parseImageReference(string): kyverno.Image', parseKyvernoImage);
  env.registerFunction('isImage(string): bool', accepts(parseKyvernoImage));
  env.registerFunction('kyverno.Image.registry(): string', (image: KyvernoImage) => image.registry);
  env.registerFunction('kyverno.Image.repository(): string', (image: KyvernoImage) => image.repository);
  env.registerFunction('kyverno.Image.tag(): string', (image: KyvernoImage) => image.tag);
  env.registerFunction('kyverno.Image.digest(): string', (image: KyvernoImage) => image.digest);
  env.registerFunction('kyverno.Image.identifier(): string', (image: KyvernoImage) => image.digest || image.tag);
  env.registerFunction('kyverno.Image.containsDigest(): bool', (image: KyvernoImage) => image.digest !== '');
  for (const algorithm of ['sha1', 'sha256', 'md5'] as const) env.registerFunction(`${algorithm}(string): string`, hexDigest(algorithm));
  registerNamespace(env, 'math');
  env.registerFunction('math.round(double, int): double', (_namespace: unknown, value: number, precision: bigint) => round(value, precision));
  registerNamespace(env, 'json');
  env.registerFunction('json.unmarshal(string): dyn', (_namespace: unknown, text: string) => unmarshal(text));
}
