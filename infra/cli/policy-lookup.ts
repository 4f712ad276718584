// Policies by name, for every command that takes one: an unknown name is a usage error listing the known.
import type { Policy } from '../../functions/admission/policy.js';
import { policyRegistry } from '../../functions/registry.js';
import { UsageError } from './cli-errors.js';

export const policyNames = () => policyRegistry.map((policy) => policy.name);

export function policyNamed(name: string, hint = ''): Policy<never> {
  const policy = policyRegistry.find((candidate) => candidate.name === name);
  if (!policy) throw new UsageError(`unknown policy "${name}"; known: ${policyNames().join(', ')}${hint}`);
  return policy;
}
