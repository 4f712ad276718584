// `portcullis audit`: what the policies would say about objects that already exist, before enforcing them.
// Every policy with a rules document (--rules DIR, --bucket or --local) judges each object in-process as a
// CREATE, per rule, at --now. Objects come from files (--from: `kubectl get -A -o json|yaml` Lists,
// multi-document YAML, single objects) or a live cluster through its kubeconfig, listing exactly the
// resources the policies' registration would send. Exit 1 with --fail-on-violation when a rule fails or
// cannot be evaluated; 2 on bad input (an invalid rules document included: nothing is audited with it).
import type { Command } from 'commander';
import { describeAwsError } from '../../functions/admission/aws/aws-error.js';
import { type ClusterView, clusterView } from '../../functions/admission/cluster/cluster-view.js';
import { readsOfPolicies } from '../../functions/cluster-snapshot/policy-reads.js';
import { takeSnapshot } from '../../functions/cluster-snapshot/take-snapshot.js';
import { snapshotFileView } from './cluster-snapshot-file.js';
import { type AuditedObject, auditObjects } from '../../functions/audit/audit-objects.js';
import type { loadKubeConfig } from '../audit/cluster-objects.js';
import { listedResources } from '../../functions/audit/listed-resources.js';
import { policyReports } from '../../functions/audit/policy-report.js';
import { type PolicyDocument, readPolicyDocuments } from '../rules-documents.js';
import { registrationsOf } from '../../functions/registration/webhook-registration.js';
import { EXIT, UsageError } from './cli-errors.js';
import { dropStackOutput, print } from './cli-output.js';
import { readKubernetesObjects } from './kubernetes-objects.js';
import { formatDocument, outputOption } from './output-format.js';
import { policyNamed } from './policy-lookup.js';
import { documentReader, type RulesLocationOptions, rulesLocationOptions } from './rules-location.js';
import { parseNow } from './time-option.js';

type AuditOutput = 'table' | 'json' | 'yaml' | 'policyreport' | 'openreports';

interface AuditOptions extends RulesLocationOptions {
  from?: string[];
  kubeconfig?: string;
  context?: string;
  pageSize?: string;
  policy?: string[];
  now?: string;
  output: AuditOutput;
  failOnViolation?: boolean;
  includeSecrets?: boolean;
  clusterSnapshot?: string;
}

const VIOLATIONS = new Set(['fail', 'error']);

interface SummaryRow {
  policy: string;
  rule: string;
  namespace: string;
  fail: number;
  warn: number;
  error: number;
}

