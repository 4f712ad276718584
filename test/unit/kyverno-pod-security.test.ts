// The Pod Security Standards as Kyverno's podSecurity applies them: each control of the baseline and
// restricted levels (as the standards' page defines them), and exclusions by control, image and field.
import { describe, expect, it } from 'vitest';
import { podSecurityViolations } from '../../functions/engines/kyverno/pss/pod-security.js';

const restrictedContainer = {
  name: 'app',
  image: 'registry.example/app:1',
  securityContext: {
    allowPrivilegeEscalation: false,
    runAsNonRoot: true,
    seccompProfile: { type: 'RuntimeDefault' },
    capabilities: { drop: ['ALL'] },
  },
};
const pod = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({ metadata: { name: 'p', ...metadata }, spec });
const controlsOf = (violations: string[]) => violations.map((violation) => violation.replace(/ \(.*$/, ''));

describe('baseline', () => {
  it.each([
    ['Host Namespaces', { hostNetwork: true, containers: [{ name: 'c', image: 'x' }] }],
    ['Privileged Containers', { containers: [{ name: 'c', image: 'x', securityContext: { privileged: true } }] }],
    ['Capabilities', { containers: [{ name: 'c', image: 'x', securityContext: { capabilities: { add: ['NET_ADMIN'] } } }] }],
    ['HostPath Volumes', { containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'h', hostPath: { path: '/' } }] }],
    ['Host Ports', { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, hostPort: 80 }] }] }],
    ['SELinux', { containers: [{ name: 'c', image: 'x', securityContext: { seLinuxOptions: { type: 'spc_t' } } }] }],
    ['/proc Mount Type', { containers: [{ name: 'c', image: 'x', securityContext: { procMount: 'Unmasked' } }] }],
    ['Seccomp', { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'c', image: 'x' }] }],
    ['Sysctls', { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }] }, containers: [{ name: 'c', image: 'x' }] }],
    ['HostProcess', { securityContext: { windowsOptions: { hostProcess: true } }, containers: [{ name: 'c', image: 'x' }] }],
  ])('%s', (control, spec) => {
    expect(controlsOf(podSecurityViolations(pod(spec), 'baseline'))).toEqual([control]);
  });

  it('AppArmor by annotation; a plain pod complies', () => {
    const annotated = pod(
      { containers: [{ name: 'c', image: 'x' }] },
      { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' } },
    );
    expect(controlsOf(podSecurityViolations(annotated, 'baseline'))).toEqual(['AppArmor']);
    expect(
      podSecurityViolations(
        pod({ containers: [{ name: 'c', image: 'x', securityContext: { capabilities: { add: ['CHOWN'] } } }] }),
        'baseline',
      ),
    ).toEqual([]);
  });
});

describe('restricted', () => {
  it('a container that sets everything complies; one that sets nothing breaks every container control', () => {
    expect(podSecurityViolations(pod({ containers: [restrictedContainer] }), 'restricted')).toEqual([]);
    expect(controlsOf(podSecurityViolations(pod({ containers: [{ name: 'c', image: 'x' }] }), 'restricted'))).toEqual([
      'Privilege Escalation',
      'Running as Non-root',
      'Seccomp',
      'Capabilities',
    ]);
  });

  it('the pod may set runAsNonRoot and seccomp for every container; volumes are limited to the safe types', () => {
    const container = { name: 'c', image: 'x', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } };
    const spec = { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'Localhost' } }, containers: [container] };
    expect(podSecurityViolations(pod(spec), 'restricted')).toEqual([]);
    expect(
      controlsOf(podSecurityViolations(pod({ ...spec, volumes: [{ name: 'n', nfs: { server: 's', path: '/' } }] }), 'restricted')),
    ).toEqual(['Volume Types']);
    expect(
      controlsOf(podSecurityViolations(pod({ ...spec, securityContext: { ...spec.securityContext, runAsUser: 0 } }), 'restricted')),
    ).toEqual(['Running as Non-root user']);
  });

  it('exclusions: a control for the pod, or for containers whose image matches, or one field and value', () => {
    const unconfined = {
      ...restrictedContainer,
      securityContext: { ...restrictedContainer.securityContext, seccompProfile: { type: 'Unconfined' } },
    };
    const spec = { containers: [unconfined] };
    expect(controlsOf(podSecurityViolations(pod(spec), 'restricted'))).toEqual(['Seccomp']);
    expect(podSecurityViolations(pod(spec), 'restricted', [{ controlName: 'Seccomp' }])).not.toEqual([]);
    expect(podSecurityViolations(pod(spec), 'restricted', [{ controlName: 'Seccomp', images: ['registry.example/*'] }])).toEqual([]);
    expect(podSecurityViolations(pod(spec), 'restricted', [{ controlName: 'Seccomp', images: ['other/*'] }])).not.toEqual([]);
    const added = {
      ...restrictedContainer,
      securityContext: { ...restrictedContainer.securityContext, capabilities: { drop: ['ALL'], add: ['SYS_TIME', 'NET_ADMIN'] } },
    };
    const exclusion = {
      controlName: 'Capabilities' as const,
      images: ['*'],
      restrictedField: 'spec.containers[*].securityContext.capabilities.add',
      values: ['SYS_TIME'],
    };
    expect(controlsOf(podSecurityViolations(pod({ containers: [added] }), 'restricted', [exclusion]))).toEqual(['Capabilities']);
    expect(
      podSecurityViolations(pod({ containers: [added] }), 'restricted', [{ ...exclusion, values: ['SYS_TIME', 'NET_ADMIN'] }]),
    ).toEqual([]);
  });
});
