// Where server-side apply's merge of the built-in kinds differs from its default for a field it knows nothing
// about (maps merged key by key, lists atomic): the associative lists and their keys, the sets, and the atomic
// structs and maps. Taken from Kubernetes' own schema for apply (client-go's applyconfigurations/internal,
// from the `+listType`, `+listMapKey`, `+structType` and `+mapType` markers of k8s.io/api). A field missing
// here is a scalar or a struct whose merge is the default all the way down, so it needs no entry. The same
// keyed lists are the ones strategic merge merges by key (`x-kubernetes-patch-strategy: merge`), but where
// marked otherwise.

/** An associative list: elements matched by these key fields (a missing key takes its default). */
export interface KeyedList {
  readonly keys: readonly string[];
  readonly of?: string;
  readonly defaults?: Readonly<Record<string, string>>;
  /** A list map without `x-kubernetes-patch-strategy: merge`: strategic merge replaces it. */
  readonly strategicMerge?: false;
}

/** A named struct, a keyed list, a set of scalars, or a map replaced whole. */
export type FieldShape = string | KeyedList | 'set' | 'atomic-map';

export interface TypeShape {
  /** Replaced whole by an apply, never merged (`+structType=atomic`). */
  readonly atomic?: true;
  readonly fields?: Readonly<Record<string, FieldShape>>;
}

const ATOMIC: TypeShape = { atomic: true };
const BY_NAME: KeyedList = { keys: ['name'] };
const CONDITIONS = { conditions: { keys: ['type'] } } as const;
const CONTAINERS: KeyedList = { keys: ['name'], of: 'Container' };
const SELECTED_TEMPLATE = { selector: 'LabelSelector', template: 'PodTemplateSpec' } as const;
const WITH_SECRET_REF = 'VolumeSourceWithSecretRef';

export const TYPES: Readonly<Record<string, TypeShape>> = {
  ObjectMeta: { fields: { finalizers: 'set', ownerReferences: { keys: ['uid'], of: 'OwnerReference' } } },
  OwnerReference: ATOMIC,
  LabelSelector: ATOMIC,
  ObjectReference: ATOMIC,
  LocalObjectReference: ATOMIC,
  TypedLocalObjectReference: ATOMIC,
  SecretReference: ATOMIC,
  ConfigMapKeySelector: ATOMIC,
  SecretKeySelector: ATOMIC,
  ObjectFieldSelector: ATOMIC,
  ResourceFieldSelector: ATOMIC,
  NodeSelector: ATOMIC,
  StatusWithConditions: { fields: CONDITIONS },

  PodTemplateSpec: { fields: { metadata: 'ObjectMeta', spec: 'PodSpec' } },
  PodSpec: {
    fields: {
      affinity: 'Affinity',
      containers: CONTAINERS,
      initContainers: CONTAINERS,
      ephemeralContainers: CONTAINERS,
      hostAliases: { keys: ['ip'] },
      imagePullSecrets: { keys: ['name'], of: 'LocalObjectReference' },
      nodeSelector: 'atomic-map',
      resourceClaims: BY_NAME,
      schedulingGates: BY_NAME,
      topologySpreadConstraints: { keys: ['topologyKey', 'whenUnsatisfiable'], of: 'TopologySpreadConstraint' },
      volumes: { keys: ['name'], of: 'Volume' },
    },
  },
  PodStatus: { fields: { ...CONDITIONS, podIPs: { keys: ['ip'] }, resourceClaimStatuses: BY_NAME } },
  Affinity: { fields: { nodeAffinity: 'NodeAffinity' } },
  NodeAffinity: { fields: { requiredDuringSchedulingIgnoredDuringExecution: 'NodeSelector' } },
  Container: {
    fields: {
      env: { keys: ['name'], of: 'EnvVar' },
      ports: { keys: ['containerPort', 'protocol'], defaults: { protocol: 'TCP' } },
      volumeDevices: { keys: ['devicePath'] },
      volumeMounts: { keys: ['mountPath'] },
      resources: 'ResourceRequirements',
    },
  },
  EnvVar: { fields: { valueFrom: 'EnvVarSource' } },
  EnvVarSource: {
    fields: {
      configMapKeyRef: 'ConfigMapKeySelector',
      fieldRef: 'ObjectFieldSelector',
      resourceFieldRef: 'ResourceFieldSelector',
      secretKeyRef: 'SecretKeySelector',
    },
  },
  ResourceRequirements: { fields: { claims: { keys: ['name'], strategicMerge: false } } },
  TopologySpreadConstraint: { fields: { labelSelector: 'LabelSelector' } },
  Volume: {
    fields: {
      cephfs: WITH_SECRET_REF,
      cinder: WITH_SECRET_REF,
      flexVolume: WITH_SECRET_REF,
      iscsi: WITH_SECRET_REF,
      rbd: WITH_SECRET_REF,
      scaleIO: WITH_SECRET_REF,
      storageos: WITH_SECRET_REF,
      csi: 'CSIVolumeSource',
      ephemeral: 'EphemeralVolumeSource',
    },
  },
  [WITH_SECRET_REF]: { fields: { secretRef: 'LocalObjectReference' } },
  CSIVolumeSource: { fields: { nodePublishSecretRef: 'LocalObjectReference' } },
  EphemeralVolumeSource: { fields: { volumeClaimTemplate: 'PersistentVolumeClaimTemplate' } },
  PersistentVolumeClaimTemplate: { fields: { metadata: 'ObjectMeta', spec: 'PersistentVolumeClaimSpec' } },
  PersistentVolumeClaimSpec: { fields: { dataSource: 'TypedLocalObjectReference', selector: 'LabelSelector' } },

  // The kinds.
  Pod: { fields: { metadata: 'ObjectMeta', spec: 'PodSpec', status: 'PodStatus' } },
  PodTemplate: { fields: { metadata: 'ObjectMeta', template: 'PodTemplateSpec' } },
  ReplicationController: { fields: { metadata: 'ObjectMeta', spec: 'ReplicationControllerSpec', status: 'StatusWithConditions' } },
  ReplicationControllerSpec: { fields: { selector: 'atomic-map', template: 'PodTemplateSpec' } },
  Workload: { fields: { metadata: 'ObjectMeta', spec: 'WorkloadSpec', status: 'StatusWithConditions' } },
  WorkloadSpec: { fields: SELECTED_TEMPLATE },
  Job: { fields: { metadata: 'ObjectMeta', spec: 'JobSpec' } },
  JobSpec: { fields: SELECTED_TEMPLATE },
  CronJob: { fields: { metadata: 'ObjectMeta', spec: 'CronJobSpec' } },
  CronJobSpec: { fields: { jobTemplate: 'JobTemplateSpec' } },
  JobTemplateSpec: { fields: { metadata: 'ObjectMeta', spec: 'JobSpec' } },
  Service: { fields: { metadata: 'ObjectMeta', spec: 'ServiceSpec', status: 'StatusWithConditions' } },
  ServiceSpec: { fields: { ports: { keys: ['port', 'protocol'], defaults: { protocol: 'TCP' } }, selector: 'atomic-map' } },
  ServiceAccount: { fields: { metadata: 'ObjectMeta', secrets: { keys: ['name'], of: 'ObjectReference' } } },
  Namespace: { fields: { metadata: 'ObjectMeta', status: 'StatusWithConditions' } },
  PersistentVolumeClaim: { fields: { metadata: 'ObjectMeta', spec: 'PersistentVolumeClaimSpec', status: 'StatusWithConditions' } },
  NetworkPolicy: { fields: { metadata: 'ObjectMeta', spec: 'NetworkPolicySpec' } },
  NetworkPolicySpec: { fields: { podSelector: 'LabelSelector' } },
  Ingress: { fields: { metadata: 'ObjectMeta', spec: 'IngressSpec' } },
  IngressSpec: { fields: { defaultBackend: 'IngressBackend' } },
  IngressBackend: { fields: { resource: 'TypedLocalObjectReference' } },
  PodDisruptionBudget: { fields: { metadata: 'ObjectMeta', spec: 'PodDisruptionBudgetSpec', status: 'StatusWithConditions' } },
  PodDisruptionBudgetSpec: { fields: { selector: 'LabelSelector' } },
  // Any other kind: its metadata is ObjectMeta; the rest merges by default.
  AnyKind: { fields: { metadata: 'ObjectMeta' } },
};

