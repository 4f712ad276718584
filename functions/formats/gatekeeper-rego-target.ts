// Gatekeeper's admission target on the Rego engine: a ConstraintTemplate's Rego and its libs read as the
// constraint framework reads them (frameworks' drivers/rego), as a rule of the Rego engine per constraint.
// The Rego is a target's `code[]` entry with `engine: Rego` (`source.rego`, `source.libs`, `source.version`
// v1 or v0), else the target's legacy `rego` and `libs` (v0). Each template compiles on its own, so its libs
// (`package lib.…`) are its own and `import data.lib.…` resolves as the framework's per-template
// namespacing makes it. The input is the engine's admission target's (`review`) and `parameters`, the
// constraint's spec.parameters ({} when absent); violations are data.<package>.violation. A referential
// template's data.inventory is the cluster view's objects, of the kinds its requires-sync-data names.
import { type ClusterRead, readOf, uniqueReads } from '../admission/cluster/cluster-reads.js';
import { resourceOfKind } from '../admission/kubernetes/kind-resource.js';
import type { RegoSource } from '../engines/rego/index.js';
import { type Manifest, nameOf } from './policy-format.js';

export const ADMISSION_TARGET = 'admission.k8s.gatekeeper.sh';

export interface RegoCode {
  modules: RegoSource[];
  /** The template's package, where its violation rule is: `data.k8sallowedrepos`. */
  packagePath: string;
  at: string;
}

type Target = { target?: unknown; rego?: unknown; libs?: unknown; code?: { engine?: unknown; source?: Record<string, unknown> }[] };

