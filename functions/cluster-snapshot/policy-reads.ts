// What the uploaded policies read of the cluster, as the snapshot writers derive it: every rule's reads
// (its engine says them: engines/engine.ts clusterReads), across the documents of the functions that run
// uploaded manifests, each collection once. Never "everything": a snapshot holds what a policy reads.
import { type ClusterRead, describeRead, uniqueReads } from '../admission/cluster/cluster-reads.js';
import type { Policy } from '../admission/policy.js';
import type { RulesDocument } from '../admission/rules/rules-document-schema.js';

export interface PolicyRules {
  policy: Policy<never>;
  document: RulesDocument<never>;
}

/** Each collection once, in the order of their descriptions: the same reads make the same snapshot and RBAC. */
export function readsOfPolicies(documents: readonly PolicyRules[]): ClusterRead[] {
  const reads = uniqueReads(
    documents.flatMap(({ policy, document }) => document.rules.flatMap((rule) => [...(policy.clusterReads?.(rule.parameters) ?? [])])),
  );
  return reads.sort((a, b) => describeRead(a).localeCompare(describeRead(b)));
}
