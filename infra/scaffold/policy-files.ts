// The files `portcullis new-policy` writes for a TypeScript policy: a working example of each kind that the
// author replaces with their own check (validating: forbid images by glob; mutating: add default labels),
// with its rules schema, a sample rules document, fixtures, a test and the registry entry.
import { admissionReviewFor, httpApiEvent } from '../admission-event.js';

export interface PolicyNames {
  /** kebab-case: the function, route, rules object and folders. */
  name: string;
  /** camelCase stem: `noLatest` → `noLatestPolicy`, `NoLatestParametersSchema`. */
  camel: string;
  pascal: string;
}

export function policyNames(name: string): PolicyNames {
  const camel = name.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
  return { name, camel, pascal: `${camel[0]!.toUpperCase()}${camel.slice(1)}` };
}

const handler = ({
  name,
  camel,
}: PolicyNames) => `// Lambda entry point for ${name}: the policy wired into the shared admission stack. Creating the handler
// starts the first rules load, so it runs during Lambda's init phase and the first request joins it.
import { createAdmissionHandler } from '../admission/create-admission-handler.js';
import { ${camel}Policy } from './policy.js';

export const handler = createAdmissionHandler(${camel}Policy);
`;

const validatingRules = ({
  name,
  pascal,
}: PolicyNames) => `// ${name}'s parameters: what each rule of its rules documents says under \`parameters\`, validated
// whole before a document is used (an invalid one is refused; the last good one stays).
import * as v from '../admission/schema.js';

/**
 * @example { forbiddenImages: ["*:latest"] }
 */
export const ${pascal}ParametersSchema = v.strictObject({
  /** Images no container may run, as globs (\`*\` matches any run of characters). */
  forbiddenImages: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)),
});
export type ${pascal}Parameters = v.InferOutput<typeof ${pascal}ParametersSchema>;
`;

const validatingPolicy = ({
  name,
  camel,
  pascal,
}: PolicyNames) => `// ${name}: denies Pods and pod templates whose containers run an image the rules forbid. Scaffolded by
// \`portcullis new-policy\`: replace the example check with yours. \`evaluate\` stays pure (no I/O, no
// logging, no clock but context.now): matching, modes, failure policy and the response are the stack's.
import { matchesAnyGlob } from '../admission/kubernetes/glob.js';
import { POD_SPEC_KINDS, podContainers } from '../admission/kubernetes/pod-containers.js';
import type { ValidatingPolicy } from '../admission/policy.js';
import { type ${pascal}Parameters, ${pascal}ParametersSchema } from './rules.js';

export const ${camel}Policy: ValidatingPolicy<${pascal}Parameters> = {
  name: '${name}',
  kind: 'validating',
  // The kinds a rule applies to when its match block names none: Pods and every workload with a pod template.
  defaultKinds: POD_SPEC_KINDS,
  parametersSchema: ${pascal}ParametersSchema,
  evaluate(request, parameters) {
    return podContainers(request.kind.kind, request.object)
      .filter(({ image }) => typeof image === 'string' && matchesAnyGlob(image, parameters.forbiddenImages))
      .map(({ name, image }) => \`container "\${name}" image "\${String(image)}" is forbidden (\${parameters.forbiddenImages.join(', ')})\`);
  },
};
`;

const mutatingRules = ({
  name,
  pascal,
}: PolicyNames) => `// ${name}'s parameters: what each rule of its rules documents says under \`parameters\`, validated
// whole before a document is used (an invalid one is refused; the last good one stays).
import * as v from '../admission/schema.js';

/**
 * @example { labels: { team: unassigned } }
 */
export const ${pascal}ParametersSchema = v.strictObject({
  /** Labels set on objects that do not have them; an object's own value is kept. */
  labels: v.record(v.pipe(v.string(), v.minLength(1)), v.string()),
});
export type ${pascal}Parameters = v.InferOutput<typeof ${pascal}ParametersSchema>;
`;

