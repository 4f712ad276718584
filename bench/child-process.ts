// Running benchmark children: a new Node process per measurement, timed from spawn to its first output.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
export const ms = (ns: number) => (ns / 1e6).toFixed(3);
export const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');

// On this machine's Node 20 the AWS SDK warns on stderr, where the children report; Lambda's Node 22 does not.
const NODE_20_QUIET = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

/** The Node the children run on: BENCH_NODE (bench/all.ts runs every script on Lambda's and on this machine's), else this one. */
export const CHILD_NODE = process.env.BENCH_NODE || process.execPath;
export const CHILD_NODE_VERSION = execFileSync(CHILD_NODE, ['--version'], { encoding: 'utf8' }).trim();

/**
 * Runs `node args…` with only PATH, HOME and `env`, as Lambda starts a function: nothing inherited from this
 * shell (NODE_EXTRA_CA_CERTS alone adds ~75 ms to every Node start; NODE_OPTIONS, AWS_CA_BUNDLE, …).
 */
export function runChild(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  { oneCpu = false } = {},
): Promise<{ elapsedNs: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    let firstOutputNs: number | undefined;
    let stderr = '';
    // One CPU, as a small Lambda function gets less than (a 256 MB one, about a seventh of a vCPU: 1,769
    // MB buy a whole one): V8's background compiling then competes with the request.
    const child = spawn(oneCpu ? 'taskset' : CHILD_NODE, oneCpu ? ['-c', '0', CHILD_NODE, ...args] : args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...NODE_20_QUIET, ...env },
    });
    child.stderr.on('data', (chunk) => {
      firstOutputNs ??= Number(process.hrtime.bigint() - start);
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve({ elapsedNs: firstOutputNs ?? 0, stderr }) : reject(new Error(`child exited ${code}: ${stderr}`)),
    );
  });
}

/** A command run to its end in a clean environment: how long it took, and its exit code. */
export function runToExit(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ elapsedNs: number; code: number | null }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(CHILD_NODE, args, {
      stdio: 'ignore',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...NODE_20_QUIET, ...env },
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ elapsedNs: Number(process.hrtime.bigint() - start), code }));
  });
}

/** What bench/warm-child.mjs reports: per-request times of the handler and of the floor, interleaved. */
export interface WarmRun {
  handlerNs: number[];
  floorNs: number[];
  allowed: boolean;
  patched: boolean;
}

/** One bench/warm-child.mjs process: `iterations` requests of the event file, handler and floor interleaved. */
export async function warmChild(handlerFile: string, eventFile: string, iterations: number, env: NodeJS.ProcessEnv): Promise<WarmRun> {
  const { stderr } = await runChild(['bench/warm-child.mjs', handlerFile, eventFile, String(iterations)], env);
  // The report is the child's last line: the handler's warnings (a cluster not in fleet.yaml) come before it.
  return JSON.parse(stderr.trim().split('\n').at(-1)!) as WarmRun;
}

export const warmRatio = (run: WarmRun) => quantile(run.handlerNs, 0.5) / quantile(run.floorNs, 0.5);

/**
 * Of several processes measuring the same request, the one whose ratio is the median, with the spread of
 * the ratios. On this machine one process's ratio moves by ±15% from the next (JIT and memory layout
 * differ per process even though handler and floor run interleaved), so one process alone decides nothing.
 */
export function medianRun(runs: WarmRun[]): { run: WarmRun; ratios: number[] } {
  const ratios = runs.map(warmRatio);
  const order = runs.map((_, index) => index).sort((a, b) => ratios[a]! - ratios[b]!);
  return { run: runs[order[order.length >> 1]!]!, ratios: order.map((index) => ratios[index]!) };
}

export const ratioSpread = (ratios: number[]) => `${ratios.length} processes: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`;

/** `portcullis policy validate` of a bundle for cel, a new process each round: the time each took. */
export async function timePolicyValidate(bundleFile: string, rounds: number): Promise<number[]> {
  // The first command after a change to the sources compiles the CLI (bin/portcullis.mjs): not what is timed.
  await runToExit(['bin/portcullis.mjs', '--version']);
  const validateNs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const { elapsedNs, code } = await runToExit(['bin/portcullis.mjs', 'policy', 'validate', bundleFile, '--policy', 'cel']);
    if (code !== 0) throw new Error(`policy validate exited ${code}`);
    validateNs.push(elapsedNs);
  }
  return validateNs;
}

/** A rules folder for the cel function in `parent`, holding a bundle as `policy push` stores it (JSON). */
export function celRulesFolder(parent: string, name: string, documents: string): string {
  const folder = join(parent, name);
  mkdirSync(folder);
  writeFileSync(join(folder, 'cel.yaml'), JSON.stringify(parseAllDocuments(documents).map((document) => document.toJS())));
  return folder;
}

/** What a function holds after its first answers (twice, then a full GC): heap used and resident set, in bytes. */
export type HeldMemory = { heapUsed: number; rss: number };
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
/** `heap … / resident …`, and the share of the memory the function is given. */
export const heldMemory = ({ heapUsed, rss }: HeldMemory, givenMb: number) =>
  `heap ${mb(heapUsed)} / resident ${mb(rss)} (${((100 * rss) / (givenMb * 1024 * 1024)).toFixed(0)}% of the ${givenMb} MB a function is given)`;

export async function memoryAfterFirstAnswer(
  handlerFile: string,
  eventFile: string,
  env: NodeJS.ProcessEnv,
): Promise<{ heapUsed: number; rss: number }> {
  const { stderr } = await runChild(['--expose-gc', 'bench/memory-child.mjs', handlerFile, eventFile], env);
  return JSON.parse(stderr.trim().split('\n').at(-1)!) as HeldMemory;
}
