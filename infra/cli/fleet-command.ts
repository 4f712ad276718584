// `portcullis fleet plan|push|status`: a fleet's documents as one (fleet.yaml, the fleet-wide documents, each
// cluster's overlays), checked as a whole (fleet-view.ts). `plan` prints, per cluster, the policies it
// enforces and what each does on a violation, and, given the bucket, what pushing the folder would change;
// `push` uploads what differs, after the same checks, each object only if nobody changed it since it was read;
// `status` says, per cluster, what the functions, the snapshot writer and the background audit last recorded.
import type { Command } from 'commander';
import { describeAwsError } from '../../functions/admission/aws/aws-error.js';
import { rulesData } from '../../functions/admission/rules/rules-yaml.js';
import { type FleetLayout, fleetLayoutOfBucket, fleetLayoutOfFolder, storedByName } from '../fleet-layout.js';
import { changesOf, type PlanChange, type PlannedCluster, plannedClusters } from '../fleet-plan.js';
import { type ClusterStatus, fleetStatus } from '../fleet-status.js';
import { type FleetView, fleetView } from '../fleet-view.js';
import { type BucketTarget, ChangedSinceReadError, uploadRulesIfUnchanged } from '../rules-bucket.js';
import type { StoredDocument } from '../rules-documents.js';
import { registrationChange } from '../registration-change.js';
import { registrationsOfDocuments } from '../../functions/registration/webhook-registration.js';
import { EXIT, UsageError } from './cli-errors.js';
import { print } from './cli-output.js';
import { formatDocument, outputOption } from './output-format.js';
import { storedAs } from './policy-uploads.js';
import { maxBytes } from './rules-document-file.js';
import { fleetLayout, rulesBucket, type RulesLocationOptions } from './rules-location.js';

interface FleetOptions {
  rules?: string;
  bucket?: string;
  prefix?: string;
  local?: boolean;
}

type ValidView = Extract<FleetView, { ok: true }>;

/** The fleet as the folder has it, checked whole; undefined (errors printed) when it is not valid. */
async function folderView(folder: string): Promise<{ layout: FleetLayout; view: ValidView } | undefined> {
  const layout = await fleetLayoutOfFolder(folder);
  const view = fleetView(layout, maxBytes());
  if (view.ok) return { layout, view };
  process.stderr.write(`${view.errors.join('\n')}\nthe fleet in ${folder} is not valid\n`);
  return undefined;
}

/** The fleet the bucket holds now, when one is named; a bucket whose fleet is invalid plans as empty, saying so. */
async function bucketPlan(options: FleetOptions): Promise<PlannedCluster[] | undefined> {
  if (options.bucket === undefined && !options.local) return undefined;
  const location: RulesLocationOptions = { bucket: options.bucket, prefix: options.prefix, local: options.local };
  const view = fleetView(await fleetLayout(location), maxBytes());
  if (view.ok) return plannedClusters(view);
  process.stderr.write(
    `note: the fleet in the bucket is not valid now (every change is shown against nothing):\n  ${view.errors.join('\n  ')}\n`,
  );
  return [];
}

const labelsText = (labels: Readonly<Record<string, string>>) =>
  Object.entries(labels)
    .filter(([key]) => key !== 'portcullis.dev/cluster')
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');