/** Per policy, rule and namespace: how many objects fail, would be changed (warn), or could not be judged. */
function summaryRows(objects: AuditedObject[]): SummaryRow[] {
  const rows = new Map<string, SummaryRow>();
  for (const { resource, results } of objects) {
    for (const { function: policy, rule, result } of results) {
      if (result !== 'fail' && result !== 'warn' && result !== 'error') continue;
      const namespace = resource.namespace ?? '(cluster)';
      const key = JSON.stringify([policy, rule, namespace]);
      const row = rows.get(key) ?? { policy, rule, namespace, fail: 0, warn: 0, error: 0 };
      row[result] += 1;
      rows.set(key, row);
    }
  }
  return [...rows.values()].sort(
    (a, b) => a.policy.localeCompare(b.policy) || a.rule.localeCompare(b.rule) || a.namespace.localeCompare(b.namespace),
  );
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function describeAudit(objects: AuditedObject[], rows: SummaryRow[]): string {
  const counts = countResults(objects);
  const totals = `${objects.length} objects: ${Object.entries(counts)
    .map(([result, count]) => `${count} ${result}`)
    .join(', ')}`;
  if (rows.length === 0) return `no rule fails on any object\n${totals}\n`;
  const summary = table([
    ['POLICY', 'RULE', 'NAMESPACE', 'FAIL', 'WARN', 'ERROR'],
    ...rows.map((row) => [row.policy, row.rule, row.namespace, String(row.fail), String(row.warn), String(row.error)]),
  ]);
  const details = objects.flatMap(({ resource, results }) =>
    results
      .filter(({ result }) => result !== 'pass' && result !== 'skip')
      .map(
        ({ function: policy, rule, result, messages }) =>
          `${result.toUpperCase().padEnd(5)} ${policy}/${rule}  ${resource.kind} ${resource.namespace ? `${resource.namespace}/` : ''}${resource.name}: ${messages.join('; ')}`,
      ),
  );
  return `${summary}\n\n${details.join('\n')}\n\n${totals}\n`;
}

function countResults(objects: AuditedObject[]): Record<string, number> {
  const counts: Record<string, number> = { fail: 0, warn: 0, error: 0, pass: 0, skip: 0 };
  for (const { results } of objects) for (const { result } of results) counts[result]! += 1;
  return counts;
}

async function policyDocuments(options: AuditOptions): Promise<PolicyDocument[]> {
  const wanted = options.policy?.map((name) => policyNamed(name).name);
  let read: Awaited<ReturnType<typeof readPolicyDocuments>>;
  try {
    read = await readPolicyDocuments(documentReader(options));
  } catch (error) {
    throw new UsageError(`cannot read the rules documents: ${describeAwsError(error)}`);
  }
  if (!read.ok) throw new UsageError(`${read.errors.join('\n')}\nnothing audited: fix the documents first`);
  const documents = read.documents.filter(({ policy }) => !wanted || wanted.includes(policy.name));
  const missing = read.missing.filter((name) => !wanted || wanted.includes(name));
  if (missing.length > 0) process.stderr.write(`note: not audited, no rules document: ${missing.join(', ')}\n`);
  if (documents.length === 0) throw new UsageError('no policy has a rules document to audit with');
  return documents;
}

/** The objects, and the cluster view rules that read the cluster are judged with (a file, or the cluster listed). */
async function objectsToAudit(options: AuditOptions, documents: PolicyDocument[]): Promise<{ objects: unknown[]; cluster?: ClusterView }> {
  const given = options.clusterSnapshot ? snapshotFileView(options.clusterSnapshot) : undefined;
  if (options.from) {
    if (options.kubeconfig || options.context) throw new UsageError('give --from or a cluster (--kubeconfig, --context), not both');
    return { objects: options.from.flatMap((path) => readKubernetesObjects(path)), ...(given ? { cluster: given } : {}) };
  }
  const registrations = documents.flatMap(({ policy, document }) => {
    const derived = registrationsOf(policy, document);
    return derived.ok ? derived.registrations : [];
  });
  const { resources, notes } = listedResources(registrations, { includeSecrets: options.includeSecrets });
  const pageSize = options.pageSize === undefined ? 500 : Number(options.pageSize);
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new UsageError(`--page-size ${options.pageSize}: expected a whole number above 0`);
  // Loaded only to read a cluster: @kubernetes/client-node takes seconds to import, and every command would pay it.
  const { kubeconfigKubernetesGet, listClusterObjects, loadKubeConfig } = await import('../audit/cluster-objects.js');
  let config: ReturnType<typeof loadKubeConfig>;
  try {
    config = loadKubeConfig({ kubeconfig: options.kubeconfig, context: options.context });
  } catch (error) {
    throw new UsageError(`kubeconfig: ${(error as Error).message}`);
  }
  const listed = await listClusterObjects(config, resources, pageSize);
  for (const note of [...notes, ...listed.notes]) process.stderr.write(`note: ${note}\n`);
  process.stderr.write(
    `listed ${listed.objects.length} objects of ${resources.map(({ resource }) => resource).join(', ')} from ${config.getCurrentCluster()!.server}\n`,
  );
  // What rules that read the cluster read, from the same cluster now, unless a snapshot file was given.
  const reads = readsOfPolicies(documents as never);
  if (given || reads.length === 0) return { objects: listed.objects, ...(given ? { cluster: given } : {}) };
  const taken = await takeSnapshot(kubeconfigKubernetesGet(config), reads, { cluster: 'audited', now: new Date(), pageSize });
  return { objects: listed.objects, cluster: clusterView(taken.collections, { takenAt: taken.takenAt }) };
}

async function audit(options: AuditOptions): Promise<number> {
  const now = parseNow(options.now) ?? new Date();
  const documents = await policyDocuments(options);
  const { objects, cluster } = await objectsToAudit(options, documents);
  const startedAt = performance.now();
  const audited = await auditObjects(documents, objects, now, cluster);
  process.stderr.write(
    `audited ${objects.length} objects with ${documents.map(({ policy }) => policy.name).join(', ')} in ${((performance.now() - startedAt) / 1000).toFixed(2)} s\n`,
  );
  const judged = audited.filter(({ results }) => results.length > 0);
  if (options.output === 'table') print(describeAudit(audited, summaryRows(audited)));
  // JSON, as a v1 List: kubectl applies it as it is, and it prints in a fraction of the time YAML takes for a large cluster.
  else if (options.output === 'policyreport' || options.output === 'openreports')
    print(
      formatDocument(
        {
          apiVersion: 'v1',
          kind: 'List',
          items: policyReports(judged, now, options.output === 'policyreport' ? 'wgpolicyk8s' : 'openreports'),
        },
        'json',
      ),
    );
  else print(formatDocument({ summary: summaryRows(audited), totals: countResults(audited), objects: judged }, options.output));
  const violated = audited.some(({ results }) => results.some(({ result }) => VIOLATIONS.has(result)));
  return options.failOnViolation && violated ? EXIT.found : EXIT.ok;
}

export function registerAuditCommand(program: Command): void {
  rulesLocationOptions(
    program.command('audit').description('judge objects that already exist with every policy that has rules, before enforcing them'),
  )
    .option('--from <files...>', 'objects from files or folders: kubectl get -A -o json|yaml Lists, multi-document YAML, single objects')
    .option('--kubeconfig <file>', 'list objects from the cluster of this kubeconfig (default: KUBECONFIG, else ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use')
    .option('--include-secrets', 'list Secrets too, when a policy matches them (their data is read into this process)')
    .option('--page-size <n>', 'objects per list request (limit)', '500')
    .option('--cluster-snapshot <file>', 'what rules that read the cluster read (default: read from the cluster audited; none with --from)')
    .option('--policy <names...>', 'audit with these policies only')
    .option('--now <time>', 'the clock time-dependent policies are handed, ISO 8601')
    .addOption(outputOption(['table', 'json', 'yaml'], 'table').choices(['table', 'json', 'yaml', 'policyreport', 'openreports']))
    .option('--fail-on-violation', 'exit 1 when any rule fails, or could not be evaluated, on any object')
    .addHelpText(
      'after',
      '\nEach object is judged as a CREATE request. Results per rule: fail (a violation, whatever the rule does\nwith it), warn (a mutating rule would change the object), error, pass, skip. -o policyreport prints a\nv1 List (JSON) of wgpolicyk8s.io/v1alpha2 PolicyReports, one per namespace, and a ClusterPolicyReport, for\nkubectl apply -f -; -o openreports the same as openreports.io/v1alpha1 Reports and a ClusterReport.',
    )
    .action(async (options: AuditOptions) => {
      dropStackOutput();
      process.exitCode = await audit(options);
    });
}