const mutatingPolicy = ({
  name,
  camel,
  pascal,
}: PolicyNames) => `// ${name}: adds default labels to Pods and workloads that lack them. Scaffolded by \`portcullis new-policy\`:
// replace the example change with yours. \`mutate\` changes its own deep copy of the object and returns it;
// the stack diffs it into the JSON Patch, so a policy never writes patch operations.
import { POD_SPEC_KINDS } from '../admission/kubernetes/pod-containers.js';
import type { MutatingPolicy } from '../admission/policy.js';
import { type ${pascal}Parameters, ${pascal}ParametersSchema } from './rules.js';

type Labelled = { metadata?: { labels?: Record<string, string> } };

export const ${camel}Policy: MutatingPolicy<${pascal}Parameters> = {
  name: '${name}',
  kind: 'mutating',
  // The kinds a rule applies to when its match block names none: Pods and every workload with a pod template.
  defaultKinds: POD_SPEC_KINDS,
  parametersSchema: ${pascal}ParametersSchema,
  mutate(_request, parameters, object) {
    const metadata = ((object as Labelled).metadata ??= {});
    const labels = (metadata.labels ??= {});
    for (const [key, value] of Object.entries(parameters.labels)) if (!Object.hasOwn(labels, key)) labels[key] = value;
    return object;
  },
};
`;

const sampleRules = (
  { name }: PolicyNames,
  mutating: boolean,
) => `# ${name}: the rules the function enforces (\`npx portcullis policy push policies/${name}.yaml\`).
failurePolicy: Ignore
rules:
  - name: ${mutating ? 'default-labels' : 'no-latest'}
    match:
      excludedNamespaces: ["kube-system"]
    parameters:
${mutating ? '      labels: { team: unassigned }' : '      forbiddenImages: ["*:latest"]'}
`;

const validatingTest = ({
  name,
  camel,
  pascal,
}: PolicyNames) => `// ${name}: the policy alone, one case per behaviour, then through the whole stack on its fixtures
// (events/${name}/) with the tests' own rules (test/fixtures/rules/${name}.yaml).
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../functions/admission/config.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import { ${camel}Policy } from '../../functions/${name}/policy.js';
import * as v from '../../functions/admission/schema.js';
import { ${pascal}ParametersSchema } from '../../functions/${name}/rules.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { fixture, type Handler, invoke } from '../helpers/invoke.js';
import { TEST_RULES } from '../helpers/test-rules.js';

const parameters = v.parse(${pascal}ParametersSchema, { forbiddenImages: ['*:latest'] });
const pod = (image: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'team-a' }, spec: { containers: [{ name: 'web', image }] } });
const evaluate = (manifest: unknown) => ${camel}Policy.evaluate(admissionReviewFor(manifest).request, parameters, { now: new Date() });

describe('${name}', () => {
  it.each([
    ['a pinned image is allowed', pod('registry.example.com/web:1.0'), []],
    ['a latest image is denied, naming the container', pod('registry.example.com/web:latest'), ['container "web" image "registry.example.com/web:latest" is forbidden (*:latest)']],
  ])('%s', (_name, manifest, expected) => {
    expect(evaluate(manifest)).toEqual(expected);
  });

  it('refuses parameters it cannot use', () => {
    expect(v.safeParse(${pascal}ParametersSchema, { forbiddenImages: [] }).success).toBe(false);
    expect(v.safeParse(${pascal}ParametersSchema, { forbiddenImage: ['*:latest'] }).success).toBe(false);
  });

  describe('through the whole stack, on its fixtures', () => {
    const handler = createAdmissionHandler(${camel}Policy, { config: configFromEnv({ RULES_DIR: TEST_RULES }) }) as unknown as Handler;
    it.each([
      ['pod-allowed.json', true],
      ['pod-denied.json', false],
    ])('%s: allowed %s', async (name, allowed) => {
      const { statusCode, body } = await invoke(handler, fixture('${name}', name));
      expect(statusCode).toBe(200);
      expect(body.response.allowed).toBe(allowed);
    });
  });
});
`;

