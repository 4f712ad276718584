// The API group and resource of each kind a policy can name, for webhook `rules`.
export const KIND_RESOURCES: Record<string, { apiGroup: string; resource: string }> = {
  Pod: { apiGroup: '', resource: 'pods' },
  ReplicationController: { apiGroup: '', resource: 'replicationcontrollers' },
  Deployment: { apiGroup: 'apps', resource: 'deployments' },
  StatefulSet: { apiGroup: 'apps', resource: 'statefulsets' },
  DaemonSet: { apiGroup: 'apps', resource: 'daemonsets' },
  ReplicaSet: { apiGroup: 'apps', resource: 'replicasets' },
  Job: { apiGroup: 'batch', resource: 'jobs' },
  CronJob: { apiGroup: 'batch', resource: 'cronjobs' },
};
