// The API group and resources of each kind a policy can name, for webhook `rules`. Scale is the `scale`
// subresource of the scalable workloads (`kubectl scale`).
export const KIND_RESOURCES: Record<string, { apiGroup: string; resource: string }[]> = {
  Pod: [{ apiGroup: '', resource: 'pods' }],
  ReplicationController: [{ apiGroup: '', resource: 'replicationcontrollers' }],
  Deployment: [{ apiGroup: 'apps', resource: 'deployments' }],
  StatefulSet: [{ apiGroup: 'apps', resource: 'statefulsets' }],
  DaemonSet: [{ apiGroup: 'apps', resource: 'daemonsets' }],
  ReplicaSet: [{ apiGroup: 'apps', resource: 'replicasets' }],
  Job: [{ apiGroup: 'batch', resource: 'jobs' }],
  CronJob: [{ apiGroup: 'batch', resource: 'cronjobs' }],
  Namespace: [{ apiGroup: '', resource: 'namespaces' }],
  Service: [{ apiGroup: '', resource: 'services' }],
  Scale: ['deployments', 'statefulsets', 'replicasets'].map((workload) => ({ apiGroup: 'apps', resource: `${workload}/scale` })),
};
