// The Rego engine's parser, compiler and evaluator: what index.ts loads when a bundle first holds Rego, so
// functions without it never load them.
import { callsGraphql, graphqlLibraryLoaded, loadGraphqlLibrary } from './builtins/graphql/library.js';
import { validateWithRego } from './gatekeeper-target/admission-target.js';
import { compileSources, type RegoSource } from './compile-sources.js';
import { RegoError } from './errors.js';
import { evaluateDocument } from './eval/query.js';
import { evalReport } from './eval-report.js';
import { runOpaCase } from './opa-cases.js';
import { runUnitTests } from './unit-tests.js';
import { attestationPolicyOutcome } from './sigstore-target/attestation-policy.js';

/**
 * Why a rule as a format wrote it cannot run: its modules do not compile, or they read base documents under
 * data that the rule does not provide (data.inventory, when no kinds are synced for it). Compiled once: the
 * schema reuses it.
 */
function problemsOf(written: unknown): string[] {
  const rule = written as { modules?: RegoSource[]; data?: Record<string, unknown>; inventory?: unknown };
  if (!Array.isArray(rule?.modules)) return [];
  let policy: ReturnType<typeof compileSources>;
  try {
    policy = compileSources(rule.modules);
  } catch (error) {
    if (error instanceof RegoError) return [error.message];
    throw error;
  }
  const provided = new Set([...Object.keys(rule.data ?? {}), ...(rule.inventory ? ['inventory'] : [])]);
  return [...policy.baseDocuments]
    .filter((name) => !provided.has(name.split('.')[0]!))
    .map((name) =>
      name.startsWith('*')
        ? 'reads documents under data by a computed name, which nothing here provides'
        : `reads data.${name}, which nothing here provides`,
    );
}

/** graphql-js, which a policy that calls a GraphQL built-in needs loaded before it runs. */
const graphqlLibrary = { callsGraphql, loaded: graphqlLibraryLoaded, load: loadGraphqlLibrary };

export const evaluator = {
  compileSources,
  evaluateDocument,
  validate: validateWithRego,
  problemsOf,
  runUnitTests,
  runOpaCase,
  evalReport,
  graphqlLibrary,
  attestationPolicyOutcome,
};
export type Evaluator = typeof evaluator;
