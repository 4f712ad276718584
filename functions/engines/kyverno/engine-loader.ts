// Where the Kyverno engine (engine.ts) is held once loaded: the cel and mutations policies and the
// ClusterPolicy formats call it through here, so none imports it, and a function that never reads a
// ClusterPolicy never loads it.
import type { expressionProblems } from './policy/expression-problems.js';
import type { kyvernoOutcome } from './validate/evaluate-rule.js';
import type { mutateWithRule } from './mutate/mutate-rule.js';

export interface KyvernoEngine {
  kyvernoOutcome: typeof kyvernoOutcome;
  expressionProblems: typeof expressionProblems;
  mutateWithRule: typeof mutateWithRule;
}

let loaded: KyvernoEngine | undefined;

export const registerKyvernoEngine = (engine: KyvernoEngine) => {
  loaded = engine;
};

export const kyvernoEngineLoaded = () => loaded !== undefined;

export async function loadKyvernoEngine(): Promise<void> {
  if (!loaded) await import('./engine.js');
}

/** The engine; reading ClusterPolicies before it is loaded is a programming error, said as such. */
export function kyvernoEngine(): KyvernoEngine {
  if (!loaded) throw new Error('the Kyverno engine is not loaded (loadKyvernoEngine before reading ClusterPolicies)');
  return loaded;
}

/** Whether parsed rules data holds Kyverno ClusterPolicies or PolicyExceptions, which need the engine. */
export const needsKyvernoEngine = (data: unknown): boolean =>
  (Array.isArray(data) ? data : [data]).some(
    (document) =>
      typeof (document as { apiVersion?: unknown } | null)?.apiVersion === 'string' &&
      String((document as { apiVersion: string }).apiVersion).startsWith('kyverno.io/'),
  );
