// Lambda entry point for mutations: the policy wired into the shared admission stack. Creating the handler
// starts the first rules load, so it runs during Lambda's init phase and the first request joins it.
import { createAdmissionHandler } from '../admission/create-admission-handler.js';
import { mutationsPolicy } from './policy.js';

export const handler = createAdmissionHandler(mutationsPolicy);
