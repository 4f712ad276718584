// Portcullis's own test format: requests and the result each should get, run through the whole stack
// with the named rules (exactly what the function would answer), plus each rule's own result.
//
//   apiVersion: portcullis.dev/v1alpha1
//   kind: PolicyTest
//   policy: trusted-registry
//   rules: ../rules/trusted-registry.yaml     # relative to this file; a list joins manifests (cel)
//   cases:
//     - name: an image from Docker Hub is denied
//       object: { apiVersion: v1, kind: Pod, ... }   # or file: pods/bad.yaml
//       operation: UPDATE                             # default CREATE; also namespace, user, oldObject, now
//       expect:
//         allowed: false
//         message: not from a trusted registry        # a regular expression, unanchored
//         warnings: []                                # each pattern matches a warning; [] = none
//         patched: { ... }                            # the object after the answer's patch
//         rules: { company-registries: fail }         # pass | fail | warn | skip | error, per rule or policy
import { caseDeadline, type TestLimits } from '../../functions/engines/runtime/test-limits.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Context } from 'aws-lambda';
import { createTwoFilesPatch } from 'diff';
import { applyPatch } from 'fast-json-patch/index.mjs';
import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'yaml';
import { configFromEnv } from '../../functions/admission/config.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import * as v from '../../functions/admission/schema.js';
import { issueLines } from '../../functions/admission/schema-issues.js';
import { httpApiEvent } from '../admission-event.js';
import { ruleResults } from '../../functions/audit/rule-results.js';
import { decodedPatch } from '../../functions/audit/json-patch-text.js';
import { policyNamed } from '../cli/policy-lookup.js';
import { type CaseOutcome, failed, passed, resultNamed } from './case-outcome.js';
import { offlineRequest } from '../../functions/audit/offline-request.js';
import { routeOf } from '../../functions/admission/policy.js';

const RuleResultSchema = v.picklist(['pass', 'fail', 'warn', 'skip', 'error']);

const isRegularExpression = (pattern: string) => {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
};
const PatternSchema = v.pipe(v.string(), v.check(isRegularExpression, 'not a valid regular expression'));

const CaseSchema = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1)),
  object: v.optional(v.record(v.string(), v.unknown())),
  file: v.optional(v.string()),
  operation: v.optional(v.picklist(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'])),
  oldObject: v.optional(v.record(v.string(), v.unknown())),
  namespace: v.optional(v.string()),
  user: v.optional(v.strictObject({ username: v.optional(v.string()), groups: v.optional(v.array(v.string())) })),
  subResource: v.optional(v.string()),
  dryRun: v.optional(v.boolean()),
  now: v.optional(v.pipe(v.string(), v.isoTimestamp())),
  expect: v.strictObject({
    allowed: v.optional(v.boolean()),
    message: v.optional(PatternSchema),
    warnings: v.optional(v.array(PatternSchema)),
    patched: v.optional(v.record(v.string(), v.unknown())),
    rules: v.optional(v.record(v.string(), RuleResultSchema)),
  }),
});

export const PolicyTestSchema = v.strictObject({
  apiVersion: v.literal('portcullis.dev/v1alpha1'),
  kind: v.literal('PolicyTest'),
  metadata: v.optional(v.object({ name: v.optional(v.string()) })),
  policy: v.string(),
  rules: v.union(
    [v.string(), v.pipe(v.array(v.string()), v.minLength(1))],
    'expected a file or a list of files, relative to this test file',
  ),
  cases: v.pipe(v.array(CaseSchema), v.minLength(1)),
});

type TestCase = v.InferOutput<typeof CaseSchema>;

export const isPortcullisTest = (document: { apiVersion?: unknown; kind?: unknown }) =>
  document.kind === 'PolicyTest' && String(document.apiVersion).startsWith('portcullis.dev/');

/** Thrown for a test file that cannot be run as written: a usage error, naming the field. */
export class InvalidTestFileError extends Error {}

