// Kyverno's CEL functions that need nothing outside the request, so they run here as in Kyverno: the user
// library's parseServiceAccount, and the image library (parseImageReference, isImage and an image's parts,
// as go-containerregistry's name.ParseReference gives them). Kyverno's lookups of the cluster, registries
// and HTTP are refused at compile (cel-program.ts).
import type { Environment } from '@marcbachmann/cel-js';
import { parseImageReference } from '../admission/kubernetes/image-reference.js';
import { accepts } from './accepts.js';

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

/** The functions registered here, which the API server's own CEL environment does not have. */
export const KYVERNO_FUNCTIONS = ['parseServiceAccount', 'parseImageReference', 'isImage'];

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
}
