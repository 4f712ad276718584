// A fleet's rules folder for one test at a time, laid out as the bucket is (fleet.yaml, the fleet-wide
// documents, clusters/<cluster>/<policy>.yaml overlays), and a real handler reading it whose callers are known
// by their tokens only: the fleet tests' shared setup.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { configFromEnv } from '../../functions/admission/config.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import type { celPolicy } from '../../functions/cel/policy.js';
import type { mutationsPolicy } from '../../functions/mutations/policy.js';
import type { trustedRegistryPolicy } from '../../functions/trusted-registry/policy.js';
import { eventFor, type Handler, invoke, podManifest } from './invoke.js';
import { rulesFolderPerTest } from './rules-folder.js';

export const TOKENS = 'prod-eu=prod-eu-token-0123456789,prod-us=prod-us-token-0123456789,staging=staging-token-0123456789';
export const FLEET = `
clusters:
  - name: prod-eu
    labels: { env: prod, region: eu-west-1 }
  - name: prod-us
    labels: { env: prod, region: us-east-1 }
  - name: staging
    labels: { env: staging }
`;

/** Registers the folder's hooks (call it at a test file's top level): the folder, and handlers reading it. */
export function fleetFolderPerTest() {
  const folder = rulesFolderPerTest();
  const put = (path: string, text: string) => {
    const file = join(folder.dir(), path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  const handlerFor = (policy: typeof celPolicy | typeof trustedRegistryPolicy | typeof mutationsPolicy, env: Record<string, string> = {}) =>
    createAdmissionHandler(policy as never, {
      config: configFromEnv({ RULES_DIR: folder.dir(), RULES_TTL_SECONDS: '0', WEBHOOK_TOKENS: TOKENS, ...env }),
    }) as unknown as Handler;
  return { folder, put, handlerFor };
}

/** A request as the cluster named sends it: its token, and the route it was sent to when not the policy's own. */
export const from = (token: string, manifest: unknown, routed?: string) => {
  const event = eventFor(manifest);
  event.headers = { ...event.headers, authorization: `Bearer ${token}-token-0123456789` };
  if (routed) event.pathParameters = { policy: routed };
  return event;
};
export const answerOf = async (handler: Handler, cluster: string, manifest: unknown, routed?: string) =>
  (await invoke(handler, from(cluster, manifest, routed))).body.response;

/** A Kyverno-style VAP bundle with two policies; `require-team` placed on prod only. */
export const vap = (name: string, expression: string, message: string, annotations: Record<string, string> = {}, actions = ['Deny']) => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
  annotations: ${JSON.stringify(annotations)}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{ apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods] }]
  validations:
    - expression: ${JSON.stringify(expression)}
      message: ${JSON.stringify(message)}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: { name: ${name} }
spec:
  policyName: ${name}
  validationActions: ${JSON.stringify(actions)}
`;
export const TEAM = "has(object.metadata.labels) && 'team' in object.metadata.labels";
export const NO_LATEST = "object.spec.containers.all(c, !c.image.endsWith(':latest'))";
export const BUNDLE = [
  vap('require-team', TEAM, 'pods need a team label', { 'portcullis.dev/clusters': 'env=prod' }),
  vap('no-latest', NO_LATEST, 'no latest tags'),
].join('---\n');

export const bare = podManifest({ app: 'registry.example.com/app:latest' }, {});
export const teamless = { ...bare, metadata: { name: 'p' } };
