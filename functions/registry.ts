// Every policy Portcullis ships, in one list, for the tools that work on all of them (`portcullis invoke`,
// the policy CLI, the local stack and its webhook configuration, the tests).
import type { Policy } from './admission/policy.js';
import { auditLogPolicy } from './audit-log/policy.js';
import { celPolicy } from './cel/policy.js';
import { deployWindowsPolicy } from './deploy-windows/policy.js';
import { disableServiceLinksPolicy } from './disable-service-links/policy.js';
import { mutationsPolicy } from './mutations/policy.js';
import { registryMirrorPolicy } from './registry-mirror/policy.js';
import { replicaLimitsPolicy } from './replica-limits/policy.js';
import { requiredLabelsPolicy } from './required-labels/policy.js';
import { trustedRegistryPolicy } from './trusted-registry/policy.js';

// Each policy's parameters type is its own; the tools handle them as opaque values.
const erased = <P>(policy: Policy<P>) => policy as unknown as Policy<never>;

export const policyRegistry: readonly Policy<never>[] = [
  erased(trustedRegistryPolicy),
  erased(replicaLimitsPolicy),
  erased(deployWindowsPolicy),
  erased(requiredLabelsPolicy),
  erased(celPolicy),
  erased(auditLogPolicy),
  erased(registryMirrorPolicy),
  erased(disableServiceLinksPolicy),
  erased(mutationsPolicy),
];
