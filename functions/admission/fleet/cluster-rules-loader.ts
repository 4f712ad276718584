// The rules a request is answered with, for the cluster its token names: the policy's fleet-wide document,
// merged with the cluster's overlay (`clusters/<cluster>/<policy>.yaml`) when it has one, placed and
// overridden as fleet.yaml says for the cluster's labels (cluster-document.ts). Computed when a cluster first
// calls and again when one of the three changes; a cold start reads the fleet-wide document and fleet.yaml,
// and only the calling cluster's overlay, so its cost does not grow with the fleet.
// Each document is parsed once per version for the whole fleet (rules-loader.ts), and each distinct rule
// validated and compiled once (rule-cache.ts): an overlay costs its own rules, not the bundle's again.
// What each cluster sees when something is broken (docs/fleet.md): an invalid overlay, or a merge that is
// invalid, keeps the cluster's last good rules; with none, its failure policy decides; an invalid fleet.yaml
// keeps the last good one, and with none every cluster's rules are unusable, since where policies apply
// cannot be known. An absent fleet.yaml is no fleet: each cluster has only its name label.
import { logger } from '../observe/logger.js';
import type { Policy } from '../policy.js';
import { readRulesData, validateRulesDataInSlices } from '../rules/parse-rules-version.js';
import { createRuleCache, type RuleCache } from '../rules/rule-cache.js';
import type { FailurePolicy, RulesDocument } from '../rules/rules-document-schema.js';
import { createVersionedLoader, type Loaded, summary, type VersionedLoader } from '../rules/rules-loader.js';
import { type RulesSource, RulesUnavailableError } from '../rules/rules-source.js';
import { waitAtMost } from '../decide/deadline.js';
import { type Fleet, fleetOf, FLEET_FILE } from './fleet-document.js';
import { clusterDocument, placementOfCluster } from './cluster-document.js';
import { type FleetWideRules, isManifestDataOf } from './cluster-rules.js';
import { mergedWithOverlay, type OverlayData, overlayOf } from './overlay.js';
import { rulesDataUnlessYaml } from '../rules/rules-document-text.js';

export type LoadedRules<P> =
  | {
      ok: true;
      document: RulesDocument<P>;
      version: string;
      /** Set when these are last good rules rather than the newest: why the newest are not used. */
      lastKnownGood?: string;
    }
  | { ok: false; reason: string; version?: string; failurePolicy?: FailurePolicy };

export interface ClusterRulesSources {
  /** The fleet-wide documents, by policy name. */
  rules: RulesSource;
  /** fleet.yaml (any name loads it); absent: no fleet. */
  fleet?: RulesSource;
  /** The clusters' overlays, by `<cluster>/<policy>`. */
  overlays?: RulesSource;
}

export interface ClusterRulesLoaderOptions {
  maxBytes: number;
  /** How long a request with last good rules to fall back on waits for a new version's validation. */
  patienceMs: number;
  /** Called once for each version found invalid (the InvalidRulesVersion metric). */
  onInvalidVersion?: () => void;
}

export type ClusterRulesLoader<P> = ((cluster: string) => Promise<LoadedRules<P>>) & {
  /** Loads what every cluster's rules start from (the fleet-wide document, fleet.yaml), as a cold start does. */
  prefetch(): Promise<void>;
  /**
   * The cluster's rules as the last request got them, when every part answers at once as it did then;
   * undefined when they must be loaded. A warm request takes no promise through three loaders and two
   * sources for what has not changed.
   */
  now(cluster: string): LoadedRules<P> | undefined;
};

interface ClusterState<P> {
  key: string;
  /** The parts the key was made from, as their loaders answered: the same objects while nothing changes. */
  parts?: readonly unknown[];
  result?: LoadedRules<P>;
  computing?: Promise<void>;
  lastGood?: { document: RulesDocument<P>; version: string };
}

type Settled<T> = { value: T } | { error: unknown };
const settle = <T>(promise: Promise<T>): Promise<Settled<T>> =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
/** A document that has no source is as absent as one its source does not have. */
const NONE: Settled<never> = { error: new RulesUnavailableError('no source', true) };
const absent = (settled: Settled<unknown>) =>
  'error' in settled && settled.error instanceof RulesUnavailableError && settled.error.notFound;

/** A version string that changes when any of the three does: the fleet-wide document's, alone without a fleet. */
function composedVersion(base: string | undefined, overlay: string | undefined, fleet: string | undefined): string {
  return [base ?? 'none', ...(overlay ? [`overlay:${overlay}`] : []), ...(fleet ? [`fleet:${fleet}`] : [])].join('+');
}

