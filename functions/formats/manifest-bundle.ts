// A rules object of Kubernetes manifests (a multi-document YAML bundle, or one manifest): each manifest
// handed to the formats that claim it (all-formats.ts), and their rules made into one rules document of the
// policy model (one engine, one evaluation path). Every manifest must take part: an unknown kind, a binding
// without its policy, or a policy nothing enforces is an error, never skipped.
import type { Engine } from '../engines/engine.js';
import { placeTranslatedRules } from '../admission/fleet/placement.js';
import type { ManifestTranslation } from '../admission/policy.js';
import { annotationsOf, type Manifest, nameOf, type PolicyFormat, joinResults } from './policy-format.js';
import * as v from '../admission/schema.js';
import { SeveritySchema } from '../admission/rules/rules-document-schema.js';

const NOT_A_POLICY = "not a policy, binding, template or constraint, and no policy's paramKind names it";

/** The formats a function reads, and why it reads no other kinds it may be given. */
export interface ManifestFormats {
  formats: readonly PolicyFormat[];
  refusals: Readonly<Record<string, string>>;
}

/** Whether parsed rules data is manifests: several documents, or one with apiVersion and kind. */
export function isManifestData(data: unknown): boolean {
  if (Array.isArray(data)) return true;
  return (
    typeof data === 'object' &&
    data !== null &&
    typeof (data as Manifest).apiVersion === 'string' &&
    typeof (data as Manifest).kind === 'string'
  );
}

export function rulesFromManifests(documents: unknown[], { formats, refusals }: ManifestFormats): ManifestTranslation {
  const errors: string[] = [];
  const manifests: Manifest[] = [];
  documents.forEach((document, index) => {
    if (document === null || document === undefined) return; // an empty document (a trailing ---)
    const manifest = document as Manifest;
    if (
      typeof document !== 'object' ||
      Array.isArray(document) ||
      typeof manifest.apiVersion !== 'string' ||
      typeof manifest.kind !== 'string'
    ) {
      errors.push(`document ${index + 1}: expected a Kubernetes manifest with apiVersion and kind`);
    } else if (!nameOf(manifest)) errors.push(`document ${index + 1} (${manifest.kind}): metadata.name is required`);
    else manifests.push(manifest);
  });

  // Each manifest goes to every format that claims it (a param object may serve policies of two formats);
  // one no format claims is an error, never skipped.
  const claimed = new Map<PolicyFormat, Manifest[]>(formats.map((format) => [format, []]));
  for (const manifest of manifests) {
    const claimers = formats.filter((candidate) => candidate.claims(manifest, manifests));
    for (const format of claimers) claimed.get(format)!.push(manifest);
    if (claimers.length === 0) errors.push(`${manifest.kind} ${nameOf(manifest)}: ${refusals[String(manifest.kind)] ?? NOT_A_POLICY}`);
  }

  const { rules: translated, errors: refused } = joinResults([...claimed].map(([format, mine]) => format.rulesOf(mine)));
  errors.push(...refused, ...placeTranslatedRules(manifests, translated));
  gradeTranslatedRules(manifests, translated);
  if (errors.length > 0) return { ok: false, errors };

  // The document's failure policy answers when nothing can be evaluated (rules unusable, deadline): the
  // strictest any manifest asks for, as the API server would apply each webhook's own.
  const failurePolicy = translated.some(({ rule }) => rule.failurePolicy === 'Fail') ? 'Fail' : 'Ignore';
  return {
    ok: true,
    data: { failurePolicy, rules: translated.map(({ rule }) => rule) },
    describeRule: (index) =>
      translated[index] && {
        label: translated[index].label,
        parametersAt: translated[index].parametersAt,
        matchAt: translated[index].matchAt,
        ...(translated[index].parametersIn ? { parametersIn: translated[index].parametersIn } : {}),
        ...(translated[index].ruleAt ? { ruleAt: translated[index].ruleAt } : {}),
      },
  };
}

const SEVERITY_ANNOTATION = 'policies.kyverno.io/severity';
const CATEGORY_ANNOTATION = 'policies.kyverno.io/category';
const SCORED_ANNOTATION = 'policies.kyverno.io/scored';

/**
 * What reports say of a rule's findings, from the annotations its policy's manifest carries (Kyverno's, which
 * the policy libraries write on every kind of policy): severity, category, and whether failures are scored
 * (`scored: "false"` makes them warnings); a severity reports do not know is left out, as Kyverno's reports
 * leave it.
 */
function gradeTranslatedRules(manifests: readonly Manifest[], rules: readonly { rule: Record<string, unknown> }[]): void {
  const annotated = new Map<string, Record<string, unknown>>();
  for (const manifest of manifests) annotated.set(`${String(manifest.kind)}/${nameOf(manifest)}`, annotationsOf(manifest));
  for (const { rule } of rules) {
    const origin = rule.origin as Record<string, unknown> | undefined;
    const annotations = origin && annotated.get(`${String(origin.kind)}/${String(origin.name)}`);
    if (!annotations) continue;
    const severity = String(annotations[SEVERITY_ANNOTATION] ?? '').toLowerCase();
    const category = annotations[CATEGORY_ANNOTATION];
    rule.origin = {
      ...origin,
      ...(v.is(SeveritySchema, severity) ? { severity } : {}),
      ...(typeof category === 'string' && category !== '' ? { category } : {}),
      ...(annotations[SCORED_ANNOTATION] === 'false' ? { scored: false } : {}),
    };
  }
}

/** Loads the engines (and what else) that the formats claiming the bundle's manifests need to read them, and only those. */
export async function loadEnginesFor(formats: readonly PolicyFormat[], data: unknown): Promise<void> {
  const manifests = manifestsOf(Array.isArray(data) ? data : [data]);
  const needed: Engine[] = [];
  const parts: Promise<void>[] = [];
  for (const format of formats) {
    if (!format.engines && !format.load) continue;
    const claimed = manifests.filter((manifest) => format.claims(manifest, manifests));
    if (claimed.length === 0) continue;
    needed.push(...(format.engines?.(claimed) ?? []));
    const part = format.load?.(claimed);
    if (part) parts.push(part);
  }
  await Promise.all([...[...new Set(needed)].map((engine) => engine.load()), ...parts]);
}

/** The part of a manifest the formats that claim it run: what `policy push` sends their function. */
export function partFor(formats: readonly PolicyFormat[], manifest: unknown, bundle: readonly unknown[]): unknown {
  const claimer = formats.find((format) => format.claims(manifest as Manifest, manifestsOf(bundle)));
  return claimer?.part ? claimer.part(manifest as Manifest) : manifest;
}

/** Whether one of the formats claims the manifest (a document that is not one is nobody's). */
export function claimedBy(formats: readonly PolicyFormat[], manifest: unknown, bundle: readonly unknown[]): boolean {
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) return false;
  return formats.some((format) => format.claims(manifest as Manifest, manifestsOf(bundle)));
}

// One list per bundle, however many manifests are asked about: the formats cache what they compute per list.
const manifestLists = new WeakMap<readonly unknown[], Manifest[]>();

function manifestsOf(bundle: readonly unknown[]): Manifest[] {
  let manifests = manifestLists.get(bundle);
  if (!manifests) {
    manifests = bundle.filter(
      (document): document is Manifest => typeof document === 'object' && document !== null && !Array.isArray(document),
    );
    manifestLists.set(bundle, manifests);
  }
  return manifests;
}
