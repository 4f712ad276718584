// The Node that Lambda's nodejs22.x runs, for the bench's children: the version package.json names
// (config.lambdaNodeVersion, which .ci/run tests on too), from npm's node-linux-<arch> package as .ci/run
// fetches it, kept in .cache/ so that only the first bench run fetches it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const LAMBDA_NODE_VERSION: string = JSON.parse(readFileSync('package.json', 'utf8')).config.lambdaNodeVersion;

/** The path of Lambda's Node binary, fetched on first use. */
export function lambdaNode(): string {
  if (process.version === `v${LAMBDA_NODE_VERSION}`) return process.execPath;
  const folder = join('.cache', 'lambda-node', LAMBDA_NODE_VERSION);
  const binary = join(folder, 'package', 'bin', 'node');
  if (existsSync(binary)) return binary;
  const temporary = `${folder}.tmp-${process.pid}`;
  mkdirSync(temporary, { recursive: true });
  try {
    const tarball = execFileSync('npm', ['pack', '--silent', `node-linux-${process.arch}@${LAMBDA_NODE_VERSION}`], {
      cwd: temporary,
      encoding: 'utf8',
    }).trim();
    execFileSync('tar', ['xzf', tarball], { cwd: temporary });
    rmSync(join(temporary, tarball));
    rmSync(folder, { recursive: true, force: true });
    renameSync(temporary, folder);
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    throw new Error(
      `Node ${LAMBDA_NODE_VERSION}, Lambda's runtime, could not be fetched from the npm registry: ${(error as Error).message}`,
    );
  }
  return binary;
}
