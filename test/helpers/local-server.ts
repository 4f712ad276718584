// Starts the real local server (`sls offline start`, as `npm start` does) on free loopback ports and
// stops it, with its whole process group, when the tests are done.
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { TEST_RULES } from './test-rules.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface LocalServer {
  baseUrl: string;
  output: () => string;
  stop: () => Promise<void>;
}

export async function startLocalServer(env: Record<string, string> = {}, timeoutMs = 90_000): Promise<LocalServer> {
  const [port, lambdaPort] = [await freePort(), await freePort()];
  const workFolder = `.esbuild-offline-${port}`;
  // --localEnvironment hands the functions this environment: RULES_DIR is the tests' own rules, not the samples.
  const child: ChildProcess = spawn('npx', ['sls', 'offline', 'start', '--localEnvironment'], {
    env: {
      ...process.env,
      PORT: String(port),
      LAMBDA_PORT: String(lambdaPort),
      SLS_TELEMETRY_DISABLED: '1',
      ESBUILD_WORK_FOLDER: workFolder,
      RULES_DIR: TEST_RULES,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));

  const stop = async () => {
    if (child.exitCode !== null || child.pid === undefined) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    rmSync(workFolder, { recursive: true, force: true });
  };

  const started = Date.now();
  while (!output.includes('Server ready')) {
    if (child.exitCode !== null) throw new Error(`sls offline exited with ${child.exitCode}:\n${output}`);
    if (Date.now() - started > timeoutMs) {
      await stop();
      throw new Error(`sls offline not ready after ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { baseUrl: `http://127.0.0.1:${port}`, output: () => output, stop };
}

/**
 * Stops a local stack started by a test as Ctrl-C stops it: SIGTERM to its process group, so the stack stops
 * serverless-offline's own process group and s3rver (a SIGKILL left them serving, and rebuilding into removed
 * folders, after the run), and SIGKILL for what is left after 10 s. Then removes its folders; a stopped
 * bundler may still be finishing a write into its folder (ENOTEMPTY under load): retried.
 */
export async function stopStack(stack: ChildProcess | undefined, folders: readonly string[]): Promise<void> {
  if (stack?.pid) {
    const group = -stack.pid;
    signalGroup(group, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (groupIsAlive(group) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    signalGroup(group, 'SIGKILL');
  }
  for (const folder of folders) rmSync(folder, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(group, signal);
  } catch {
    // every process of the group has exited
  }
}

const groupIsAlive = (group: number) => {
  try {
    return process.kill(group, 0);
  } catch {
    return false;
  }
};
