// What `audit` lists from a live cluster: exactly the resources the policies' webhook registration sends to
// Portcullis on CREATE (each object is judged as a CREATE), at the version the rules name, else the
// group's served version. Subresources are not objects of their own, a wildcard group cannot be listed,
// and Secrets are listed only when asked: each is noted, never dropped silently.
import type { Registration } from '../registration/webhook-registration.js';

export interface ListedResource {
  group: string;
  version: string;
  /** The plural, as in the URL: `pods`, `deployments`. */
  resource: string;
}

// The version each built-in group serves its objects at when the rules say `*` (v1 unless listed here).
const SERVED_VERSIONS: Record<string, string> = { autoscaling: 'v2' };

/** The apiVersion of a resource's objects: `v1`, `apps/v1`. */
export const apiVersionOf = ({ group, version }: ListedResource) => (group === '' ? version : `${group}/${version}`);

export const pathOf = ({ group, version, resource }: ListedResource) =>
  group === '' ? `/api/${version}/${resource}` : `/apis/${group}/${version}/${resource}`;

export function listedResources(
  registrations: Registration[],
  { includeSecrets = false } = {},
): { resources: ListedResource[]; notes: string[] } {
  const resources = new Map<string, ListedResource>();
  const notes = new Set<string>();
  for (const rule of registrations.flatMap(({ rules }) => rules)) {
    if (!rule.operations.includes('CREATE') && !rule.operations.includes('*')) continue;
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        if (resource.includes('/')) {
          notes.add(`${resource} is a subresource: its objects are audited as ${resource.split('/')[0]}, when a rule names that`);
          continue;
        }
        if (group === '*' || resource === '*') {
          notes.add(`apiGroups ${group} resources ${resource}: a wildcard cannot be listed; pass such objects with --from`);
          continue;
        }
        if (group === '' && resource === 'secrets' && !includeSecrets) {
          // Listing them reads every secret's data into this process: only when asked.
          notes.add('secrets are not listed (that reads their data); pass --include-secrets to audit them');
          continue;
        }
        const named = rule.apiVersions.find((version) => version !== '*');
        const version = named ?? SERVED_VERSIONS[group] ?? 'v1';
        resources.set(`${group}/${resource}`, { group, version, resource });
      }
    }
  }
  return { resources: [...resources.values()].sort((a, b) => pathOf(a).localeCompare(pathOf(b))), notes: [...notes] };
}
