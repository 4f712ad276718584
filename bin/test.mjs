#!/usr/bin/env node
// `npm test` after Biome: the type check runs beside the tests, not before them. It is one process on one
// core, and the tests spend much of their time waiting on timers and child processes, so it costs them little
// and saves its own time. Its output comes after the tests', and either failing fails the run.
import { spawn } from 'node:child_process';

const finished = (child) => new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));

const typecheck = spawn(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
const output = [];
typecheck.stdout.on('data', (chunk) => output.push(chunk));
typecheck.stderr.on('data', (chunk) => output.push(chunk));
const typechecked = finished(typecheck);

const tests = await finished(
  spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], { stdio: 'inherit' }),
);
const types = await typechecked;
if (types !== 0) process.stdout.write(`\ntsc -p . failed:\n${Buffer.concat(output).toString()}`);
process.exit(tests !== 0 ? tests : types);
