// How a rule's match block selects requests: the Namespace object is in itself whichever way the API server
// fills the request's namespace, and Gatekeeper's name, scope and reading of `namespaces`.
import { describe, expect, it } from 'vitest';
import { matchesRule } from '../../functions/admission/decide/match-rule.js';
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import type { Match } from '../../functions/admission/rules/rules-document-schema.js';
import { admissionReviewFor } from '../../infra/admission-event.js';

const requestFor = (manifest: unknown, namespace?: string) => {
  const request = admissionReviewFor(manifest).request as unknown as AdmissionRequest;
  return namespace === undefined ? request : { ...request, namespace };
};
const pod = (name: string, namespace: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace } });
const namespaceObject = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const clusterRole = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' } };
const everyKind = { defaultKinds: ['*'] };
const matches = (match: Match, request: AdmissionRequest) => matchesRule(request, { kinds: ['*'], ...match }, everyKind);

describe('match: a Namespace object is in the namespace it is', () => {
  it('created (the API server leaves the namespace empty) or changed (it sets it), the same answer', () => {
    for (const request of [requestFor(namespaceObject('kube-system'), ''), requestFor(namespaceObject('kube-system'))]) {
      expect(matches({ excludedNamespaces: ['kube-*'] }, request)).toBe(false);
      expect(matches({ namespaces: ['kube-system'] }, request)).toBe(true);
      expect(matches({ namespaces: ['prod'] }, request)).toBe(false);
    }
  });
});

describe("match: Gatekeeper's fields", () => {
  it('names: globs on the object name', () => {
    expect(matches({ names: ['web-*'] }, requestFor(pod('web-1', 'prod')))).toBe(true);
    expect(matches({ names: ['web-*'] }, requestFor(pod('api-1', 'prod')))).toBe(false);
  });

  it('scope: Cluster takes cluster-scoped objects (a Namespace among them), Namespaced the others', () => {
    expect(matches({ scope: 'Cluster' }, requestFor(clusterRole))).toBe(true);
    expect(matches({ scope: 'Cluster' }, requestFor(namespaceObject('prod')))).toBe(true);
    expect(matches({ scope: 'Cluster' }, requestFor(pod('web', 'prod')))).toBe(false);
    expect(matches({ scope: 'Namespaced' }, requestFor(pod('web', 'prod')))).toBe(true);
    expect(matches({ scope: 'Namespaced' }, requestFor(clusterRole))).toBe(false);
  });

  it('namespaces: a cluster-scoped object never matches the list, unless read as Gatekeeper reads it (it cannot disqualify)', () => {
    expect(matches({ namespaces: ['prod'] }, requestFor(clusterRole))).toBe(false);
    expect(matches({ namespaces: ['prod'], clusterScopedInNamespaces: true }, requestFor(clusterRole))).toBe(true);
    expect(matches({ namespaces: ['prod'], clusterScopedInNamespaces: true }, requestFor(pod('web', 'dev')))).toBe(false);
  });
});
