// Every policy Portcullis ships, in one list, for the tools that work on all of them (`npm run invoke`,
// the policy CLI, the local stack and its webhook configuration, the tests).
import type { Policy } from './admission/policy.js';
import { disableServiceLinksPolicy } from './disable-service-links/policy.js';
import { registryMirrorPolicy } from './registry-mirror/policy.js';
import { trustedRegistryPolicy } from './trusted-registry/policy.js';

export const policyRegistry: readonly Policy<never>[] = [
  trustedRegistryPolicy as Policy<never>,
  registryMirrorPolicy as Policy<never>,
  disableServiceLinksPolicy as Policy<never>,
];
