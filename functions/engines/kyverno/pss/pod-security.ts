// The Pod Security Standards (Kubernetes' pod-security-admission checks, as the standards' page lists
// them) for Kyverno's validate.podSecurity: `baseline` or `restricted` at `latest` (or a v1.x version,
// judged as latest), with Kyverno's exclusions: a control by name for the pod's own fields, or for the
// containers whose image matches a glob, optionally narrowed to one restricted field and its values.
import { matchesGlob } from '../../../admission/kubernetes/glob.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';

type Level = 'baseline' | 'restricted';
type JsonMap = Record<string, unknown>;

export interface PodSecurityExclusion {
  controlName: string;
  images?: string[];
  restrictedField?: string;
  values?: string[];
}

/** One field that breaks a control: where (the pod, or a container by image), which field, what value. */
interface Finding {
  control: string;
  image?: string;
  field: string;
  value: string;
}

const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
const RESTRICTED_VOLUMES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

const mapOf = (value: unknown): JsonMap => (isJsonObject(value) ? value : {});
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function containersOf(spec: JsonMap): JsonMap[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((field) => listOf(spec[field]).filter(isJsonObject));
}

/** Every field of the pod and its containers that breaks a control of the level. */
function findings(pod: JsonMap, level: Level): Finding[] {
  const spec = mapOf(pod.spec);
  const podContext = mapOf(spec.securityContext);
  const containers = containersOf(spec);
  const found: Finding[] = [];
  const onPod = (control: string, field: string, value: unknown) => found.push({ control, field, value: String(value) });
  const onContainer = (container: JsonMap, control: string, field: string, value: unknown) =>
    found.push({ control, image: String(container.image ?? ''), field, value: String(value) });

  if (mapOf(podContext.windowsOptions).hostProcess === true) onPod('HostProcess', 'spec.securityContext.windowsOptions.hostProcess', true);
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) if (spec[field] === true) onPod('Host Namespaces', `spec.${field}`, true);
  for (const volume of listOf(spec.volumes).filter(isJsonObject))
    if (volume.hostPath !== undefined) onPod('HostPath Volumes', 'spec.volumes[*].hostPath', volume.name);
  const annotations = mapOf(mapOf(pod.metadata).annotations);
  for (const [key, value] of Object.entries(annotations)) {
    if (
      key.startsWith('container.apparmor.security.beta.kubernetes.io/') &&
      value !== 'runtime/default' &&
      !String(value).startsWith('localhost/')
    )
      onPod('AppArmor', `metadata.annotations[${key}]`, value);
  }
  const appArmor = (context: JsonMap) => mapOf(context.appArmorProfile).type;
  if (appArmor(podContext) === 'Unconfined') onPod('AppArmor', 'spec.securityContext.appArmorProfile.type', 'Unconfined');
  const seLinux = (context: JsonMap) => mapOf(context.seLinuxOptions);
  const badSeLinux = (options: JsonMap) =>
    !SELINUX_TYPES.has(String(options.type ?? '')) || options.user !== undefined || options.role !== undefined;
  if (badSeLinux(seLinux(podContext))) onPod('SELinux', 'spec.securityContext.seLinuxOptions', JSON.stringify(seLinux(podContext)));
  const seccomp = (context: JsonMap) => mapOf(context.seccompProfile).type;
  if (seccomp(podContext) === 'Unconfined') onPod('Seccomp', 'spec.securityContext.seccompProfile.type', 'Unconfined');
  for (const sysctl of listOf(podContext.sysctls).filter(isJsonObject))
    if (!SAFE_SYSCTLS.has(String(sysctl.name))) onPod('Sysctls', 'spec.securityContext.sysctls[*].name', sysctl.name);

  for (const container of containers) {
    const context = mapOf(container.securityContext);
    if (mapOf(context.windowsOptions).hostProcess === true)
      onContainer(container, 'HostProcess', 'securityContext.windowsOptions.hostProcess', true);
    if (context.privileged === true) onContainer(container, 'Privileged Containers', 'securityContext.privileged', true);
    const capabilities = mapOf(context.capabilities);
    for (const added of listOf(capabilities.add))
      if (!BASELINE_CAPABILITIES.has(String(added))) onContainer(container, 'Capabilities', 'securityContext.capabilities.add', added);
    for (const port of listOf(container.ports).filter(isJsonObject))
      if (port.hostPort !== undefined && port.hostPort !== 0) onContainer(container, 'Host Ports', 'ports[*].hostPort', port.hostPort);
    if (appArmor(context) === 'Unconfined') onContainer(container, 'AppArmor', 'securityContext.appArmorProfile.type', 'Unconfined');
    if (badSeLinux(seLinux(context))) onContainer(container, 'SELinux', 'securityContext.seLinuxOptions', JSON.stringify(seLinux(context)));
    if (context.procMount !== undefined && context.procMount !== 'Default')
      onContainer(container, '/proc Mount Type', 'securityContext.procMount', context.procMount);
    if (seccomp(context) === 'Unconfined') onContainer(container, 'Seccomp', 'securityContext.seccompProfile.type', 'Unconfined');
  }
  if (level === 'baseline') return found;

  for (const volume of listOf(spec.volumes).filter(isJsonObject)) {
    const source = Object.keys(volume).find((key) => key !== 'name');
    if (source !== undefined && !RESTRICTED_VOLUMES.includes(source)) onPod('Volume Types', `spec.volumes[*].${source}`, volume.name);
  }
  const podNonRoot = podContext.runAsNonRoot === true;
  const podSeccomp = seccomp(podContext) === 'RuntimeDefault' || seccomp(podContext) === 'Localhost';
  if (podContext.runAsNonRoot === false) onPod('Running as Non-root', 'spec.securityContext.runAsNonRoot', false);
  if (podContext.runAsUser === 0) onPod('Running as Non-root user', 'spec.securityContext.runAsUser', 0);
  for (const container of containers) {
    const context = mapOf(container.securityContext);
    if (context.allowPrivilegeEscalation !== false)
      onContainer(
        container,
        'Privilege Escalation',
        'securityContext.allowPrivilegeEscalation',
        context.allowPrivilegeEscalation ?? 'undefined',
      );
    if (context.runAsNonRoot === false || (!podNonRoot && context.runAsNonRoot !== true))
      onContainer(container, 'Running as Non-root', 'securityContext.runAsNonRoot', context.runAsNonRoot ?? 'undefined');
    if (context.runAsUser === 0) onContainer(container, 'Running as Non-root user', 'securityContext.runAsUser', 0);
    const type = seccomp(context);
    if (type === undefined ? !podSeccomp : type !== 'RuntimeDefault' && type !== 'Localhost')
      onContainer(container, 'Seccomp', 'securityContext.seccompProfile.type', type ?? 'undefined');
    const capabilities = mapOf(context.capabilities);
    if (!listOf(capabilities.drop).includes('ALL'))
      onContainer(container, 'Capabilities', 'securityContext.capabilities.drop', JSON.stringify(capabilities.drop ?? []));
    for (const added of listOf(capabilities.add))
      if (added !== 'NET_BIND_SERVICE') onContainer(container, 'Capabilities', 'securityContext.capabilities.add', added);
  }
  return found;
}

