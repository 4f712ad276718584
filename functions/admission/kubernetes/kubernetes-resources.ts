// The API group and resources of each built-in kind a rules document can name, for webhook `rules`. Scale
// is the `scale` subresource of the scalable workloads (`kubectl scale`), the one subresource a kind names.
// Custom resources are not here: a document names them with resourceRules (group and resource).

type Resource = { apiGroup: string; resource: string };

const KINDS_BY_GROUP: Record<string, Record<string, string>> = {
  '': {
    Pod: 'pods',
    Service: 'services',
    ConfigMap: 'configmaps',
    Secret: 'secrets',
    Namespace: 'namespaces',
    Node: 'nodes',
    PersistentVolume: 'persistentvolumes',
    PersistentVolumeClaim: 'persistentvolumeclaims',
    ServiceAccount: 'serviceaccounts',
    ReplicationController: 'replicationcontrollers',
    LimitRange: 'limitranges',
    ResourceQuota: 'resourcequotas',
    PodTemplate: 'podtemplates',
    Endpoints: 'endpoints',
    Event: 'events',
  },
  apps: {
    Deployment: 'deployments',
    StatefulSet: 'statefulsets',
    DaemonSet: 'daemonsets',
    ReplicaSet: 'replicasets',
    ControllerRevision: 'controllerrevisions',
  },
  batch: { Job: 'jobs', CronJob: 'cronjobs' },
  autoscaling: { HorizontalPodAutoscaler: 'horizontalpodautoscalers' },
  policy: { PodDisruptionBudget: 'poddisruptionbudgets' },
  'networking.k8s.io': { Ingress: 'ingresses', IngressClass: 'ingressclasses', NetworkPolicy: 'networkpolicies' },
  'rbac.authorization.k8s.io': {
    Role: 'roles',
    RoleBinding: 'rolebindings',
    ClusterRole: 'clusterroles',
    ClusterRoleBinding: 'clusterrolebindings',
  },
  'storage.k8s.io': {
    StorageClass: 'storageclasses',
    CSIDriver: 'csidrivers',
    CSINode: 'csinodes',
    VolumeAttachment: 'volumeattachments',
    CSIStorageCapacity: 'csistoragecapacities',
  },
  'scheduling.k8s.io': { PriorityClass: 'priorityclasses' },
  'node.k8s.io': { RuntimeClass: 'runtimeclasses' },
  'coordination.k8s.io': { Lease: 'leases' },
  'events.k8s.io': { Event: 'events' },
  'discovery.k8s.io': { EndpointSlice: 'endpointslices' },
  'certificates.k8s.io': { CertificateSigningRequest: 'certificatesigningrequests' },
  'apiextensions.k8s.io': { CustomResourceDefinition: 'customresourcedefinitions' },
  'apiregistration.k8s.io': { APIService: 'apiservices' },
  'admissionregistration.k8s.io': {
    ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
    ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
    ValidatingWebhookConfiguration: 'validatingwebhookconfigurations',
    MutatingWebhookConfiguration: 'mutatingwebhookconfigurations',
  },
  'flowcontrol.apiserver.k8s.io': { FlowSchema: 'flowschemas', PriorityLevelConfiguration: 'prioritylevelconfigurations' },
};

/** Built-in kinds that live outside namespaces (an audit reports them in the ClusterPolicyReport). */
export const CLUSTER_SCOPED_KINDS = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'ClusterRole',
  'ClusterRoleBinding',
  'StorageClass',
  'CSIDriver',
  'CSINode',
  'VolumeAttachment',
  'PriorityClass',
  'RuntimeClass',
  'IngressClass',
  'CertificateSigningRequest',
  'CustomResourceDefinition',
  'APIService',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'FlowSchema',
  'PriorityLevelConfiguration',
]);

/**
 * Written many times a second by the control plane and the kubelets (leader election, events, endpoints):
 * registered only when a document names them, never for "every kind", or every renewal would reach Lambda.
 */
export const HIGH_VOLUME_KINDS = new Set(['Event', 'Lease', 'Endpoints', 'EndpointSlice']);

export const KIND_RESOURCES: Record<string, Resource[]> = {};
for (const [apiGroup, kinds] of Object.entries(KINDS_BY_GROUP)) {
  for (const [kind, resource] of Object.entries(kinds)) (KIND_RESOURCES[kind] ??= []).push({ apiGroup, resource });
}
KIND_RESOURCES.Scale = ['deployments', 'statefulsets', 'replicasets'].map((workload) => ({
  apiGroup: 'apps',
  resource: `${workload}/scale`,
}));

/** What `*` (every kind) is registered as: every built-in kind's resource but the high-volume ones. */
export const EVERY_KIND_RESOURCES: Resource[] = Object.entries(KIND_RESOURCES)
  .filter(([kind]) => kind !== 'Scale' && !HIGH_VOLUME_KINDS.has(kind))
  .flatMap(([, resources]) => resources);
