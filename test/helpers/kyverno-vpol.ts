// The Kyverno ValidatingPolicy suites in ../shared/corpora/kyverno-vpol, read as `kyverno test` reads them:
// each `.kyverno-test/kyverno-test.yaml` names its policies and resource files, and states per policy and
// resource whether it fails, passes or is skipped (`ns/name` finds an object without a namespace under
// `default`, as the CLI does). Only data is read; nothing is run.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { CORPORA } from './corpora.js';
import { eventFor } from './invoke.js';

export interface KyvernoCase {
  suite: string;
  policy: string;
  /** The rule a ClusterPolicy suite names (autogen rules as autogen-<rule>); ValidatingPolicy suites name none. */
  rule?: string;
  kind: string;
  resource: string;
  expected: 'pass' | 'fail' | 'skip';
  object: any;
  /** The suite mocks context (values, context files): what `kyverno test` supplies beyond the object and user. */
  mocks: string[];
  /** The requesting user, from the suite's UserInfo file (request data, not cluster data). */
  userInfo?: { username?: string; groups?: string[] };
  /** A mutate result's expected object (its patchedResources file), when the suite names one that holds it. */
  patched?: any;
}

export interface KyvernoSuite {
  folder: string;
  /** Policy manifests as written, each file's text. */
  policyTexts: { file: string; text: string }[];
  cases: KyvernoCase[];
  /** Results whose resource is not in the suite's files (reported, never counted as passed). */
  missing: string[];
}

function testFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name === 'kyverno-test.yaml' ? [path] : [];
  });
}

const documentsOf = (path: string) =>
  parseAllDocuments(readFileSync(path, 'utf8'))
    .map((document) => document.toJS())
    .filter((document) => document && typeof document === 'object');

export function kyvernoSuites(root = join(CORPORA, 'kyverno-vpol')): KyvernoSuite[] {
  return testFiles(root)
    .sort()
    .map((file) => {
      const folder = dirname(file);
      const test = parse(readFileSync(file, 'utf8')) as {
        policies?: string[];
        resources?: string[];
        results?: any[];
        variables?: string;
        userinfo?: string;
        context?: string;
      };
      const objects = (test.resources ?? []).flatMap((name) => documentsOf(join(folder, name)));
      const find = (candidates: any[], kind: string, namespace: string | undefined, resourceName: string) =>
        candidates.find(
          (candidate: any) =>
            candidate.kind === kind &&
            candidate.metadata?.name === resourceName &&
            (namespace === undefined || (candidate.metadata?.namespace ?? 'default') === namespace),
        );
      const mocks = [test.variables, test.context].filter((value): value is string => typeof value === 'string');
      const userInfo = test.userinfo
        ? (parse(readFileSync(join(folder, test.userinfo), 'utf8')) as { userInfo?: KyvernoCase['userInfo'] }).userInfo
        : undefined;
      const cases: KyvernoCase[] = [];
      const missing: string[] = [];
      for (const result of test.results ?? []) {
        for (const name of result.resources ?? []) {
          const [namespace, resourceName] = String(name).includes('/') ? String(name).split('/', 2) : [undefined, String(name)];
          const object = find(objects, result.kind, namespace, resourceName!);
          const patched = result.patchedResources
            ? find(documentsOf(join(folder, result.patchedResources)), result.kind, namespace, resourceName!)
            : undefined;
          if (!object) {
            missing.push(`${result.policy} ${result.kind}/${name}`);
            continue;
          }
          cases.push({
            suite: relative(root, dirname(folder)),
            policy: result.policy,
            rule: result.rule,
            kind: result.kind,
            resource: String(name),
            expected: result.result,
            object,
            mocks,
            userInfo,
            ...(patched ? { patched } : {}),
          });
        }
      }
      const policyTexts = (test.policies ?? []).map((path) => ({
        file: relative(root, join(folder, path)),
        text: readFileSync(join(folder, path), 'utf8'),
      }));
      return { folder: relative(root, dirname(folder)), policyTexts, cases, missing };
    });
}

/** The API Gateway event a case's object arrives in, as a CREATE by the suite's user. */
export const eventForCase = (entry: KyvernoCase) =>
  eventFor(entry.object, { username: entry.userInfo?.username, groups: entry.userInfo?.groups });
