// What a push changes in what the cluster must send: webhooks added, removed, or registered differently
// (rules, selectors, failure policy, match conditions). The registration is not in the bucket, so a
// change here is one someone has to apply; `policy push` says so, with the command.
import type { Registration, WebhookRule } from '../functions/registration/webhook-registration.js';

const FIELDS = ['path', 'rules', 'failurePolicy', 'matchPolicy', 'namespaceSelector', 'objectSelector', 'matchConditions'] as const;

/** `CREATE,UPDATE pods apps/deployments; DELETE configmaps`: resources grouped by their operations. */
function describeRules(rules: WebhookRule[]): string {
  const byOperations = new Map<string, string[]>();
  for (const { apiGroups, operations, resources } of rules) {
    const key = operations.join(',');
    const named = resources.flatMap((resource) => apiGroups.map((group) => (group ? `${group}/${resource}` : resource)));
    byOperations.set(key, [...(byOperations.get(key) ?? []), ...named]);
  }
  return [...byOperations].map(([operations, resources]) => `${operations} ${resources.join(' ')}`).join('; ');
}

/** One line per webhook that differs: `+ name: …` added, `- name` removed, `~ name: fields` changed. */
export function registrationChange(before: Registration[], after: Registration[]): string[] {
  const lines: string[] = [];
  const old = new Map(before.map((registration) => [registration.name, registration]));
  const now = new Map(after.map((registration) => [registration.name, registration]));
  for (const [name, registration] of now) {
    const previous = old.get(name);
    if (!previous) {
      lines.push(`+ ${name}: ${describeRules(registration.rules)} (failurePolicy ${registration.failurePolicy})`);
      continue;
    }
    const changed = FIELDS.filter((field) => JSON.stringify(previous[field]) !== JSON.stringify(registration[field]));
    if (changed.length > 0)
      lines.push(
        `~ ${name}: ${changed.join(', ')} changed${changed.includes('rules') ? `; now ${describeRules(registration.rules)}` : ''}`,
      );
  }
  for (const name of old.keys()) if (!now.has(name)) lines.push(`- ${name}`);
  return lines;
}