/** The package a module declares (`package a.b` → `data.a.b`), or undefined. */
function packageOf(source: string): string | undefined {
  // Line by line up to the first that is not blank or a comment: never the whole source.
  for (let start = 0; start < source.length; ) {
    const end = source.indexOf('\n', start) === -1 ? source.length : source.indexOf('\n', start);
    const line = source.slice(start, end);
    start = end + 1;
    const text = line.replace(/#.*$/, '').trim();
    if (text === '') continue;
    const match = /^package\s+([A-Za-z_][\w.]*)\s*$/.exec(text);
    if (!match) return undefined;
    return match[1]!.startsWith('data.') ? match[1] : `data.${match[1]}`;
  }
  return undefined;
}

function modulesOf(template: string, at: string, rego: unknown, libs: unknown, v1: boolean): RegoCode | { error: string } {
  if (typeof rego !== 'string' || rego.trim() === '') return { error: `ConstraintTemplate ${template}: ${at} has no Rego source` };
  if (libs !== undefined && !(Array.isArray(libs) && libs.every((lib) => typeof lib === 'string')))
    return { error: `ConstraintTemplate ${template}: ${at} libs must be a list of Rego sources` };
  const packagePath = packageOf(rego);
  if (!packagePath) return { error: `ConstraintTemplate ${template}: ${at}: the Rego must begin with its package` };
  const libSources = (libs ?? []) as string[];
  for (const [index, lib] of libSources.entries()) {
    const libPackage = packageOf(lib);
    // The framework's rule: a template's libs are its own, under data.lib.
    if (!libPackage || !/^data\.lib(\.|$)/.test(libPackage))
      return {
        error: `ConstraintTemplate ${template}: ${at} libs[${index}]: a lib's package must be lib or begin with lib. (found ${libPackage ?? 'none'})`,
      };
  }
  return {
    modules: [
      { file: `${at}.rego`, source: rego, v1 },
      ...libSources.map((source, index) => ({ file: `${at}.libs[${index}]`, source, v1 })),
    ],
    packagePath,
    at,
  };
}

/** The template's Rego for the admission target, or why there is none it can run. */
export function regoCodeOf(template: Manifest): RegoCode | { error: string } {
  const name = nameOf(template);
  const targets = (template.spec?.targets ?? []) as Target[];
  if (!Array.isArray(targets) || targets.length !== 1)
    return { error: `ConstraintTemplate ${name}: spec.targets must hold exactly one target (${ADMISSION_TARGET}), as Gatekeeper requires` };
  const target = targets[0]!;
  if (target.target !== ADMISSION_TARGET)
    return {
      error: `ConstraintTemplate ${name}: spec.targets[0].target ${String(target.target)} is not Gatekeeper's admission target (${ADMISSION_TARGET})`,
    };
  for (const [index, code] of (target.code ?? []).entries()) {
    if (code?.engine !== 'Rego') continue;
    const source = code.source ?? {};
    const version = source.version ?? 'v0';
    if (version !== 'v0' && version !== 'v1')
      return { error: `ConstraintTemplate ${name}: spec.targets[0].code[${index}].source.version ${String(version)} is not v0 or v1` };
    return modulesOf(name, `spec.targets[0].code[${index}].source`, source.rego, source.libs, version === 'v1');
  }
  if (target.rego !== undefined) return modulesOf(name, 'spec.targets[0]', target.rego, target.libs, false);
  return {
    error: `ConstraintTemplate ${name}: no Rego (spec.targets[0].rego or a code entry with engine Rego) and no K8sNativeValidation code`,
  };
}

export const SYNC_ANNOTATION = 'metadata.gatekeeper.sh/requires-sync-data';

type SyncEntry = { groups?: unknown; versions?: unknown; kinds?: unknown };

/** A read of every object of a group, version and kind, as Gatekeeper's sync lists name them. */
const readOfKind = (group: string, version: string, kind: string) =>
  readOf({ apiVersion: group ? `${group}/${version}` : version, resource: resourceOfKind(kind) });

/**
 * The kinds a referential template says it reads (Gatekeeper's `requires-sync-data` annotation: a JSON list
 * of requirements, each a list of equivalent group/version/kind sets, the text often in quotes), as reads of
 * every object of each; undefined without the annotation; an error naming the annotation when it is not that.
 */
export function syncedReads(template: Manifest): ClusterRead[] | undefined | { error: string } {
  const annotations = (template.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations;
  const text = annotations?.[SYNC_ANNOTATION];
  if (text === undefined) return undefined;
  const invalid = {
    error: `ConstraintTemplate ${nameOf(template)}: metadata.annotations["${SYNC_ANNOTATION}"]: expected JSON, a list of lists of {groups, versions, kinds}`,
  };
  let requirements: unknown;
  try {
    requirements = JSON.parse(
      String(text)
        .trim()
        .replace(/^"([\s\S]*)"$/, '$1'),
    );
  } catch {
    return invalid;
  }
  if (!Array.isArray(requirements) || !requirements.every(Array.isArray)) return invalid;
  const reads: ClusterRead[] = [];
  for (const entry of (requirements as SyncEntry[][]).flat()) {
    const lists = [entry?.groups, entry?.versions, entry?.kinds];
    if (!lists.every((list) => Array.isArray(list) && list.every((item) => typeof item === 'string'))) return invalid;
    const [groups, versions, kinds] = lists as string[][];
    for (const group of groups!)
      for (const version of versions!)
        for (const kind of kinds!) {
          const read = readOfKind(group, version, kind);
          if (typeof read === 'string') return { error: `ConstraintTemplate ${nameOf(template)}: ${SYNC_ANNOTATION} ${kind}: ${read}` };
          reads.push(read);
        }
  }
  return uniqueReads(reads);
}

export const isSyncConfig = (manifest: Manifest) => manifest.apiVersion === 'config.gatekeeper.sh/v1alpha1' && manifest.kind === 'Config';

/**
 * The kinds Gatekeeper's sync `Config` (config.gatekeeper.sh) syncs into data.inventory for every template:
 * `spec.sync.syncOnly`, each {group, version, kind}; none without a Config; an error naming the field.
 */
export function configSyncedReads(manifests: readonly Manifest[]): { reads: ClusterRead[]; errors: string[] } {
  const reads: ClusterRead[] = [];
  const errors: string[] = [];
  for (const config of manifests.filter(isSyncConfig)) {
    const syncOnly = (config.spec as { sync?: { syncOnly?: unknown } } | undefined)?.sync?.syncOnly ?? [];
    if (!Array.isArray(syncOnly)) {
      errors.push(`Config ${nameOf(config)}: spec.sync.syncOnly: expected a list of {group, version, kind}`);
      continue;
    }
    syncOnly.forEach((entry: { group?: unknown; version?: unknown; kind?: unknown }, index) => {
      const { group = '', version, kind } = entry ?? {};
      if (typeof group !== 'string' || typeof version !== 'string' || typeof kind !== 'string') {
        errors.push(`Config ${nameOf(config)}: spec.sync.syncOnly[${index}]: group, version and kind are required`);
        return;
      }
      const read = readOfKind(group, version, kind);
      if (typeof read === 'string') errors.push(`Config ${nameOf(config)}: spec.sync.syncOnly[${index}] ${kind}: ${read}`);
      else reads.push(read);
    });
  }
  return { reads: uniqueReads(reads), errors };
}

/** The Rego engine's rule for one constraint of the template: the `rego` field of its parameters. */
export function regoRuleOf(code: RegoCode, constraint: Manifest, inventory?: ClusterRead[]): Record<string, unknown> {
  const parameters = (constraint.spec as { parameters?: unknown } | undefined)?.parameters ?? {};
  return {
    modules: code.modules,
    violations: `${code.packagePath}.violation`,
    input: { parameters },
    ...(inventory ? { inventory } : {}),
  };
}
