// Kyverno's CEL functions that need nothing outside the request, so they run here as in Kyverno: the user
// library's parseServiceAccount. (Its lookups of the cluster, registries and HTTP are refused at compile.)
import type { Environment } from '@marcbachmann/cel-js';

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

/** The functions registered here, which the API server's own CEL environment does not have. */
export const KYVERNO_FUNCTIONS = ['parseServiceAccount'];

export function registerKyvernoLibrary(env: Environment): void {
  env.registerFunction('parseServiceAccount(string): map', parseServiceAccount);
}
