// The Pod Security Standards' control names, as Kyverno's podSecurity exclusions name them, apart from the
// checks (pod-security.ts), so the rules' schema can name them without loading the checks.
export const POD_SECURITY_CONTROLS = [
  'HostProcess',
  'Host Namespaces',
  'Privileged Containers',
  'Capabilities',
  'HostPath Volumes',
  'Host Ports',
  'AppArmor',
  'SELinux',
  '/proc Mount Type',
  'Seccomp',
  'Sysctls',
  'Volume Types',
  'Privilege Escalation',
  'Running as Non-root',
  'Running as Non-root user',
] as const;
