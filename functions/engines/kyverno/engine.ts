// Kyverno's engine as the cel function loads it: on demand, when a rules document holds ClusterPolicies,
// so functions without them never load JMESPath, the YAML parser its functions use, or the pattern walk.
// A static import (the CLI, the tests, the benchmarks) registers it at once.
import '../../admission/shared-chunk.js'; // the bundle's layout: see that file
import { kyvernoOutcome } from './validate/evaluate-rule.js';
import { registerKyvernoEngine } from './engine-loader.js';
import { mutateWithRule } from './mutate/mutate-rule.js';
import { expressionProblems } from './policy/expression-problems.js';

export const engine = { kyvernoOutcome, expressionProblems, mutateWithRule };
registerKyvernoEngine(engine);