const fieldMatches = (finding: Finding, exclusion: PodSecurityExclusion) =>
  exclusion.restrictedField === undefined ||
  finding.field.endsWith(exclusion.restrictedField.replace(/^spec\.(containers|initContainers|ephemeralContainers)\[\*\]\./, ''));

/** Whether an exclusion exempts the finding: the same control, where it applies, and the field and value it names. */
function excluded(finding: Finding, exclusion: PodSecurityExclusion): boolean {
  if (exclusion.controlName !== finding.control) return false;
  if (
    exclusion.images
      ? finding.image === undefined || !exclusion.images.some((glob) => matchesGlob(finding.image!, glob))
      : finding.image !== undefined
  )
    return false;
  if (!fieldMatches(finding, exclusion)) return false;
  return exclusion.values === undefined || exclusion.values.includes(finding.value);
}

/** The controls the pod breaks at the level, less the exclusions, in words; empty when it complies. */
export function podSecurityViolations(pod: unknown, level: Level, exclusions: readonly PodSecurityExclusion[] = []): string[] {
  const remaining = findings(mapOf(pod), level).filter((finding) => !exclusions.some((exclusion) => excluded(finding, exclusion)));
  const byControl = new Map<string, string[]>();
  for (const { control, image, field, value } of remaining)
    byControl.set(control, [...(byControl.get(control) ?? []), `${image === undefined ? '' : `container ${image}: `}${field}=${value}`]);
  return [...byControl].map(([control, details]) => `${control} (${details.join(', ')})`);
}