const mutatingTest = ({
  name,
  camel,
  pascal,
}: PolicyNames) => `// ${name}: the policy alone, one case per behaviour, then through the whole stack on its fixtures
// (events/${name}/) with the tests' own rules (test/fixtures/rules/${name}.yaml).
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../functions/admission/config.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import { ${camel}Policy } from '../../functions/${name}/policy.js';
import * as v from '../../functions/admission/schema.js';
import { ${pascal}ParametersSchema } from '../../functions/${name}/rules.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { fixture, type Handler, invoke } from '../helpers/invoke.js';
import { TEST_RULES } from '../helpers/test-rules.js';

const parameters = v.parse(${pascal}ParametersSchema, { labels: { team: 'unassigned' } });
const pod = (labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'team-a', ...(labels ? { labels } : {}) }, spec: { containers: [{ name: 'web', image: 'web:1.0' }] } });
const mutate = (manifest: any) => ${camel}Policy.mutate(admissionReviewFor(manifest).request, parameters, structuredClone(manifest), { now: new Date() }) as any;

describe('${name}', () => {
  it.each([
    ['no labels: the default is added', undefined, { team: 'unassigned' }],
    ['other labels are kept', { app: 'web' }, { app: 'web', team: 'unassigned' }],
    ["the object's own value wins", { team: 'payments' }, { team: 'payments' }],
  ])('%s', (_name, labels, expected) => {
    expect(mutate(pod(labels)).metadata.labels).toEqual(expected);
  });

  it('refuses parameters it cannot use', () => {
    expect(v.safeParse(${pascal}ParametersSchema, { labels: ['team'] }).success).toBe(false);
  });

  describe('through the whole stack, on its fixtures', () => {
    const handler = createAdmissionHandler(${camel}Policy, { config: configFromEnv({ RULES_DIR: TEST_RULES }) }) as unknown as Handler;
    it('an unlabelled Pod is patched with the default label', async () => {
      const event = fixture('${name}', 'pod-unlabelled.json');
      const { body } = await invoke(handler, event);
      expect(body.response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
      expect(applyPatchStrictly(JSON.parse(event.body!).request.object, body.response.patch).metadata.labels).toEqual({ team: 'unassigned' });
    });
    it('a labelled Pod is left alone', async () => {
      const { body } = await invoke(handler, fixture('${name}', 'pod-labelled.json'));
      expect(body.response).toMatchObject({ allowed: true });
      expect(body.response.patch).toBeUndefined();
    });
  });
});
`;

const fixturePod = (name: string, extra: { image?: string; labels?: Record<string, string> }) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'team-a', ...(extra.labels ? { labels: extra.labels } : {}) },
  spec: { containers: [{ name: 'web', image: extra.image ?? 'registry.example.com/web:1.0' }] },
});

const eventFile = (pod: unknown, path: string) =>
  `${JSON.stringify(httpApiEvent(JSON.stringify(admissionReviewFor(pod)), { path }), null, 2)}\n`;

/** Every file to write, by path from the project root. */
export function policyFiles(names: PolicyNames, mutating: boolean): Record<string, string> {
  const { name } = names;
  const path = `/${mutating ? 'mutate' : 'validate'}/${name}`;
  const fixtures: Record<string, unknown> = mutating
    ? { 'pod-unlabelled': fixturePod('unlabelled', {}), 'pod-labelled': fixturePod('labelled', { labels: { team: 'payments' } }) }
    : { 'pod-allowed': fixturePod('pinned', {}), 'pod-denied': fixturePod('latest', { image: 'registry.example.com/web:latest' }) };
  return {
    [`functions/${name}/handler.ts`]: handler(names),
    [`functions/${name}/rules.ts`]: mutating ? mutatingRules(names) : validatingRules(names),
    [`functions/${name}/policy.ts`]: mutating ? mutatingPolicy(names) : validatingPolicy(names),
    [`policies/${name}.yaml`]: sampleRules(names, mutating),
    [`test/fixtures/rules/${name}.yaml`]: sampleRules(names, mutating),
    [`test/unit/${name}-policy.test.ts`]: mutating ? mutatingTest(names) : validatingTest(names),
    ...Object.fromEntries(Object.entries(fixtures).map(([file, pod]) => [`events/${name}/${file}.json`, eventFile(pod, path)])),
  };
}

/** functions/registry.ts with the policy added: its import after the others, its entry at the end of the list. */
export function registryWith(registry: string, { name, camel }: PolicyNames): string {
  const imports = [...registry.matchAll(/^import \{ \w+Policy \} from '\.\/[\w-]+\/policy\.js';$/gm)];
  const end = registry.lastIndexOf('\n];');
  if (imports.length === 0 || end < 0)
    throw new Error('functions/registry.ts is not in the shape new-policy edits (policy imports, then `policyRegistry = [ … ];`)');
  const lastImport = imports.at(-1)!;
  const afterImports = lastImport.index + lastImport[0].length;
  const withEntry = `${registry.slice(0, end)}\n  erased(${camel}Policy),${registry.slice(end)}`;
  return `${withEntry.slice(0, afterImports)}\nimport { ${camel}Policy } from './${name}/policy.js';${withEntry.slice(afterImports)}`;
}
