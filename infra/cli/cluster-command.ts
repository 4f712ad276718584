// `portcullis cluster`: the cluster snapshot that policies reading the cluster are answered from.
//   reads     what the policies (--rules DIR, --bucket, --local) read of the cluster, derived from them
//   snapshot  reads exactly that from a cluster (kubeconfig), and prints the snapshot or, with --push,
//             writes it beside the rules (`<prefix>clusters/<name>.jsonl`, or `<dir>/clusters/<name>.jsonl`)
//   rbac      the least ClusterRole/Role and bindings a writer needs for those reads, for kubectl apply
// The scheduled function (functions/cluster-snapshot/) writes the same document from EKS on a schedule.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { describeAwsError } from '../../functions/admission/aws/aws-error.js';
import { s3Sdk } from '../s3-client.js';
import { ClusterNameSchema } from '../../functions/admission/config.js';
import { type ClusterRead, describeRead, uniqueReads } from '../../functions/admission/cluster/cluster-reads.js';
import { isSecrets } from '../../functions/admission/cluster/cluster-view.js';
import type { PolicyDocument } from '../../functions/admission/policy.js';
import { auditedResources } from '../../functions/audit/background-audit.js';
import { apiVersionOf } from '../../functions/audit/listed-resources.js';
import { snapshotText } from '../../functions/admission/cluster/cluster-snapshot.js';
import { snapshotFileName } from '../../functions/admission/rules/rules-source.js';
import * as v from '../../functions/admission/schema.js';
import { readsOfPolicies } from '../../functions/cluster-snapshot/policy-reads.js';
import { readerRbac, type Subject } from '../../functions/cluster-snapshot/reader-rbac.js';
import { takeSnapshot } from '../../functions/cluster-snapshot/take-snapshot.js';
import { type DocumentReader, readPolicyDocuments } from '../rules-documents.js';
import type { FleetLayout } from '../fleet-layout.js';
import { EXIT, UsageError } from './cli-errors.js';
import { dropStackOutput, print } from './cli-output.js';
import { formatDocument, outputOption } from './output-format.js';
import { documentReader, fleetLayout, type RulesLocationOptions, rulesBucket, rulesLocationOptions } from './rules-location.js';
import { fleetView } from '../fleet-view.js';
import { maxBytes } from './rules-document-file.js';

/**
 * The policies' documents, where the options say; invalid documents are a usage error. With a cluster of a
 * fleet, what that cluster enforces (its overlays and placement): each cluster's snapshot and RBAC hold its own
 * reads and no more.
 */
async function policyDocuments(options: RulesLocationOptions, cluster?: string): Promise<PolicyDocument[]> {
  let fleetWide: DocumentReader | undefined;
  if (cluster !== undefined) {
    let layout: FleetLayout;
    let view: ReturnType<typeof fleetView>;
    try {
      layout = await fleetLayout(options);
      view = fleetView(layout, maxBytes());
    } catch (error) {
      throw new UsageError(`cannot read the rules documents: ${describeAwsError(error)}`);
    }
    if (!view.ok) throw new UsageError(`${view.errors.join('\n')}\nfix the fleet first`);
    const found = view.clusters.find((candidate) => candidate.cluster === cluster);
    if (found) return found.documents;
    if (view.fleet)
      throw new UsageError(`--cluster ${cluster}: not a cluster of the fleet (${view.clusters.map((known) => known.cluster).join(', ')})`);
    // No fleet: every cluster enforces the fleet-wide documents, already read.
    fleetWide = async (policy) => layout.documents.get(policy);
  }
  let read: Awaited<ReturnType<typeof readPolicyDocuments>>;
  try {
    read = await readPolicyDocuments(fleetWide ?? documentReader(options));
  } catch (error) {
    throw new UsageError(`cannot read the rules documents: ${describeAwsError(error)}`);
  }
  if (!read.ok) throw new UsageError(`${read.errors.join('\n')}\nfix the documents first`);
  return read.documents;
}

/** What the policies read of the cluster, from their documents. */
const policyReads = async (options: RulesLocationOptions, cluster?: string): Promise<ClusterRead[]> =>
  readsOfPolicies((await policyDocuments(options, cluster)) as never);

/** What the background audit lists: every object of what the rules judge, cluster-wide. */
function auditReads(documents: PolicyDocument[]): ClusterRead[] {
  const listed = auditedResources(documents);
  if (!listed.ok) throw new UsageError(`${listed.errors.join('\n')}\nfix the documents first`);
  return listed.resources.map((resource) => ({ apiVersion: apiVersionOf(resource), resource: resource.resource }));
}

interface SnapshotOptions extends RulesLocationOptions {
  cluster: string;
  kubeconfig?: string;
  context?: string;
  pageSize: string;
  push?: boolean;
}