function planText(cluster: PlannedCluster, changes: PlanChange[] | undefined): string {
  const width = Math.max(0, ...cluster.policies.map((planned) => `${planned.function}/${planned.policy}`.length)) + 2;
  const lines = [`${cluster.cluster}${cluster.listed ? '' : ' (not in fleet.yaml)'}  ${labelsText(cluster.labels) || '(no labels)'}`];
  for (const planned of cluster.policies) {
    const name = `${planned.function}/${planned.policy}`.padEnd(width);
    const where = [
      planned.placement ? `placed on ${planned.placement}` : '',
      planned.overlay ? 'from its overlay' : '',
      planned.override ? `override ${planned.override}` : '',
    ].filter(Boolean);
    lines.push(`  ${name}${planned.actions.join(',')}${where.length > 0 ? `  (${where.join('; ')})` : ''}`);
  }
  if (cluster.policies.length === 0) lines.push('  (no policies)');
  if (changes) {
    lines.push(changes.length === 0 ? '  a push changes nothing here' : '  a push changes:');
    for (const change of changes) {
      const sign = { added: '+', removed: '-', changed: '~' }[change.change];
      const what =
        change.change === 'changed' ? `${change.from!.join(',')} -> ${change.to!.join(',')}` : (change.to ?? change.from ?? []).join(',');
      lines.push(`    ${sign} ${change.function}/${change.policy}  ${what}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `policy validate <folder>/fleet.yaml` (or an overlay, `<folder>/clusters/<cluster>/<policy>.yaml`): the fleet
 * in the folder, checked as a whole, with what each cluster is left with.
 */
export async function validateFleet(folder: string): Promise<number> {
  const checked = await folderView(folder);
  if (!checked) return EXIT.found;
  const { layout, view } = checked;
  const clusters = view.clusters.length;
  print(
    `${folder}: a valid fleet: ${clusters} cluster${clusters === 1 ? '' : 's'}, ${layout.documents.size} fleet-wide document${layout.documents.size === 1 ? '' : 's'}, ${layout.overlays.length} overlay${layout.overlays.length === 1 ? '' : 's'}, ${view.fleet?.overrides.length ?? 0} override${view.fleet?.overrides.length === 1 ? '' : 's'}\n`,
  );
  for (const entry of plannedClusters(view))
    print(`  ${entry.cluster}: ${entry.policies.length} polic${entry.policies.length === 1 ? 'y' : 'ies'}\n`);
  return EXIT.ok;
}

/** The fleet folder a path given to `policy validate` belongs to, when it is fleet.yaml or an overlay. */
export function fleetFolderOf(path: string): string | undefined {
  const normal = path.replace(/\\/g, '/').replace(/\/+$/, '');
  if (/(^|\/)fleet\.yaml$/.test(normal)) return normal.replace(/\/?fleet\.yaml$/, '') || '.';
  const overlay = /^(?:(.*)\/)?clusters\/[^/]+\/[^/]+$/.exec(normal);
  return overlay ? overlay[1] || '.' : undefined;
}

async function plan(cluster: string | undefined, options: FleetOptions & { output: 'table' | 'json' }): Promise<number> {
  const folder = options.rules ?? 'policies';
  const proposed = await folderView(folder);
  if (!proposed) return EXIT.found;
  const planned = plannedClusters(proposed.view).filter((entry) => cluster === undefined || entry.cluster === cluster);
  if (cluster !== undefined && planned.length === 0)
    throw new UsageError(
      `${cluster}: not a cluster of the fleet in ${folder} (${proposed.view.clusters.map((known) => known.cluster).join(', ')})`,
    );
  const current = await bucketPlan(options);
  const withChanges = planned.map((entry) => ({
    ...entry,
    ...(current
      ? {
          changes: changesOf(
            current.find((before) => before.cluster === entry.cluster),
            entry,
          ),
        }
      : {}),
  }));
  if (options.output === 'json') print(formatDocument({ clusters: withChanges }, 'json'));
  else print(withChanges.map((entry) => planText(entry, 'changes' in entry ? entry.changes : undefined)).join('\n'));
  return EXIT.ok;
}

/** The bucket --bucket, RULES_BUCKET or --local names. */
function bucketOf(options: FleetOptions): BucketTarget {
  const target = rulesBucket({ bucket: options.bucket ?? process.env.RULES_BUCKET, prefix: options.prefix, local: options.local });
  if (!target) throw new UsageError('no bucket: pass --bucket, set RULES_BUCKET, or use --local for the local stack');
  return target;
}

/** As the functions read it fastest: JSON when JSON can say it (they load the YAML parser only for YAML). */
function storedForm(stored: StoredDocument): { bytes: Buffer; contentType: string } {
  if ('errors' in stored) throw new Error(`${stored.from}: ${stored.errors.join('; ')}`); // checked valid before
  return storedAs(stored.bytes, rulesData(stored.bytes, Number.MAX_SAFE_INTEGER));
}

async function push(options: FleetOptions & { dryRun?: boolean }): Promise<number> {
  const target = bucketOf(options);
  const proposed = await folderView(options.rules ?? 'policies');
  if (!proposed) {
    process.stderr.write('nothing was uploaded\n');
    return EXIT.found;
  }
  const currentLayout = await fleetLayoutOfBucket(target);
  const currentView = fleetView(currentLayout, maxBytes());
  const currentByName = new Map(storedByName(currentLayout));
  let code: number = EXIT.ok;
  for (const [name, stored] of storedByName(proposed.layout)) {
    const { bytes, contentType } = storedForm(stored);
    const current = currentByName.get(name);
    if (current && 'bytes' in current && Buffer.from(current.bytes).equals(bytes)) continue;
    const where = `s3://${target.bucket}/${target.prefix}${name}.yaml`;
    if (options.dryRun) {
      print(`would push ${stored.from} to ${where}\n`);
      continue;
    }
    try {
      await uploadRulesIfUnchanged(target, name, bytes, (current && 'etag' in current ? current.etag : undefined) ?? null, contentType);
      print(`pushed ${stored.from} to ${where}\n`);
    } catch (error) {
      if (!(error instanceof ChangedSinceReadError)) throw error;
      process.stderr.write(`not pushed: ${error.message}\n`);
      code = EXIT.found;
    }
  }
  printRegistrationChanges(currentView, proposed.view, options);
  return code;
}

/** Per cluster, the webhooks whose registration the push changes, and the command that applies them. */
function printRegistrationChanges(before: FleetView, after: ValidView, options: FleetOptions): void {
  const registered = (documents: ValidView['clusters'][number]['documents'] | undefined) => {
    const derived = registrationsOfDocuments(documents ?? [], []);
    return derived.ok ? derived.registrations : [];
  };
  const source = options.local ? '--local' : `--bucket ${options.bucket ?? process.env.RULES_BUCKET} --url <api-url>`;
  for (const cluster of after.clusters) {
    const was = before.ok ? before.clusters.find((entry) => entry.cluster === cluster.cluster)?.documents : undefined;
    const lines = registrationChange(registered(was), registered(cluster.documents));
    if (lines.length > 0)
      print(
        `the registration of ${cluster.cluster} changes:\n${lines.map((line) => `  ${line}`).join('\n')}\napply there with: npx portcullis webhook-config --cluster ${cluster.cluster} ${source} --token <${cluster.cluster}'s token> | kubectl apply -f -\n`,
      );
  }
}

const ago = (seconds: number) =>
  seconds < 90 ? `${seconds} s` : seconds < 5400 ? `${Math.round(seconds / 60)} min` : `${Math.round(seconds / 3600)} h`;

/** One line per cluster: last request, rules served, snapshot age, findings by severity. */
function statusLine(status: ClusterStatus, now: Date): string {
  const seen = status.lastRequestAt
    ? `last request ${ago(Math.max(0, Math.round((now.getTime() - Date.parse(status.lastRequestAt)) / 1000)))} ago`
    : 'no request seen';
  const stale = status.policies.filter((policy) => policy.servingLastKnownGood);
  const rules =
    status.policies.length === 0
      ? 'rules: none served'
      : `rules: ${status.policies.length} served${stale.length > 0 ? `, ${stale.length} on last known good (${stale.map(({ policy }) => policy).join(', ')})` : ''}`;
  const snapshot = status.snapshot ? `snapshot ${ago(status.snapshot.ageSeconds)} old` : 'no snapshot';
  let findings = 'no audit';
  if (status.findings) {
    const total = (key: 'fail' | 'warn' | 'error') => status.findings!.byPolicy.reduce((sum, entry) => sum + entry[key], 0);
    const bySeverity = new Map<string, number>();
    for (const entry of status.findings.byPolicy)
      bySeverity.set(entry.severity || 'unset', (bySeverity.get(entry.severity || 'unset') ?? 0) + entry.fail);
    const severities = [...bySeverity].filter(([, count]) => count > 0).map(([severity, count]) => `${severity} ${count}`);
    findings = `findings: fail ${total('fail')}${severities.length > 0 ? ` (${severities.join(', ')})` : ''}, warn ${total('warn')}, error ${total('error')} in ${new Set(status.findings.byPolicy.map(({ policy }) => policy)).size} policies`;
  }
  return `${status.cluster}${status.listed ? '' : ' (not in fleet.yaml)'}  ${seen}  ${rules}  ${snapshot}  ${findings}\n`;
}

async function status(options: FleetOptions & { statusPrefix: string; reportsPrefix: string; output: 'table' | 'json' }): Promise<number> {
  const target = bucketOf(options);
  const now = new Date();
  const clusters = await fleetStatus(target, { statusPrefix: options.statusPrefix, reportsPrefix: options.reportsPrefix }, now);
  if (options.output === 'json') print(formatDocument({ clusters }, 'json'));
  else
    print(
      clusters.length === 0
        ? 'no cluster: no fleet.yaml, no heartbeat, no report\n'
        : clusters.map((entry) => statusLine(entry, now)).join(''),
    );
  return EXIT.ok;
}

export function registerFleetCommand(program: Command): void {
  const fleet = program.command('fleet').description("a fleet's documents as one: what each cluster enforces, and pushing them");
  const locations = (command: Command) =>
    command
      .option('--rules <dir>', 'the fleet as kept in git: fleet.yaml, <policy>.yaml, clusters/<cluster>/<policy>.yaml (default: policies/)')
      .option('--bucket <bucket>', 'the rules bucket')
      .option('--prefix <prefix>', 'the key prefix in the bucket (default: policies/)')
      .option('--local', 'the bucket of the stack `npm start` runs');
  locations(
    fleet
      .command('plan')
      .description('per cluster, the policies it enforces and what each does; with a bucket, what pushing the folder would change')
      .argument('[cluster]', 'only this cluster'),
  )
    .addOption(outputOption(['table', 'json'], 'table'))
    .addHelpText('after', '\nExit 1 when the fleet in the folder is not valid.')
    .action(async (cluster: string | undefined, options: FleetOptions & { output: 'table' | 'json' }) => {
      process.exitCode = await plan(cluster, options);
    });
  fleet
    .command('status')
    .description('one line per cluster: last request seen, rules served, snapshot age, findings by policy and severity')
    .option('--bucket <bucket>', 'the rules bucket (default: RULES_BUCKET)')
    .option('--prefix <prefix>', 'the rules key prefix (default: policies/)')
    .option('--local', 'the bucket of the stack `npm start` runs')
    .option('--status-prefix <prefix>', "where the functions write each cluster's heartbeat", 'status/')
    .option('--reports-prefix <prefix>', 'where the background audit writes its reports', 'reports/')
    .addOption(outputOption(['table', 'json'], 'table'))
    .action(async (options: FleetOptions & { statusPrefix: string; reportsPrefix: string; output: 'table' | 'json' }) => {
      try {
        process.exitCode = await status(options);
      } catch (error) {
        if (error instanceof UsageError) throw error;
        process.stderr.write(`cannot read the fleet's status: ${describeAwsError(error)}\n`);
        process.exitCode = EXIT.found;
      }
    });
  locations(fleet.command('push').description('check the fleet in the folder as a whole, then upload every document that differs'))
    .option('--dry-run', 'say what would be uploaded, and upload nothing')
    .addHelpText('after', '\nExit 1 when the fleet is not valid (nothing is uploaded) or an object changed since it was read.')
    .action(async (options: FleetOptions & { dryRun?: boolean }) => {
      try {
        process.exitCode = await push(options);
      } catch (error) {
        if (error instanceof UsageError) throw error;
        process.stderr.write(`cannot push the fleet: ${describeAwsError(error)}\n`);
        process.exitCode = EXIT.found;
      }
    });
}
