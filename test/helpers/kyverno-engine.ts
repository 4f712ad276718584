// Vitest setup: Kyverno's engine registered before any test reads a ClusterPolicy synchronously
// (parseRulesDocument), as the CLI does; the function itself loads it on demand (engine-loader.ts).
import '../../functions/engines/kyverno/engine.js';
