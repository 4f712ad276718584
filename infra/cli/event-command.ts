// `portcullis event <manifests>`: the API Gateway event the apiserver's call would be, for each object in
// the file. One object prints its event on stdout; a List or several documents need --out-dir (one file
// per object) or --index (that one object), so no object is silently dropped.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { routeOf } from '../../functions/admission/policy.js';
import { admissionReviewFor, httpApiEvent } from '../admission-event.js';
import { print } from './cli-output.js';
import { EXIT, UsageError } from './cli-errors.js';
import { type KubernetesObject, readKubernetesObjects } from './kubernetes-objects.js';
import { policyNamed } from './policy-lookup.js';

const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;

interface EventOptions {
  operation: string;
  namespace?: string;
  old?: string;
  policy: string;
  admissionVersion: string;
  user?: string;
  group?: string[];
  timeout?: string;
  outDir?: string;
  index?: string;
}

function chosenObjects(objects: KubernetesObject[], file: string, options: EventOptions): KubernetesObject[] {
  if (options.index !== undefined) {
    const index = Number(options.index);
    if (!Number.isInteger(index) || index < 0 || index >= objects.length)
      throw new UsageError(
        `--index ${options.index}: ${file} has ${objects.length} object${objects.length === 1 ? '' : 's'}; expected 0 to ${objects.length - 1}`,
      );
    return [objects[index]!];
  }
  if (objects.length > 1 && options.outDir === undefined)
    throw new UsageError(`${file} holds ${objects.length} objects: write one event each with --out-dir DIR, or pick one with --index N`);
  return objects;
}

/** `003-pod-web.json`: in the file's order, named so a listing says what each is. */
const eventFileName = (object: KubernetesObject, index: number) =>
  `${String(index).padStart(3, '0')}-${object.kind.toLowerCase()}-${(object.metadata?.name ?? 'unnamed').replace(/[^A-Za-z0-9._-]/g, '_')}.json`;

function event(file: string, options: EventOptions): number {
  const operation = options.operation.toUpperCase();
  if (!(OPERATIONS as readonly string[]).includes(operation))
    throw new UsageError(`--operation ${options.operation}: expected ${OPERATIONS.join(', ')}`);
  const admissionVersion = options.admissionVersion;
  if (admissionVersion !== 'v1' && admissionVersion !== 'v1beta1')
    throw new UsageError(`--admission-version ${admissionVersion}: expected v1 or v1beta1`);
  const path = routeOf(policyNamed(options.policy));
  const oldObjects = options.old === undefined ? undefined : readKubernetesObjects(options.old);
  if (oldObjects && oldObjects.length > 1) throw new UsageError(`--old ${options.old}: give one object`);
  const objects = chosenObjects(readKubernetesObjects(file), file, options);
  const eventOf = (object: KubernetesObject) =>
    httpApiEvent(
      JSON.stringify(
        admissionReviewFor(object, {
          operation: operation as 'CREATE',
          namespace: options.namespace,
          oldObject: oldObjects?.[0],
          admissionVersion,
          username: options.user,
          groups: options.group,
        }),
      ),
      { path, timeout: options.timeout },
    );
  if (options.outDir === undefined) {
    print(`${JSON.stringify(eventOf(objects[0]!), null, 2)}\n`);
    return EXIT.ok;
  }
  mkdirSync(options.outDir, { recursive: true });
  for (const [index, object] of objects.entries())
    writeFileSync(join(options.outDir, eventFileName(object, index)), `${JSON.stringify(eventOf(object), null, 2)}\n`);
  process.stderr.write(`${objects.length} event${objects.length === 1 ? '' : 's'} written to ${options.outDir}\n`);
  return EXIT.ok;
}

export function registerEventCommand(program: Command): void {
  program
    .command('event')
    .description("make the API Gateway event the apiserver's call would be, for a manifest (or each object of a List)")
    .argument('<file>', 'a manifest: one object, multi-document YAML, or a List (kubectl get -o json|yaml); or a folder of them')
    .option('--policy <name>', 'the policy whose route the event is for', 'trusted-registry')
    .option('--operation <op>', `the request's operation: ${OPERATIONS.join(', ')}`, 'CREATE')
    .option('--namespace <ns>', "the request's namespace (default: the object's)")
    .option('--old <file>', 'the old object, for UPDATE and DELETE')
    .option('--admission-version <v>', 'v1 or v1beta1', 'v1')
    .option('--user <name>', 'userInfo.username')
    .option('--group <group...>', 'userInfo.groups')
    .option('--timeout <duration>', 'the ?timeout= the apiserver appends (10s)')
    .option('--out-dir <dir>', 'write one event per object into this folder')
    .option('--index <n>', 'only the object at this position (from 0)')
    .action((file: string, options: EventOptions) => {
      process.exitCode = event(file, options);
    });
}
