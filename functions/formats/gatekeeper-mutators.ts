// Gatekeeper's mutators (mutations.gatekeeper.sh v1, v1beta1, v1alpha1: Assign, AssignMetadata, ModifySet,
// AssignImage) as one rule of the mutations function: the bundle's mutators together, as Gatekeeper's one
// mutating webhook runs them (they are ordered and repeated until they converge, so they cannot be apart).
// Its match registers what their applyTo names (AssignMetadata: what its match.kinds names, else every kind),
// for CREATE and UPDATE as Gatekeeper's webhook; each mutator's own applyTo and match are the engine's to
// read. Gatekeeper's webhook fails open (Ignore) and is never reinvoked. ExpansionTemplate is not read:
// expansion runs in Gatekeeper's audit and gator, not at admission.
import { resourceOfKind } from '../admission/kubernetes/kind-resource.js';
import { gatekeeperEngine, MUTATOR_KINDS } from '../engines/gatekeeper/index.js';
import { type FormatResult, groupOf, type Manifest, nameOf, type PolicyFormat } from './policy-format.js';

export const GATEKEEPER_MUTATION = 'gatekeeper-mutation';
const KINDS: ReadonlySet<string> = new Set(MUTATOR_KINDS);
const WEBHOOK_OPERATIONS = ['CREATE', 'UPDATE'];

type ApplyTo = { groups?: unknown; versions?: unknown; kinds?: unknown; operations?: unknown };
type Kinds = { apiGroups?: unknown; kinds?: unknown };

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item) => typeof item === 'string') : []);

/** The resource rules the webhook is registered with for one mutator: its applyTo, else its match.kinds. */
function resourceRulesOf(mutator: Manifest): Record<string, unknown>[] {
  const spec = mutator.spec ?? {};
  if (Array.isArray(spec.applyTo))
    return (spec.applyTo as ApplyTo[]).map((entry) => {
      const operations = strings(entry.operations).filter((operation) => WEBHOOK_OPERATIONS.includes(operation));
      return {
        apiGroups: strings(entry.groups),
        apiVersions: strings(entry.versions),
        resources: strings(entry.kinds).map(resourceOfKind),
        operations: operations.length > 0 ? operations : WEBHOOK_OPERATIONS,
      };
    });
  const kinds = (spec.match as { kinds?: Kinds[] } | undefined)?.kinds;
  const every = { apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: WEBHOOK_OPERATIONS };
  if (!Array.isArray(kinds) || kinds.length === 0) return [every];
  return kinds.map((entry) => {
    const names = strings(entry?.kinds);
    const groups = strings(entry?.apiGroups);
    return {
      ...every,
      apiGroups: groups.length > 0 ? groups : ['*'],
      resources: names.length === 0 || names.includes('*') ? ['*'] : names.map(resourceOfKind),
    };
  });
}

function rulesOfMutators(mutators: readonly Manifest[]): FormatResult {
  if (mutators.length === 0) return { rules: [], errors: [] };
  const written = { mutators };
  const problems = gatekeeperEngine.check(written);
  if (problems.length > 0) return { rules: [], errors: problems };
  const rule = {
    name: GATEKEEPER_MUTATION,
    mode: 'enforce',
    failurePolicy: 'Ignore',
    reinvocationPolicy: 'Never',
    origin: { kind: 'Gatekeeper mutators', name: GATEKEEPER_MUTATION },
    match: { resourceRules: [...new Map(mutators.flatMap(resourceRulesOf).map((rule) => [JSON.stringify(rule), rule])).values()] },
    parameters: { gatekeeper: written },
  };
  const label = `Gatekeeper mutators (${mutators.map((mutator) => `${mutator.kind} ${nameOf(mutator)}`).join(', ')})`;
  return { rules: [{ rule, label, parametersAt: 'spec', matchAt: 'spec.applyTo' }], errors: [] };
}

export const gatekeeperMutatorsFormat: PolicyFormat = {
  name: 'Gatekeeper mutators',
  engines: () => [gatekeeperEngine],
  claims: (manifest) => groupOf(manifest) === 'mutations.gatekeeper.sh' && KINDS.has(String(manifest.kind)),
  rulesOf: rulesOfMutators,
};