const CONTEXT = { getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

function patternMismatch(label: string, pattern: string, texts: string[]): string | undefined {
  const regex = new RegExp(pattern);
  return texts.some((text) => regex.test(text))
    ? undefined
    : `expected ${label} matching /${pattern}/\ngot:     ${texts.length > 0 ? texts.map((text) => JSON.stringify(text)).join('\n         ') : '(none)'}`;
}

function objectDiff(expected: unknown, got: unknown): string {
  const lines = createTwoFilesPatch('expected', 'got', stringify(expected), stringify(got), '', '', { context: 2 }).split('\n');
  return `patched object differs:\n${lines.slice(4).join('\n')}`; // without the file header lines
}

/** The fields of an AdmissionReview's response that a test case states expectations about. */
interface AdmissionAnswer {
  allowed?: boolean;
  warnings?: string[];
  status?: { message?: string };
  patch?: string;
}

/** What differs between the answer and the expectation: one entry per difference. */
function differences(
  expect: TestCase['expect'],
  response: AdmissionAnswer,
  original: unknown,
  results: Awaited<ReturnType<typeof ruleResults>>,
): string[] {
  const found: string[] = [];
  const warnings: string[] = response.warnings ?? [];
  const message: string = response.status?.message ?? '';
  if (expect.allowed !== undefined && response.allowed !== expect.allowed) {
    found.push(`expected ${expect.allowed ? 'allowed' : 'denied'}\ngot:     ${response.allowed ? 'allowed' : `denied: ${message}`}`);
  }
  if (expect.message !== undefined)
    found.push(
      ...[patternMismatch('a denial message', expect.message, response.allowed ? [] : [message])].filter((text) => text !== undefined),
    );
  if (expect.warnings?.length === 0 && warnings.length > 0) found.push(`expected no warnings\ngot:     ${warnings.join('\n         ')}`);
  for (const pattern of expect.warnings ?? [])
    found.push(...[patternMismatch('a warning', pattern, warnings)].filter((text) => text !== undefined));
  if (expect.patched !== undefined) {
    const patched = response.patch
      ? applyPatch(structuredClone(original), decodedPatch(response.patch) as never, false, false).newDocument
      : original;
    if (!isDeepStrictEqual(patched, expect.patched)) found.push(objectDiff(expect.patched, patched));
  }
  for (const [name, expected] of Object.entries(expect.rules ?? {})) {
    const got = resultNamed(results, name);
    if (got !== expected) {
      const said = results.filter((result) => result.rule === name || result.policy === name).flatMap((result) => result.messages);
      found.push(
        `rule ${name}: expected ${expected}\n${' '.repeat(name.length + 6)}got:      ${got}${said.length > 0 ? ` (${said.join('; ')})` : ''}`,
      );
    }
  }
  return found;
}

function readYaml(path: string, what: string): unknown {
  try {
    return parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InvalidTestFileError(`${what}: cannot read ${path}: ${(error as Error).message.split('\n')[0]}`);
  }
}

export async function runPortcullisTest(file: string, document: unknown, limits: TestLimits): Promise<CaseOutcome[]> {
  const parsed = v.safeParse(PolicyTestSchema, document);
  if (!parsed.success) throw new InvalidTestFileError(`${file}: not a valid PolicyTest:\n  ${issueLines(parsed.issues).join('\n  ')}`);
  const test = parsed.output;
  const folder = dirname(file);
  const policy = policyNamed(test.policy);
  const rulesFiles = (Array.isArray(test.rules) ? test.rules : [test.rules]).map((path) => join(folder, path));
  let text: string;
  try {
    text = rulesFiles.map((path) => readFileSync(path, 'utf8')).join('\n---\n');
  } catch (error) {
    throw new InvalidTestFileError(`${file}: rules: ${(error as Error).message}`);
  }
  const rules = parseRulesDocument(policy, text);
  if (!rules.ok)
    return test.cases.map(({ name }) =>
      failed(file, name, `the rules are not valid (${rulesFiles.join(', ')}):\n  ${rules.errors.join('\n  ')}`),
    );

  // The whole stack with these rules: exactly what the function would answer, at each case's time.
  let now = new Date();
  const handler = createAdmissionHandler(policy, {
    config: configFromEnv({}),
    rulesSource: { describe: () => rulesFiles.join(', '), load: async () => ({ bytes: Buffer.from(text), version: 'test' }) },
    clock: () => now,
  });
  const outcomes: CaseOutcome[] = [];
  for (const [index, entry] of test.cases.entries()) {
    const where = `${file} cases[${index}]`;
    if ((entry.object === undefined) === (entry.file === undefined))
      throw new InvalidTestFileError(`${where}: give one of object and file`);
    const object = entry.object ?? readYaml(join(folder, entry.file!), `${where}.file`);
    const options = {
      operation: entry.operation,
      namespace: entry.namespace,
      oldObject: entry.oldObject,
      username: entry.user?.username,
      groups: entry.user?.groups,
      subResource: entry.subResource,
      dryRun: entry.dryRun,
    };
    const request = offlineRequest(object, options);
    if (!request.ok) throw new InvalidTestFileError(`${where}: ${request.error}`);
    now = entry.now ? new Date(entry.now) : new Date();
    const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: request.request };
    const answer = await handler(httpApiEvent(JSON.stringify(review), { path: routeOf(policy) }) as never, CONTEXT);
    const body = JSON.parse(answer.body);
    if (answer.statusCode !== 200) {
      outcomes.push(failed(file, entry.name, `the function answered HTTP ${answer.statusCode}: ${body.error ?? answer.body}`));
      continue;
    }
    const found = differences(
      entry.expect,
      body.response,
      request.request.object,
      await ruleResults(policy, rules.document, request.request, now, undefined, caseDeadline(limits)),
    );
    outcomes.push(found.length === 0 ? passed(file, entry.name) : failed(file, entry.name, found.join('\n')));
  }
  return outcomes;
}