export function createClusterRulesLoader<P>(
  policy: Policy<P>,
  sources: ClusterRulesSources,
  options: ClusterRulesLoaderOptions,
): ClusterRulesLoader<P> {
  const cache: RuleCache<P> = createRuleCache();
  const isManifests = isManifestDataOf(policy);

  function reportInvalid(fields: Record<string, unknown>) {
    options.onInvalidVersion?.();
    logger.error('invalid rules document', { policy: policy.name, ...fields });
  }

  const loadFleetWide = createVersionedLoader<FleetWideRules<P>>({
    source: sources.rules,
    name: policy.name,
    patienceMs: options.patienceMs,
    async parse(raw) {
      const data = await readRulesData(policy, raw, options.maxBytes);
      if (!data.ok) return data;
      cache.nextGeneration();
      const parsed = await validateRulesDataInSlices(policy, data.data, cache);
      return parsed.ok ? { ok: true, value: { data: data.data, manifests: isManifests(data.data), document: parsed.document } } : parsed;
    },
    onInvalidVersion: (rulesVersion, errors, servingVersion) =>
      reportInvalid({
        source: sources.rules.describe(policy.name),
        rulesVersion,
        errors,
        servingVersion: servingVersion ?? 'none (failure policy applies)',
      }),
  });

  const loadFleet =
    sources.fleet &&
    createVersionedLoader<Fleet>({
      source: sources.fleet,
      name: FLEET_FILE,
      label: FLEET_FILE,
      patienceMs: options.patienceMs,
      async parse(raw) {
        if (!raw.bytes) return { ok: false, errors: [raw.refused ?? 'the source returned no document'] };
        const early = rulesDataUnlessYaml(raw.bytes, options.maxBytes);
        const data = early.ok === 'needs-yaml' ? (await import('../rules/rules-yaml.js')).parseRulesYaml(early.text) : early;
        if (!data.ok) return data;
        const fleet = fleetOf(data.data);
        return fleet.ok ? { ok: true, value: fleet.fleet } : fleet;
      },
      onInvalidVersion: (fleetVersion, errors, servingVersion) => {
        options.onInvalidVersion?.();
        logger.error('invalid fleet document', {
          policy: policy.name,
          source: sources.fleet!.describe(FLEET_FILE),
          fleetVersion,
          errors,
          servingVersion: servingVersion ?? "none (every cluster's rules are unusable: the failure policy applies)",
        });
      },
    });

  const overlayLoaders = new Map<string, VersionedLoader<OverlayData>>();
  function loadOverlay(cluster: string): Promise<Loaded<OverlayData>> | undefined {
    const overlays = sources.overlays;
    if (!overlays) return undefined;
    const name = `${cluster}/${policy.name}`;
    let load = overlayLoaders.get(cluster);
    if (!load) {
      load = createVersionedLoader<OverlayData>({
        source: overlays,
        name,
        label: `the overlay of ${cluster}`,
        patienceMs: options.patienceMs,
        async parse(raw) {
          const data = await readRulesData(policy, raw, options.maxBytes);
          return data.ok ? overlayOf(data.data, isManifests) : data;
        },
        onInvalidVersion: (rulesVersion, errors, servingVersion) =>
          reportInvalid({
            cluster,
            source: overlays.describe(name),
            rulesVersion,
            errors,
            servingVersion: servingVersion ?? `none (${cluster}'s last good rules, else the failure policy, apply)`,
          }),
      });
      overlayLoaders.set(cluster, load);
    }
    return load();
  }

  const states = new Map<string, ClusterState<P>>();
  const unlisted = new Set<string>();

  /** The cluster's rules from these versions of the three (together, `version`): merged, validated, placed. */
  async function compute(
    cluster: string,
    version: string,
    state: ClusterState<P>,
    fleetWide: Extract<Loaded<FleetWideRules<P>>, { ok: true }> | undefined,
    overlay: Extract<Loaded<OverlayData>, { ok: true }> | undefined,
    fleet: Extract<Loaded<Fleet>, { ok: true }> | undefined,
  ): Promise<LoadedRules<P>> {
    let document = fleetWide?.value.document;
    if (overlay) {
      const merged = mergedWithOverlay(fleetWide?.value, overlay.value);
      const parsed = merged.ok
        ? await validateRulesDataInSlices(policy, merged.data, cache)
        : { ok: false as const, errors: merged.errors };
      if (!parsed.ok) {
        reportInvalid({
          cluster,
          source: `${sources.rules.describe(policy.name)} with ${sources.overlays!.describe(`${cluster}/${policy.name}`)}`,
          rulesVersion: version,
          errors: parsed.errors,
          servingVersion: state.lastGood?.version ?? 'none (failure policy applies)',
        });
        return {
          ok: false,
          reason: `invalid rules for ${cluster}: ${summary(parsed.errors)}`,
          version,
          failurePolicy: parsed.failurePolicy,
        };
      }
      document = parsed.document;
    }
    if (fleet && !fleet.value.clusters.has(cluster) && !unlisted.has(cluster)) {
      unlisted.add(cluster);
      logger.warn('cluster not in fleet.yaml; it has only its name label', { policy: policy.name, cluster });
    }
    const placed = clusterDocument(policy, document!, placementOfCluster(fleet?.value, cluster, overlay?.value.switchOff));
    return { ok: true, document: placed, version };
  }

  async function loadRules(cluster: string): Promise<LoadedRules<P>> {
    const overlayLoading = loadOverlay(cluster);
    const [fleetWideSettled, overlaySettled, fleetSettled] = await Promise.all([
      settle(loadFleetWide()),
      overlayLoading ? settle(overlayLoading) : NONE,
      loadFleet ? settle(loadFleet()) : NONE,
    ]);
    // Absent fleet-wide document: the overlay alone, if the cluster has one; else the rules are unavailable.
    if ('error' in fleetWideSettled && !(absent(fleetWideSettled) && 'value' in overlaySettled)) throw fleetWideSettled.error;
    if ('error' in overlaySettled && !absent(overlaySettled)) throw overlaySettled.error;
    if ('error' in fleetSettled && !absent(fleetSettled)) throw fleetSettled.error;
    const fleetWide = 'value' in fleetWideSettled ? fleetWideSettled.value : undefined;
    const overlay = 'value' in overlaySettled ? overlaySettled.value : undefined;
    const fleet = 'value' in fleetSettled ? fleetSettled.value : undefined;
    if (fleetWide && !fleetWide.ok) return unusable(fleetWide, `invalid rules: ${summary(fleetWide.errors)}`);
    if (fleet && !fleet.ok)
      return unusable(fleet, `invalid ${FLEET_FILE}: ${summary(fleet.errors)}`, fleetWide?.value.document.failurePolicy);
    if (overlay && !overlay.ok)
      return unusable(overlay, `invalid overlay of ${cluster}: ${summary(overlay.errors)}`, fleetWide?.value.document.failurePolicy);

    let state = states.get(cluster);
    if (!state) states.set(cluster, (state = { key: '' }));
    // A warm request finds the same three answers as the last: no key to make, nothing to compare.
    const unchanged = state.parts !== undefined && state.parts[0] === fleetWide && state.parts[1] === overlay && state.parts[2] === fleet;
    const key = unchanged ? state.key : composedVersion(fleetWide?.version, overlay?.version, fleet?.version);
    if (!unchanged) state.parts = [fleetWide, overlay, fleet];
    if (state.key !== key) {
      const current = state;
      current.key = key;
      current.result = undefined;
      current.computing = compute(cluster, key, current, fleetWide, overlay, fleet)
        .catch(
          (error: unknown): LoadedRules<P> => ({
            ok: false,
            reason: `invalid rules for ${cluster}: cannot be computed: ${(error as Error)?.message ?? String(error)}`,
            version: key,
          }),
        )
        .then((result) => {
          if (current.key !== key) return;
          current.result = result;
          current.computing = undefined;
          if (result.ok) current.lastGood = { document: result.document, version: result.version };
        });
    }
    const current = state;
    if (current.computing) await (current.lastGood ? waitAtMost(current.computing, options.patienceMs) : current.computing);
    // Why older versions of the parts decide, read anew on every request: a part goes stale and fresh on its own.
    const stale =
      fleetWide?.lastKnownGood || overlay?.lastKnownGood || fleet?.lastKnownGood
        ? [fleetWide?.lastKnownGood, overlay?.lastKnownGood, fleet?.lastKnownGood].filter(Boolean)
        : undefined;
    if (current.result?.ok) return stale ? { ...current.result, lastKnownGood: stale.join('; ') } : current.result;
    if (current.lastGood) {
      const why = current.result ? current.result.reason : `rules version ${key} is still being validated`;
      return { ok: true, ...current.lastGood, lastKnownGood: [why, ...(stale ?? [])].join('; ') };
    }
    return current.result ?? { ok: false, reason: 'invalid rules: not validated yet', version: key };
  }

  function unusable(loaded: Extract<Loaded<unknown>, { ok: false }>, reason: string, failurePolicy?: FailurePolicy): LoadedRules<P> {
    return { ok: false, reason, version: loaded.version, failurePolicy: loaded.failurePolicy ?? failurePolicy };
  }

  /** Whether the loader answers at once with `part` (an absent document as absent: no part). */
  function answersNow(loader: VersionedLoader<unknown> | undefined, part: unknown): boolean {
    if (!loader) return part === undefined;
    try {
      const answer = loader.now();
      return answer !== undefined && answer === part;
    } catch (error) {
      return part === undefined && error instanceof RulesUnavailableError && error.notFound;
    }
  }

  function rulesNow(cluster: string): LoadedRules<P> | undefined {
    const state = states.get(cluster);
    if (!state?.result?.ok || state.computing || !state.parts) return undefined;
    const { result } = state;
    // Stale parts are answered anew by loadRules, with why they are stale.
    const [fleetWide, overlay, fleet] = state.parts;
    const overlayLoader = sources.overlays ? overlayLoaders.get(cluster) : undefined;
    if (sources.overlays && !overlayLoader) return undefined;
    return answersNow(loadFleetWide, fleetWide) && answersNow(overlayLoader, overlay) && answersNow(loadFleet, fleet) ? result : undefined;
  }

  async function prefetch(): Promise<void> {
    await Promise.all([loadFleetWide().catch(() => undefined), loadFleet?.().catch(() => undefined)]);
  }

  return Object.assign(loadRules, { prefetch, now: rulesNow });
}
