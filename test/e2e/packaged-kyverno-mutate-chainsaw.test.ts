// Kyverno's chainsaw tests of its mutations (../shared/corpora/kyverno-clusterpolicy, kyverno-mpol), read as
// data (test/helpers/chainsaw.ts): each object a test applies goes through the packaged mutations function
// with its folder's policies, and every field the test asserts of the stored object must be in the patched
// one (or, for an `error` step, must not all be). Chainsaw asserts what the API server stored after its own
// defaulting; the cases that assert a defaulted field are listed below with the field, not counted as agreeing.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import '../helpers/engines.js';
import { mutationsPolicy } from '../../functions/mutations/policy.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { type ChainsawCase, chainsawCases, holds } from '../helpers/chainsaw.js';
import { CORPORA } from '../helpers/corpora.js';
import { eventFor, invoke } from '../helpers/invoke.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';

afterAll(removeRulesFolders);

/** Folders holding a policy with mutations: a ClusterPolicy mutate rule or a MutatingPolicy. */
function mutationFolders(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    if (name.startsWith('.') || !statSync(path).isDirectory()) return [];
    const own = readdirSync(path).filter(
      (file) => file.endsWith('.yaml') && /^\s+mutate:|kind: MutatingPolicy/m.test(readFileSync(join(path, file), 'utf8')),
    );
    return [...(own.length > 0 ? [path] : []), ...mutationFolders(path)];
  });
}

/** The folder's policies as `policy push` sends the mutations function its part. */
function bundleOf(folder: string): string {
  const manifests = readdirSync(folder)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => parseAllDocuments(readFileSync(join(folder, file), 'utf8')).map((document) => document.toJS()));
  const mine = manifests.filter((manifest) => mutationsPolicy.manifests!.claims(manifest, manifests));
  return mine.map((manifest) => stringify(mutationsPolicy.manifests!.part!(manifest, manifests))).join('---\n');
}

const ROOTS = [join(CORPORA, 'kyverno-clusterpolicy'), join(CORPORA, 'kyverno-mpol')];
const folders = ROOTS.flatMap(mutationFolders);
// A bundle whose rules read the cluster needs a cluster snapshot, which these runs do not give:
// `policy test` runs its suite. One whose rules read image registries (imageRegistry entries) needs registries
// this machine cannot reach (kyverno-image-registry.test.ts reads one of its own).
const readsCluster = (rules: { parameters: unknown }[]) =>
  rules.some((rule) => (mutationsPolicy.clusterReads?.(rule.parameters as never) ?? []).length > 0);
const readsRegistries = (rules: { parameters: { run: { engine: { readsImageRegistries?(rule: unknown): boolean }; rule: unknown } } }[]) =>
  rules.some(({ parameters: { run } }) => run.engine.readsImageRegistries?.(run.rule) === true);
const runnable = folders.filter((folder) => {
  const parsed = parseRulesDocument(mutationsPolicy, bundleOf(folder));
  return parsed.ok && !readsCluster(parsed.document.rules) && !readsRegistries(parsed.document.rules);
});
const cases = ROOTS.flatMap((root) => chainsawCases(root, () => runnable.filter((folder) => folder.startsWith(root))));

// One function per folder, as a warm Lambda answers a folder's cases one after another.
const handlers = new Map<string, ReturnType<typeof packagedWithRules>>();

/** The patched object the function answers for a case's object, applied into `default` as chainsaw's namespace. */
async function patchedFor(folder: string, entry: ChainsawCase) {
  if (!handlers.has(folder)) handlers.set(folder, packagedWithRules('mutations', bundleOf(folder)));
  const { handler } = await handlers.get(folder)!;
  const object = { ...entry.object, metadata: { namespace: 'default', ...entry.object.metadata } };
  const { body } = await invoke(handler, eventFor(object, { namespace: object.metadata.namespace }));
  expect(body.response.auditAnnotations?.['failed-open'], 'no policy may fail open').toBeUndefined();
  return body.response.patch ? applyPatchStrictly(object, body.response.patch) : object;
}

// What the cluster adds that a case asserts: the API server's defaulting, its admission plugins, its user.
const CLUSTER_ADDS: Record<string, string> = {
  'other/add-node-affinity resource-mutated.yaml Deployment/tomcat-deployment': 'asserts protocol: TCP, the API server’s default',
  'other/add-node-affinity resource-mutated.yaml Deployment/nginx-deployment': 'asserts protocol: TCP, the API server’s default',
  'other/add-node-affinity resource-mutated.yaml Deployment/redis-deployment': 'asserts protocol: TCP, the API server’s default',
  'other/record-creation-details pod-patched.yaml Pod/pod01': 'asserts the test cluster’s user and version (a chainsaw expression)',
  'other/record-creation-details ns-patched.yaml Namespace/record-create-ns':
    'asserts the test cluster’s user and version (a chainsaw expression)',
  'other/remove-serviceaccount-token pod-not-patched02.yaml Pod/pod04':
    'asserts the service account token volume the ServiceAccount admission plugin adds is kept',
};
const nameOf = (entry: ChainsawCase) => `${entry.suite} ${entry.object.kind}/${entry.object.metadata?.name}`;

describe('Kyverno chainsaw tests of mutations, on the packaged mutations function', () => {
  it('finds the cases; those left out assert what only a cluster adds, each named', () => {
    expect(cases.length).toBeGreaterThan(100);
    const names = cases.map(nameOf);
    expect(Object.keys(CLUSTER_ADDS).filter((name) => !names.includes(name))).toEqual([]);
    expect(cases.filter((entry) => entry.unsupported).map(nameOf)).toEqual([]);
  });

  it.each(cases.filter((entry) => !entry.unsupported && !CLUSTER_ADDS[nameOf(entry)]).map((entry) => [nameOf(entry), entry] as const))(
    '%s',
    async (_name, entry) => {
      const patched = await patchedFor(entry.folder, entry);
      expect(holds(patched, entry.asserted), JSON.stringify(patched)).toBe(!entry.negated);
    },
  );
});
