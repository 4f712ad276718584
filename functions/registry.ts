// Every policy Portcullis ships, in one list: serverless.yml's functions, `npm run invoke`, the webhook
// configuration generator and the tests all read it, so a new policy is added here and nowhere else.
import type { Policy } from './admission/policy.js';
import { trustedRegistryPolicy } from './trusted-registry/policy.js';

export const policyRegistry: readonly Policy<never>[] = [trustedRegistryPolicy as Policy<never>];

export function routeOf(policy: Pick<Policy<unknown>, 'name' | 'kind'>): string {
  return `/${policy.kind === 'validating' ? 'validate' : 'mutate'}/${policy.name}`;
}
