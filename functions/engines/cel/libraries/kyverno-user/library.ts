// Kyverno's user library for CEL: parseServiceAccount, as Kyverno's pkg/cel/libs/user gives it.
import type { CelLibrary } from '../cel-library.js';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** `system:serviceaccount:<namespace>:<name>` as { Namespace, Name }; other users give empty strings. */
function parseServiceAccount(username: string): Map<string, string> {
  const [namespace, name, ...rest] = username.startsWith(SERVICE_ACCOUNT_PREFIX)
    ? username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':')
    : [];
  const valid = namespace && name && rest.length === 0;
  return new Map([
    ['Namespace', valid ? namespace : ''],
    ['Name', valid ? name : ''],
  ]);
}

export const kyvernoUserLibrary: CelLibrary = {
  name: 'kyverno.user',
  kyvernoOnly: true,
  functions: { 'parseServiceAccount(string): map': parseServiceAccount },
};