/** Where --push writes: the bucket the rules were read from, else the rules folder. */
async function push(options: SnapshotOptions, text: string): Promise<string> {
  const name = snapshotFileName(options.cluster);
  const target = rulesBucket(options);
  if (target) {
    const key = `${target.prefix}${name}`;
    await target.client.send(
      new (s3Sdk().PutObjectCommand)({ Bucket: target.bucket, Key: key, Body: text, ContentType: 'application/jsonl' }),
    );
    return `s3://${target.bucket}/${key}`;
  }
  const file = join(options.rules ?? 'policies', name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

async function snapshot(options: SnapshotOptions): Promise<number> {
  const name = v.safeParse(ClusterNameSchema, options.cluster);
  if (!name.success) throw new UsageError(`--cluster ${options.cluster}: ${name.issues[0].message}`);
  const pageSize = Number(options.pageSize);
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new UsageError(`--page-size ${options.pageSize}: expected a whole number above 0`);
  const reads = await policyReads(options, options.cluster);
  if (reads.length === 0) process.stderr.write('note: no policy reads the cluster: the snapshot holds nothing\n');
  // Loaded only to read a cluster: @kubernetes/client-node takes seconds to import.
  const { kubeconfigKubernetesGet, loadKubeConfig } = await import('../audit/cluster-objects.js');
  let config: ReturnType<typeof loadKubeConfig>;
  try {
    config = loadKubeConfig({ kubeconfig: options.kubeconfig, context: options.context });
  } catch (error) {
    throw new UsageError(`kubeconfig: ${(error as Error).message}`);
  }
  const taken = await takeSnapshot(kubeconfigKubernetesGet(config), reads, {
    cluster: options.cluster,
    now: new Date(),
    pageSize,
  });
  const text = snapshotText(taken);
  const objects = taken.collections.reduce((count, { items }) => count + items.length, 0);
  const summary = `${objects} objects of ${reads.length} reads from ${config.getCurrentCluster()!.server}, ${text.length} bytes`;
  if (!options.push) {
    print(text);
    process.stderr.write(`${summary}\n`);
    return EXIT.ok;
  }
  const where = await push(options, text);
  process.stderr.write(`wrote ${where}: ${summary}\n`);
  return EXIT.ok;
}

interface RbacOptions extends RulesLocationOptions {
  cluster?: string;
  audit?: boolean;
  user?: string;
  group?: string;
  name: string;
}

async function rbac(options: RbacOptions): Promise<number> {
  if (options.user && options.group) throw new UsageError('give --user or --group, not both');
  const subject: Subject = options.user
    ? { kind: 'User', name: options.user }
    : { kind: 'Group', name: options.group ?? 'portcullis:snapshot-readers' };
  const documents = await policyDocuments(options, options.cluster);
  const reads = readsOfPolicies(documents as never);
  const manifests = readerRbac(options.audit ? uniqueReads([...reads, ...auditReads(documents)]) : reads, subject, options.name);
  if (manifests.length === 0) process.stderr.write('note: no policy reads the cluster: no access is needed\n');
  if (reads.some(isSecrets))
    process.stderr.write(
      "note: the snapshot keeps Secrets' metadata only, but RBAC cannot narrow get or list to metadata: this grant on secrets could read their data\n",
    );
  print(manifests.map((manifest) => stringify(manifest)).join('---\n'));
  return EXIT.ok;
}

export function registerClusterCommand(program: Command): void {
  const cluster = program
    .command('cluster')
    .description('the cluster snapshot that policies reading the cluster are answered from')
    .addHelpText('after', '\nSee docs/reading-the-cluster.md.');

  rulesLocationOptions(cluster.command('reads').description('what the policies read of the cluster, derived from their rules documents'))
    .option('--cluster <name>', 'what this cluster of the fleet reads (its overlays and placement)')
    .addOption(outputOption(['table', 'json', 'yaml'], 'table'))
    .action(async (options: RulesLocationOptions & { cluster?: string; output: 'table' | 'json' | 'yaml' }) => {
      dropStackOutput();
      const reads = await policyReads(options, options.cluster);
      if (options.output === 'table')
        print(reads.length === 0 ? 'no policy reads the cluster\n' : `${reads.map(describeRead).join('\n')}\n`);
      else print(formatDocument(reads, options.output));
    });

  rulesLocationOptions(
    cluster.command('snapshot').description('read what the policies read from a cluster (kubeconfig) into a cluster snapshot'),
  )
    .requiredOption('--cluster <name>', 'the cluster, as its tokens name it (a fleet: what it enforces is what is read)')
    .option('--kubeconfig <file>', 'the cluster of this kubeconfig (default: KUBECONFIG, else ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use')
    .option('--page-size <n>', 'objects per list request (limit)', '500')
    .option('--push', 'write it beside the rules (the bucket, or clusters/ in the rules folder) instead of printing it')
    .action(async (options: SnapshotOptions) => {
      dropStackOutput();
      process.exitCode = await snapshot(options);
    });

  rulesLocationOptions(cluster.command('rbac').description('the least RBAC a snapshot writer needs, for kubectl apply -f -'))
    .option('--cluster <name>', "this cluster of the fleet's: for what it enforces (its overlays and placement)")
    .option('--audit', 'also list every object of what the rules judge, as the background audit does')
    .option('--user <name>', 'bind it to this user')
    .option('--group <name>', 'bind it to this group (default: portcullis:snapshot-readers)')
    .option('--name <name>', 'the roles and bindings are named so', 'portcullis-snapshot-reader')
    .action(async (options: RbacOptions) => {
      dropStackOutput();
      process.exitCode = await rbac(options);
    });
}
