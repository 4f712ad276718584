// Placement: the clusters of a fleet a policy applies to, written on the policy as a label selector over the
// clusters' labels (fleet.yaml), so what the policy says is left as written (Open Cluster Management's
// Placement, as one annotation): `portcullis.dev/clusters: "env in (prod,staging)"` on a manifest, or
// `clusters:` on a native rule. A manifest's placement goes to every rule it becomes; a binding's holds as
// well as its policy's. A placement on a manifest no rule comes from (a template, an exception, a param
// object) is an error: it would place nothing, silently.
import { matchesRequirements, parseSelectorText, type LabelRequirement } from '../kubernetes/label-selector-text.js';
import { annotationsOf, type Manifest, type TranslatedRule } from '../../formats/policy-format.js';

export const PLACEMENT_ANNOTATION = 'portcullis.dev/clusters';

const manifestKey = (kind: unknown, name: unknown) => `${String(kind)}\u0000${String(name)}`;
const nameOf = (manifest: Manifest) => String(manifest.metadata?.name ?? '');

const placementOf = (manifest: Manifest): unknown => annotationsOf(manifest)[PLACEMENT_ANNOTATION];

/** Writes each annotated manifest's placement onto the rules it became; the errors of placements that place nothing. */
export function placeTranslatedRules(manifests: readonly Manifest[], rules: readonly TranslatedRule[]): string[] {
  const errors: string[] = [];
  const placed = new Map<string, { manifest: Manifest; selector: string; used: boolean }>();
  for (const manifest of manifests) {
    const selector = placementOf(manifest);
    if (selector === undefined) continue;
    if (typeof selector !== 'string') {
      errors.push(`${manifest.kind} ${nameOf(manifest)}: metadata.annotations.${PLACEMENT_ANNOTATION}: expected a string`);
      continue;
    }
    placed.set(manifestKey(manifest.kind, nameOf(manifest)), { manifest, selector, used: false });
  }
  if (placed.size === 0) return errors;
  for (const { rule } of rules) {
    const origin = rule.origin as { kind?: string; name?: string; binding?: string } | undefined;
    if (!origin) continue;
    const own = placed.get(manifestKey(origin.kind, origin.name));
    const binding = origin.binding === undefined ? undefined : placed.get(manifestKey(`${origin.kind}Binding`, origin.binding));
    const selectors = [own, binding].filter((entry) => entry !== undefined);
    for (const entry of selectors) entry.used = true;
    // Both must hold: selectors joined by a comma are one selector of every requirement.
    if (selectors.length > 0) rule.clusters = selectors.map(({ selector }) => selector).join(',');
  }
  for (const { manifest, used } of placed.values())
    if (!used)
      errors.push(
        `${manifest.kind} ${nameOf(manifest)}: metadata.annotations.${PLACEMENT_ANNOTATION}: no rule comes from this manifest, so the placement would place nothing; annotate the policy (or its binding or constraint) instead`,
      );
  return errors;
}

// Parsed once per selector text; texts come from rules documents, and a bound keeps many versions from piling up.
const parsedSelectors = new Map<string, readonly LabelRequirement[]>();
const MAX_PARSED_SELECTORS = 1000;

/** Whether a rule is placed on a cluster of these labels (a rule with no placement is on every cluster). */
export function placedOn(rule: { clusters?: string }, labels: Readonly<Record<string, string>>): boolean {
  if (rule.clusters === undefined) return true;
  let requirements = parsedSelectors.get(rule.clusters);
  if (!requirements) {
    const parsed = parseSelectorText(rule.clusters);
    // Validated with the rule: a selector that does not parse here places the rule nowhere, never everywhere.
    requirements = parsed.ok ? parsed.requirements : [{ key: PLACEMENT_ANNOTATION, operator: 'In', values: [] }];
    if (parsedSelectors.size >= MAX_PARSED_SELECTORS) parsedSelectors.clear();
    parsedSelectors.set(rule.clusters, requirements);
  }
  return matchesRequirements(labels, requirements);
}
