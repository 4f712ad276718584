// `fleet.yaml`, beside the rules documents: the clusters of a fleet with their labels, and the overrides that
// change what a group of clusters does on a violation, so a policy is rolled out group by group (Azure
// Policy's assignment overrides, Kyverno's validationFailureActionOverrides, by cluster instead of namespace).
// Placement itself is written on the policies (placement.ts); this document says what the labels are.
// @example
// clusters:
//   - name: prod-eu
//     labels: { env: prod, region: eu-west-1 }
//     eks: { endpoint: https://ABC.gr7.eu-west-1.eks.amazonaws.com, certificateAuthority: LS0t… }
// overrides:
//   - policies: [require-team-label]
//     clusters: "env in (staging,dev)"
//     action: Warn
import { ClusterNameSchema } from '../config.js';
import {
  type LabelRequirement,
  labelKeyProblem,
  labelValueProblem,
  parseSelectorText,
  SelectorTextSchema,
} from '../kubernetes/label-selector-text.js';
import { formatPath, issueLines } from '../schema-issues.js';
import * as v from '../schema.js';

/** Where the fleet is described, beside the rules documents (RULES_PREFIX in the bucket, RULES_DIR). */
export const FLEET_FILE = 'fleet.yaml';

/** Every cluster has this label, its own name, so a selector can name one cluster. */
export const CLUSTER_NAME_LABEL = 'portcullis.dev/cluster';

const LabelsSchema = v.pipe(
  v.record(v.string(), v.string()),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const [key, value] of Object.entries(dataset.value)) {
      const problem =
        key === CLUSTER_NAME_LABEL
          ? `${CLUSTER_NAME_LABEL} is every cluster's own name, set by Portcullis`
          : (labelKeyProblem(key) ?? labelValueProblem(value));
      if (problem) addIssue({ path: v.issuePath(key), message: problem });
    }
  }),
);

/**
 * How the scheduled functions reach an EKS cluster (its snapshot, its background audit): `aws eks
 * describe-cluster` gives the endpoint and certificate authority. Its Kubernetes access is the least RBAC
 * `portcullis cluster rbac --cluster <name>` prints, bound to the group an access entry maps their role to.
 */
const EksSchema = v.strictObject({
  /** The EKS cluster's own name, which its token is for (default: the cluster's name). */
  cluster: v.optional(v.pipe(v.string(), v.minLength(1))),
  endpoint: v.pipe(v.string(), v.url(), v.startsWith('https://', 'expected an https:// URL')),
  /** Base64 PEM, as `describe-cluster … certificateAuthority.data` gives it. */
  certificateAuthority: v.pipe(v.string(), v.minLength(1)),
  /** The region whose STS signs its token (default: the function's). */
  region: v.optional(v.pipe(v.string(), v.regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'expected an AWS region such as eu-west-1'))),
});
export type EksAccess = v.InferOutput<typeof EksSchema>;

const FleetClusterSchema = v.strictObject({
  name: ClusterNameSchema,
  labels: v.optional(LabelsSchema, () => ({})),
  eks: v.optional(EksSchema),
});

const ACTION_EXPECTED =
  'expected Audit or Warn: an override only weakens what a policy does on a violation; to enforce more, change the policy';

const OverrideSchema = v.strictObject({
  /** The policies it changes, as reports name them: a manifest's name, or a native rule's. */
  policies: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1, 'required: name at least one policy')),
  /** The clusters it applies to: a selector over their labels. */
  clusters: SelectorTextSchema,
  action: v.picklist(['Audit', 'Warn'], ACTION_EXPECTED),
});

export const FleetSchema = v.strictObject({
  clusters: v.optional(v.array(FleetClusterSchema), () => []),
  overrides: v.optional(v.array(OverrideSchema), () => []),
});

export type OverrideAction = 'Audit' | 'Warn';

export interface Override {
  policies: ReadonlySet<string>;
  /** As written, for messages and `fleet plan`. */
  clusters: string;
  selector: readonly LabelRequirement[];
  action: OverrideAction;
}

export interface Fleet {
  /** Each cluster's labels, its name label included. */
  clusters: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** How the scheduled functions reach each EKS cluster that says. */
  eks: ReadonlyMap<string, EksAccess>;
  overrides: readonly Override[];
}

export type ParsedFleet = { ok: true; fleet: Fleet } | { ok: false; errors: string[] };

/** The fleet a parsed fleet.yaml describes, or every error in it (each naming its field). */
export function fleetOf(data: unknown): ParsedFleet {
  const parsed = v.safeParse(FleetSchema, data ?? {});
  if (!parsed.success) return { ok: false, errors: issueLines(parsed.issues) };
  const errors: string[] = [];
  const clusters = new Map<string, Readonly<Record<string, string>>>();
  const eks = new Map<string, EksAccess>();
  parsed.output.clusters.forEach(({ name, labels, eks: access }, index) => {
    if (clusters.has(name)) errors.push(`${formatPath(['clusters', index, 'name'])}: cluster ${name} is listed twice`);
    clusters.set(name, { ...labels, [CLUSTER_NAME_LABEL]: name });
    if (access) eks.set(name, access);
  });
  const overrides = parsed.output.overrides.map(({ policies, clusters: text, action }) => {
    const selector = parseSelectorText(text);
    return { policies: new Set(policies), clusters: text, selector: selector.ok ? selector.requirements : [], action };
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, fleet: { clusters, eks, overrides } };
}

/** The labels a cluster has: fleet.yaml's, else only its name (a cluster fleet.yaml does not list, or no fleet). */
export function labelsOfCluster(fleet: Fleet | undefined, cluster: string): Readonly<Record<string, string>> {
  return fleet?.clusters.get(cluster) ?? { [CLUSTER_NAME_LABEL]: cluster };
}
