// Kyverno's globalContext library for CEL (pkg/cel/libs/globalcontext): an entry's cached value, whole or one
// projection of it. The functions refuse it at compile (program.ts): a GlobalContextEntry caches cluster or
// service data that no snapshot holds. `policy test` compiles it when the suite's globalContextEntries
// answer it. As in Kyverno, an entry that is not there is null; a projection that is not there is an error.
import { ClusterLookupError } from '../../../../admission/cluster/cluster-view.js';
import { currentCluster, currentEvaluation } from '../../../runtime/evaluation.js';
import { toCel } from '../../program.js';
import type { CelLibrary } from '../cel-library.js';

function entry(_globalContext: unknown, name: string, projection = ''): unknown {
  const answers = currentCluster()?.answers;
  if (!answers) throw new ClusterLookupError("Kyverno's globalContext.Get reads cached cluster data, which is not here");
  const answer = answers.globalEntry(name);
  if (!answer.found) return null;
  currentEvaluation()?.budget.charge(1);
  if (projection === '') return toCel(answer.value, `global context entry ${name}`);
  const whole = answer.value;
  if (typeof whole !== 'object' || whole === null || Array.isArray(whole) || !Object.hasOwn(whole, projection))
    throw new Error(`projection "${projection}" not found in global context entry "${name}"`);
  return toCel((whole as Record<string, unknown>)[projection], `global context entry ${name}`);
}

export const kyvernoGlobalContextLibrary: CelLibrary = {
  name: 'kyverno.globalcontext',
  kyvernoOnly: true,
  namespaces: [{ constant: 'globalContext' }],
  functions: {
    'globalContext.Get(string): dyn': entry,
    'globalContext.Get(string, string): dyn': entry,
    'globalContext.get(string): dyn': entry,
    'globalContext.get(string, string): dyn': entry,
  },
};
