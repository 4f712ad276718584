// Gatekeeper's own test format, run as written: a gator `suite.yaml` (`test.gatekeeper.sh` Suite) pairs a
// ConstraintTemplate with a constraint and states, per object, assertions on the violations (`violations:
// yes|no|<n>`, `message`: an unanchored regular expression filtering which are counted). A template runs
// as the cel function runs it (its CEL if it has a K8sNativeValidation engine, else its Rego); a case's
// `inventory:` objects are the Rego's data.inventory, laid out as Gatekeeper syncs them. An object may be a
// whole AdmissionReview.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { type ClusterView, completeView } from '../../functions/admission/cluster/cluster-view.js';
import { inventoryOf } from '../../functions/engines/rego/index.js';
import { ruleResults } from '../../functions/audit/rule-results.js';
import { caseDeadline, type TestLimits } from '../../functions/engines/runtime/test-limits.js';

import { type CaseOutcome, failed, passed, skipped } from './case-outcome.js';
import { bundleRules, cel } from './manifest-bundle-rules.js';
import { offlineRequest } from '../../functions/audit/offline-request.js';
import { yamlDocuments } from './yaml-documents.js';

export interface GatorAssertion {
  violations?: 'yes' | 'no' | number | boolean;
  message?: string;
}

interface GatorSuite {
  tests?: {
    name?: string;
    template?: string;
    constraint?: string;
    cases?: { name?: string; object?: string; assertions?: GatorAssertion[]; inventory?: string[] }[];
  }[];
}

type Manifest = { apiVersion?: string; kind?: string };

export const isGatorSuite = (document: Manifest) =>
  document.kind === 'Suite' && String(document.apiVersion).startsWith('test.gatekeeper.sh/');

const documentsOf = (file: string) => yamlDocuments<Manifest>(file);

/** Whether violation messages satisfy an assertion (violations defaults to yes), and if not, why. */
export function assertionMismatch(violations: string[], assertion: GatorAssertion): string | undefined {
  const pattern = assertion.message === undefined ? undefined : new RegExp(assertion.message);
  const count = violations.filter((violation) => !pattern || pattern.test(violation)).length;
  const expected = assertion.violations ?? 'yes';
  const holds =
    expected === 'yes' || expected === true ? count > 0 : expected === 'no' || expected === false ? count === 0 : count === expected;
  if (holds) return undefined;
  const counted = pattern ? ` matching /${assertion.message}/` : '';
  return `expected violations${counted}: ${expected}\ngot:     ${count}${violations.length > 0 ? `\n  ${violations.join('\n  ')}` : ''}`;
}

/** The cluster a case runs in, as gator has it: its `inventory:` objects, and nothing else (none without one). */
function clusterOf(folder: string, inventory: string[] = []): ClusterView | string {
  const objects = inventory.flatMap((file) => documentsOf(join(folder, file)));
  const laidOut = inventoryOf(objects);
  return laidOut.ok ? completeView(objects as Record<string, unknown>[]) : laidOut.error;
}

export async function runGatorSuite(file: string, limits: TestLimits): Promise<CaseOutcome[]> {
  const folder = dirname(file);
  const suite = parse(readFileSync(file, 'utf8')) as GatorSuite;
  const outcomes: CaseOutcome[] = [];
  for (const test of suite.tests ?? []) {
    const manifests = [...documentsOf(join(folder, String(test.template))), ...documentsOf(join(folder, String(test.constraint)))];
    // The same rules for every case: a case's inventory is its cluster, not part of the rules.
    const rules = bundleRules(manifests);
    for (const entry of test.cases ?? []) {
      const name = `${test.name}: ${entry.name}`;
      const cluster = clusterOf(folder, entry.inventory);
      if (typeof cluster === 'string') {
        outcomes.push(failed(file, name, cluster));
        continue;
      }
      if (!rules.ok) {
        outcomes.push(
          rules.refused
            ? skipped(file, name, rules.errors.join('; '))
            : failed(file, name, `the template and constraint are not valid:\n${rules.errors.join('\n')}`),
        );
        continue;
      }
      const request = offlineRequest(parse(readFileSync(join(folder, String(entry.object)), 'utf8')));
      if (!request.ok) {
        outcomes.push(failed(file, name, request.error));
        continue;
      }
      const results = await ruleResults(cel, rules.document, request.request, new Date(), cluster, caseDeadline(limits));
      const violations = results.filter((result) => result.result === 'fail').flatMap((result) => result.messages);
      const errors = results.filter((result) => result.result === 'error').flatMap((result) => result.messages);
      const mismatches = (entry.assertions ?? [{}])
        .map((assertion) => assertionMismatch(violations, assertion))
        .filter((text): text is string => text !== undefined);
      if (errors.length > 0) mismatches.push(`errors:\n  ${errors.join('\n  ')}`);
      outcomes.push(mismatches.length === 0 ? passed(file, name) : failed(file, name, mismatches.join('\n')));
    }
  }
  return outcomes;
}
