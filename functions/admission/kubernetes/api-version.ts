// An apiVersion's parts, as Kubernetes writes them: `apps/v1` is group `apps` at version `v1`; `v1` is the
// core group's (group ``).
export function groupVersionOf(apiVersion: string): { group: string; version: string } {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  return { group: group!, version: version! };
}
