// A cluster's overlay, `clusters/<cluster>/<policy>.yaml`: what that cluster enforces besides (or instead of)
// the fleet-wide document of the policy, written the same way, merged with it before it is read:
// - a bundle of manifests: a manifest of the kind and name of a fleet-wide one replaces it, others are added;
// - a native document: a rule of the name of a fleet-wide one replaces it, others are added, and a
//   failurePolicy it states replaces the fleet-wide one.
// Either can switch fleet-wide policies off for the cluster, by name: a native document in `switchOff`, a bundle
// in a manifest of its own (`apiVersion: portcullis.dev/v1alpha1`, `kind: ClusterOverlay`,
// `spec.switchOff`). Names are the policies' (a manifest's, or a native rule's), matched after translation, so a
// policy is switched off whole, its bindings and autogen rules with it.
import { isJsonObject } from '../kubernetes/json-object.js';

export const OVERLAY_API_VERSION = 'portcullis.dev/v1alpha1';
export const OVERLAY_KIND = 'ClusterOverlay';

export interface OverlayData {
  /** The overlay as written, without what only says what to switch off. */
  data: unknown;
  switchOff: readonly string[];
  manifests: boolean;
}

export type ParsedOverlay = { ok: true; value: OverlayData } | { ok: false; errors: string[] };

const isNameList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((name) => typeof name === 'string' && name !== '');

/** An overlay's parsed data as an overlay: its switch-offs taken out, its shape checked. */
export function overlayOf(data: unknown, isManifests: (data: unknown) => boolean): ParsedOverlay {
  if (isManifests(data)) {
    const documents = (Array.isArray(data) ? data : [data]).filter((document) => document !== null && document !== undefined);
    const switchOff: string[] = [];
    const errors: string[] = [];
    const rest = documents.filter((document) => {
      if (!isJsonObject(document) || document.kind !== OVERLAY_KIND || document.apiVersion !== OVERLAY_API_VERSION) return true;
      const spec = isJsonObject(document.spec) ? document.spec : {};
      const unknown = Object.keys(spec).filter((key) => key !== 'switchOff');
      if (!isNameList(spec.switchOff ?? []) || unknown.length > 0)
        errors.push(
          `${OVERLAY_KIND}: spec: expected only switchOff, a list of policy names${unknown.length > 0 ? `; unknown field "${unknown[0]}"` : ''}`,
        );
      else switchOff.push(...((spec.switchOff as string[] | undefined) ?? []));
      return false;
    });
    return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { data: rest, switchOff, manifests: true } };
  }
  if (!isJsonObject(data))
    return { ok: false, errors: ['expected a rules document (failurePolicy, rules, switchOff) or Kubernetes manifests'] };
  const { switchOff = [], ...document } = data;
  if (!isNameList(switchOff)) return { ok: false, errors: ['switchOff: expected a list of policy names'] };
  return { ok: true, value: { data: { rules: [], ...document }, switchOff, manifests: false } };
}

const manifestKey = (manifest: unknown) => {
  const metadata = isJsonObject(manifest) && isJsonObject(manifest.metadata) ? manifest.metadata : {};
  return JSON.stringify([isJsonObject(manifest) ? manifest.kind : undefined, metadata.namespace ?? '', metadata.name]);
};

/** `base` with the entries of `overlay` of the same key in their place, and the others after. */
function replacedOrAdded<T>(base: readonly T[], overlay: readonly T[], keyOf: (entry: T) => string): T[] {
  const byKey = new Map(overlay.map((entry) => [keyOf(entry), entry]));
  const merged = base.map((entry) => {
    const key = keyOf(entry);
    const replacement = byKey.get(key);
    if (replacement === undefined) return entry;
    byKey.delete(key);
    return replacement;
  });
  return [...merged, ...byKey.values()];
}

/**
 * The fleet-wide document's data with the overlay merged in (the overlay alone when there is no fleet-wide
 * document), or why they cannot be merged: an overlay must be written as the fleet-wide document is.
 */
export function mergedWithOverlay(
  base: { data: unknown; manifests: boolean } | undefined,
  overlay: OverlayData,
): { ok: true; data: unknown } | { ok: false; errors: string[] } {
  if (!base) return { ok: true, data: overlay.data };
  if (base.manifests !== overlay.manifests) {
    const form = (manifests: boolean) => (manifests ? 'Kubernetes manifests' : 'a rules document (failurePolicy, rules)');
    return {
      ok: false,
      errors: [
        `the fleet-wide document is ${form(base.manifests)}, the overlay ${form(overlay.manifests)}: write the overlay as the fleet-wide document is written`,
      ],
    };
  }
  if (overlay.manifests) {
    const documents = (Array.isArray(base.data) ? base.data : [base.data]).filter(
      (document) => document !== null && document !== undefined,
    );
    return { ok: true, data: replacedOrAdded(documents, overlay.data as unknown[], manifestKey) };
  }
  const baseDocument = base.data as Record<string, unknown>;
  const overlayDocument = overlay.data as Record<string, unknown>;
  if (!Array.isArray(baseDocument.rules) || !Array.isArray(overlayDocument.rules))
    return { ok: false, errors: ['rules: expected an array in the fleet-wide document and in the overlay'] };
  const ruleName = (rule: unknown) => JSON.stringify([isJsonObject(rule) ? rule.name : null]);
  return {
    ok: true,
    data: { ...baseDocument, ...overlayDocument, rules: replacedOrAdded(baseDocument.rules, overlayDocument.rules, ruleName) },
  };
}
