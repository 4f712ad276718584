// A kyverno-test's authorization requests (`envoyPayloads`, `httpPayloads`), judged by the suite's
// ValidatingPolicies in Envoy or HTTP mode as Kyverno's CLI judges them with kyverno-authz's engine: an
// allowed request is `pass`, a denied one `fail`, no decision `skip`, an error `error`. A result names no
// resource: it holds when every request of the suite gives it. The functions refuse these modes, which
// judge no admission request.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AuthzMode, authorize, checkRequestOf, compileAuthzPolicy } from '../../functions/engines/cel/index.js';
import type { TestLimits } from '../../functions/engines/runtime/test-limits.js';
import { type CaseOutcome, failed, passed } from './case-outcome.js';
import { evaluationModeOf } from './kyverno-payloads.js';

type Manifest = { apiVersion?: string; kind?: string; metadata?: { name?: string }; spec?: Record<string, unknown> };

const RESULTS = { allowed: 'pass', denied: 'fail', none: 'skip', error: 'error' } as const;

/** The policy's authorization mode, for a ValidatingPolicy in Envoy or HTTP mode. */
export function authzModeOf(manifest: Manifest): AuthzMode | undefined {
  if (manifest.kind !== 'ValidatingPolicy' || !String(manifest.apiVersion).startsWith('policies.kyverno.io/')) return undefined;
  const mode = evaluationModeOf(manifest);
  return mode === 'Envoy' || mode === 'HTTP' ? mode : undefined;
}

/** The suite's request files for a mode, as the Test names them. */
export const authzPayloadFilesOf = (test: { envoyPayloads?: string[]; httpPayloads?: string[] }, mode: AuthzMode): string[] =>
  (mode === 'Envoy' ? test.envoyPayloads : test.httpPayloads) ?? [];

/** One stated result of an authorization policy, judged on every request file of its mode. */
export function authzCase(
  suite: string,
  name: string,
  expected: string | undefined,
  policy: Manifest,
  mode: AuthzMode,
  folder: string,
  files: string[],
  limits: TestLimits,
): CaseOutcome {
  const field = mode === 'Envoy' ? 'envoyPayloads' : 'httpPayloads';
  if (files.length === 0) return failed(suite, name, `the suite names no ${mode} request (${field}:) for a ${mode}-mode policy`);
  const compiled = compileAuthzPolicy(policy.spec ?? {}, mode);
  if (Array.isArray(compiled))
    return failed(suite, name, `ValidatingPolicy ${policy.metadata?.name} is not valid:\n${compiled.join('\n')}`);
  for (const file of files) {
    let request: unknown;
    try {
      request = checkRequestOf(mode, JSON.parse(readFileSync(join(folder, file), 'utf8')));
    } catch (error) {
      return failed(suite, name, `${field} ${file}: ${(error as Error).message}`);
    }
    const { decision, message } = authorize(compiled, request, limits.now, limits.costLimit);
    if (RESULTS[decision] !== expected)
      return failed(suite, name, `expected: ${expected}\ngot:      ${RESULTS[decision]} (${file})\n  ${message}`);
  }
  return passed(suite, name);
}
