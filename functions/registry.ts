// Every policy Portcullis ships, in one list, for the tools that work on all of them (`npm run invoke`
// today; the webhook-configuration generator and serverless.yml's function list are to read it too).
import type { Policy } from './admission/policy.js';
import { trustedRegistryPolicy } from './trusted-registry/policy.js';

export const policyRegistry: readonly Policy<never>[] = [trustedRegistryPolicy as Policy<never>];

