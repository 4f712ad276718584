// Pods as a cluster has them, for the audit benchmarks: 20 namespaces, two containers, a quarter from Docker
// Hub, a third unlabelled; as a list's items have them (no apiVersion, no kind).
export function clusterPods(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    metadata: {
      name: `web-${index}`,
      namespace: `team-${index % 20}`,
      uid: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      labels: { app: 'web', ...(index % 3 ? { owner: 'team-web', 'app.kubernetes.io/name': 'web' } : {}) },
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: index % 4 ? `192.168.64.1/team/web:1.${index}` : 'docker.io/library/nginx:latest',
          resources: { limits: { cpu: '500m', memory: '256Mi' } },
        },
        { name: 'envoy', image: '192.168.64.1/envoy:1.30', ports: [{ containerPort: 9901 }] },
      ],
    },
    status: { phase: 'Running' },
  }));
}