/** The type of each built-in kind with entries above, by API group and kind. */
const KINDS: Readonly<Record<string, string>> = {
  '/Pod': 'Pod',
  '/PodTemplate': 'PodTemplate',
  '/ReplicationController': 'ReplicationController',
  '/Service': 'Service',
  '/ServiceAccount': 'ServiceAccount',
  '/Namespace': 'Namespace',
  '/PersistentVolumeClaim': 'PersistentVolumeClaim',
  'apps/Deployment': 'Workload',
  'apps/ReplicaSet': 'Workload',
  'apps/DaemonSet': 'Workload',
  'apps/StatefulSet': 'Workload',
  'batch/Job': 'Job',
  'batch/CronJob': 'CronJob',
  'networking.k8s.io/NetworkPolicy': 'NetworkPolicy',
  'networking.k8s.io/Ingress': 'Ingress',
  'policy/PodDisruptionBudget': 'PodDisruptionBudget',
};

// The API groups of Kubernetes' own kinds; a kind of any other group is a custom resource.
const BUILT_IN_GROUPS = new Set([
  '',
  'apps',
  'batch',
  'autoscaling',
  'policy',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'node.k8s.io',
  'admissionregistration.k8s.io',
  'certificates.k8s.io',
  'apiextensions.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'resource.k8s.io',
  'events.k8s.io',
]);

/** The kinds whose merge follows their own schema here; any other kind merges by default past its metadata. */
export const KINDS_WITH_SCHEMA = Object.keys(KINDS).map((key) => key.replace(/^\//, ''));

/** The kind's type, and whether it is built in (its object typed, so empty fields are omitted). */
export function typeOfKind(group: string, kind: string): { type: TypeShape; builtIn: boolean } {
  const named = KINDS[`${group}/${kind}`];
  return { type: TYPES[named ?? 'AnyKind']!, builtIn: named !== undefined || BUILT_IN_GROUPS.has(group) };
}
