// Lambda entry point for trusted-registry: the policy wired into the shared admission stack.
import { createAdmissionHandler } from '../admission/create-admission-handler.js';
import { trustedRegistryPolicy } from './policy.js';

export const handler = createAdmissionHandler(trustedRegistryPolicy);
