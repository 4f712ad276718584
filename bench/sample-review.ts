// The representative request the benchmarks use: a ~10 KB Pod review of the kind a real Deployment's pods
// produce (several containers, env, probes, volumes), wrapped in an HTTP API event.
import { admissionReviewFor, httpApiEvent } from '../infra/admission-event.js';

function container(name: string, image: string) {
  return {
    name,
    image,
    imagePullPolicy: 'IfNotPresent',
    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
    env: Array.from({ length: 22 }, (_, i) => ({ name: `SETTING_${i}`, value: `value-${i}-${'x'.repeat(20)}` })),
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
    livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, initialDelaySeconds: 10, periodSeconds: 10 },
    readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5 },
    volumeMounts: [
      { name: 'config', mountPath: '/etc/app' },
      { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
    ],
    securityContext: { runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  };
}

const TRUSTED_IMAGES = [
  '192.168.64.1:5000/shop/migrate:3.2.1',
  '192.168.64.1:5000/shop/checkout:3.2.1',
  '192.168.64.1:5000/envoyproxy/envoy:v1.31.0',
  '192.168.64.1:5000/fluent/fluent-bit:3.1',
];
/** Docker Hub official images, which policies/registry-mirror.yaml rewrites: every container changes. */
export const MIRRORED_IMAGES = ['busybox:1.36', 'nginx:1.27', 'redis:7.4', 'alpine:3.20'];

export function samplePod(images: readonly string[] = TRUSTED_IMAGES, namespace = 'shop') {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'checkout-7d9f8b6c5-x2x9q',
      namespace,
      labels: { app: 'checkout', 'pod-template-hash': '7d9f8b6c5', team: 'payments', tier: 'web' },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'checkout-7d9f8b6c5',
          uid: '6b0f9c1e-2f7a-4c61-9d0e-0e6f1c2b3a4d',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      serviceAccountName: 'checkout',
      initContainers: [container('migrate', images[0]!)],
      containers: [container('checkout', images[1]!), container('envoy', images[2]!), container('log-shipper', images[3]!)],
      volumes: [
        { name: 'config', configMap: { name: 'checkout' } },
        { name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } },
      ],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
  };
}

export function sampleEvent(path = '/validate/trusted-registry', images?: readonly string[], namespace = 'shop') {
  return httpApiEvent(JSON.stringify(admissionReviewFor(samplePod(images, namespace), { namespace })), { path });
}

/** An event of the cel function on one policy's own route, as the API server calls it once registered. */
export const onCelRoute = <Event extends object>(event: Event, policy: string) => ({
  ...event,
  rawPath: `/validate/cel/${policy}`,
  pathParameters: { policy },
});

/** The same pod as a Deployment's template (~10 KB): what the workload policies see. */
export function sampleDeployment() {
  const pod = samplePod();
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'checkout', namespace: 'shop', labels: pod.metadata.labels, annotations: pod.metadata.annotations },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'checkout' } },
      template: { metadata: { labels: pod.metadata.labels }, spec: pod.spec },
    },
  };
}

export function sampleDeploymentEvent(path: string) {
  return httpApiEvent(JSON.stringify(admissionReviewFor(sampleDeployment(), { namespace: 'shop' })), { path });
}
