// `portcullis audit` at cluster scale: 10,000 Pods (a `kubectl get pods -A -o json` List) against every
// policy that has a sample rules document, the whole command as a user runs it (process start, reading
// the file, judging, printing JSON), in a clean environment. Target: ≤ 10 s on this machine.
import { spawn } from 'node:child_process';
import { openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHILD_NODE, verdict } from './child-process.js';
import { temporaryDirectory } from '../infra/temporary-directory.js';
import { clusterPods } from './cluster-pods.js';

const PODS = 10_000;
const RUNS = 3;
const TARGET_SECONDS = 10;

/** The pods as a List document, as `kubectl get pods -A -o json` writes one. */
function podList() {
  return { apiVersion: 'v1', kind: 'List', items: clusterPods(PODS).map((pod) => ({ apiVersion: 'v1', kind: 'Pod', ...pod })) };
}

/** One audit as a user runs it; the wall time and the time it reports judging took. */
function runAudit(file: string, output: string): Promise<{ wallSeconds: number; judgingSeconds: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let stderr = '';
    // Only PATH and HOME, as Lambda would start a process: no NODE_EXTRA_CA_CERTS, no NODE_OPTIONS.
    const child = spawn(
      CHILD_NODE,
      ['bin/portcullis.mjs', 'audit', '--rules', 'policies', '--from', file, '-o', 'json', '--now', '2026-11-18T10:00:00Z'],
      {
        stdio: ['ignore', openSync(output, 'w'), 'pipe'],
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      },
    );
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const judged = /audited \d+ objects with .* in ([\d.]+) s/.exec(stderr);
      if (code !== 0 || !judged) reject(new Error(`audit exited ${code}: ${stderr}`));
      else resolve({ wallSeconds, judgingSeconds: Number(judged[1]) });
    });
  });
}

const work = temporaryDirectory('portcullis-bench-audit-');
const file = join(work, 'pods.json');
writeFileSync(file, JSON.stringify(podList()));
console.log(`audit: ${PODS.toLocaleString('en')} Pods against every policy with a sample document, ${RUNS} runs…`);
const runs = [];
for (let run = 0; run < RUNS; run++) runs.push(await runAudit(file, join(work, 'report.json')));
rmSync(work, { recursive: true, force: true });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const wall = median(runs.map(({ wallSeconds }) => wallSeconds));
console.log(
  `  whole command (start, read, judge, print JSON) median ${wall.toFixed(2)} s (target ≤ ${TARGET_SECONDS} s: ${verdict(wall <= TARGET_SECONDS)}); judging alone ${median(runs.map(({ judgingSeconds }) => judgingSeconds)).toFixed(2)} s; ${((wall / PODS) * 1e6).toFixed(0)} µs per Pod`,
);
