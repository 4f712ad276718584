// `npm run bench [-- <script>…]`: every benchmark script on Lambda's Node (nodejs22.x, bench/lambda-node.ts) and on this
// machine's, their reports side by side, line by line: a line both runs print alike once, a line with
// figures twice, Lambda's first. Targets are judged on Lambda's: the machine's lines say "reference"
// where Lambda's say whether a target is met. Each script's children run on the Node named by BENCH_NODE
// (bench/child-process.ts); what a script measures in its own process runs on this machine's Node.
import { spawn } from 'node:child_process';
import { LAMBDA_NODE_VERSION, lambdaNode } from './lambda-node.js';

const SCRIPTS = [
  'run.ts',
  'cel-corpus.ts',
  'cluster-policy-corpus.ts',
  'gatekeeper-rego-corpus.ts',
  'cluster-snapshot.ts',
  'audit.ts',
  'fleet.ts',
  'background-audit.ts',
];

// `npm run bench -- run.ts fleet.ts`: those scripts only.
const chosen = process.argv.slice(2);
const unknown = chosen.filter((script) => !SCRIPTS.includes(script));
if (unknown.length > 0) throw new Error(`no benchmark ${unknown.join(', ')}: the scripts are ${SCRIPTS.join(', ')}`);

const runtimes = [
  { tag: `λ ${LAMBDA_NODE_VERSION}`, node: lambdaNode() },
  { tag: `  ${process.version.slice(1)}`, node: process.execPath },
];
const sameNode = runtimes[0]!.node === runtimes[1]!.node;
const TAG_WIDTH = 11;

/** One script with its children on `node`: its report (stdout); its progress lines go to stderr as they come. */
function report(script: string, node: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    const child = spawn(process.execPath, ['--import', 'tsx', `bench/${script}`], {
      env: { ...process.env, BENCH_NODE: node },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      process.stderr.write(`  ${chunk}`.replace(/\n(?=.)/g, '\n  '));
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`bench/${script} exited ${code}`))));
  });
}

const asReference = (line: string) => line.replace(/meets target|MISSES target/g, 'reference');

/** Lambda's report and the machine's, merged line by line; whole, one after the other, if their lines differ in number. */
function sideBySide(lambda: string, machine: string): string {
  const [l, m] = [lambda.trimEnd().split('\n'), machine.trimEnd().split('\n')];
  if (l.length !== m.length) return `${lambda.trimEnd()}\n\n(this machine's Node, for reference)\n${asReference(machine).trimEnd()}`;
  return l
    .flatMap((line, index) =>
      line === m[index]
        ? [`${' '.repeat(TAG_WIDTH)}${line}`]
        : [`${runtimes[0]!.tag.padEnd(TAG_WIDTH)}${line}`, `${runtimes[1]!.tag.padEnd(TAG_WIDTH)}${asReference(m[index]!)}`],
    )
    .join('\n');
}

console.log(
  `Portcullis benchmark: each line with figures twice, "${runtimes[0]!.tag}" on Node ${LAMBDA_NODE_VERSION}, Lambda's nodejs22.x, on which the targets are judged, then "${runtimes[1]!.tag.trim()}" on this machine's Node, for reference.`,
);
for (const script of chosen.length > 0 ? chosen : SCRIPTS) {
  process.stderr.write(`bench/${script} on Node ${LAMBDA_NODE_VERSION}…\n`);
  const lambda = await report(script, runtimes[0]!.node);
  if (sameNode) {
    console.log(lambda);
    continue;
  }
  process.stderr.write(`bench/${script} on this machine's Node ${process.version}…\n`);
  const machine = await report(script, runtimes[1]!.node);
  console.log(`\n── bench/${script} ──\n${sideBySide(lambda, machine)}`);
}
