// What a kyverno-test mocks of what a ClusterPolicy's context entries read outside the cluster view: the
// suite's `globalContextEntries` (an entry's `data`, `resources` or `resourceFiles`, then its `fieldPath` and
// `projections`), its `apiCallResponses` (a service's answer by URL and method), and values named as the
// entry (Kyverno's CLI puts them in the context and reads nothing for them). The functions refuse such an
// entry (a registry, a service, a GlobalContextEntry not in the bundle); here the suite answers it, so the
// entry becomes a variable holding the mocked answer through the entry's jmesPath, or, when the values give
// it, is dropped for the values to answer. An entry the suite does not answer stays, and is refused.
import { join } from 'node:path';
import { searchKyvernoJmesPath } from '../../functions/engines/kyverno/index.js';
import { CostBudget } from '../../functions/engines/runtime/cost-budget.js';
import type { MockedAnswer, SuiteAnswers } from '../../functions/admission/cluster/cluster-view.js';
import { yamlDocuments } from './yaml-documents.js';

export interface GlobalContextMock {
  name?: string;
  data?: unknown;
  resources?: unknown[];
  resourceFiles?: string[];
  fieldPath?: string;
  projections?: { name?: string; path?: string }[];
}

export interface ApiCallMock {
  url?: string;
  urlPath?: string;
  method?: string;
  response?: { statusCode?: number; body?: unknown };
}

interface ContextEntry {
  name?: string;
  variable?: unknown;
  configMap?: unknown;
  apiCall?: { urlPath?: string; method?: string; service?: { url?: string }; jmesPath?: string };
  globalReference?: { name?: string; jmesPath?: string };
  imageRegistry?: unknown;
}

type PolicyManifest = { kind?: string; spec?: { rules?: unknown[] } };

const search = (expression: string, data: unknown) => searchKyvernoJmesPath(expression, data, { budget: new CostBudget() });

/** An entry's mocked value, as Kyverno's CLI builds it: the root (data, or the objects), its fieldPath, its projections. */
function globalValue(mock: GlobalContextMock, folder: string): unknown {
  const root = mock.data ?? mock.resources ?? (mock.resourceFiles ?? []).flatMap((file) => yamlDocuments(join(folder, file)));
  const value = mock.fieldPath ? search(mock.fieldPath, root) : root;
  if (!mock.projections?.length) return value;
  return Object.fromEntries(mock.projections.map(({ name = '', path = '@' }) => [name, search(path, value)]));
}

/** A globalReference's answer from the mocks: the entry by name, or `entry.projection`. */
function globalAnswer(reference: string, values: Map<string, unknown>): MockedAnswer {
  if (values.has(reference)) return { found: true, value: values.get(reference) };
  const [entry, projection] = [reference.slice(0, reference.indexOf('.')), reference.slice(reference.indexOf('.') + 1)];
  const whole = reference.includes('.') ? values.get(entry) : undefined;
  if (typeof whole !== 'object' || whole === null || !Object.hasOwn(whole, projection)) return { found: false };
  return { found: true, value: (whole as Record<string, unknown>)[projection] };
}

/** The mocked response to a call, as Kyverno's CLI finds it: by method and URL, then by URL for a mock that names no method. */
function mockedResponse(mocks: ApiCallMock[], method: string, url: string): ApiCallMock | undefined {
  const answers = (candidate: ApiCallMock) => (candidate.url ?? candidate.urlPath) === url;
  return (
    mocks.find((candidate) => answers(candidate) && candidate.method === method) ??
    mocks.find((candidate) => answers(candidate) && !candidate.method)
  );
}

/** A service call's mocked body: only a 2xx answers, as Kyverno's context loader reads a mock. */
function apiAnswer(call: NonNullable<ContextEntry['apiCall']>, mocks: ApiCallMock[]): MockedAnswer {
  const url = call.service?.url;
  if (url === undefined || url.includes('{{')) return { found: false };
  const mock = mockedResponse(mocks, call.method ?? 'GET', url);
  const status = mock?.response?.statusCode ?? 200;
  if (!mock || status < 200 || status >= 300) return { found: false };
  return { found: true, value: mock.response?.body };
}

export interface SuiteMocks {
  globalEntries: Map<string, unknown>;
  apiCalls: ApiCallMock[];
  /** The names the suite's values give a policy's context, whatever the rule or resource. */
  valueNames: (policy: string) => Set<string>;
  /** The context file's image data, by reference (contextImages). */
  images: Map<string, unknown>;
}

export function suiteMocks(
  folder: string,
  test: { globalContextEntries?: GlobalContextMock[]; apiCallResponses?: ApiCallMock[] },
  valueNames: SuiteMocks['valueNames'],
  images: SuiteMocks['images'],
): SuiteMocks {
  const globalEntries = new Map(
    (test.globalContextEntries ?? []).map((mock) => {
      try {
        return [mock.name ?? '', globalValue(mock, folder)];
      } catch (error) {
        throw new Error(`globalContextEntries ${mock.name}: ${(error as Error).message}`);
      }
    }),
  );
  return { globalEntries, apiCalls: test.apiCallResponses ?? [], valueNames, images };
}

/** One context entry as the suite answers it: unchanged, a variable holding the mocked answer, or dropped. */
function mockedEntry(entry: ContextEntry, mocks: SuiteMocks, givenByValues: Set<string>): ContextEntry | undefined {
  const answer = entry.globalReference
    ? globalAnswer(entry.globalReference.name ?? '', mocks.globalEntries)
    : entry.apiCall?.service
      ? apiAnswer(entry.apiCall, mocks.apiCalls)
      : { found: false };
  if (answer.found) {
    const jmesPath = entry.globalReference?.jmesPath ?? entry.apiCall?.jmesPath;
    return { name: entry.name, variable: { value: jmesPath ? search(jmesPath, answer.value) : answer.value } };
  }
  const unreachable = entry.globalReference !== undefined || entry.apiCall?.service !== undefined || entry.imageRegistry !== undefined;
  return unreachable && givenByValues.has(entry.name ?? '') ? undefined : entry;
}

type Part = { context?: ContextEntry[]; foreach?: Part[]; validate?: { foreach?: Part[] }; mutate?: { foreach?: Part[] } };

/** A rule, or a foreach of one, however deep, with its context entries answered by the mocks. */
function withMockedContexts(part: Part, mocks: SuiteMocks, givenByValues: Set<string>): Part {
  const loops = (foreach: Part[] | undefined) => foreach?.map((inner) => withMockedContexts(inner, mocks, givenByValues));
  const changed: Part = { ...part };
  if (part.context) changed.context = part.context.flatMap((entry) => mockedEntry(entry, mocks, givenByValues) ?? []);
  if (part.foreach) changed.foreach = loops(part.foreach);
  if (part.validate?.foreach) changed.validate = { ...part.validate, foreach: loops(part.validate.foreach) };
  if (part.mutate?.foreach) changed.mutate = { ...part.mutate, foreach: loops(part.mutate.foreach) };
  return changed;
}

/** A ClusterPolicy or Policy with its rules' context entries answered by the suite's mocks; any other manifest as it is. */
export function withSuiteMocks<M extends { metadata?: { name?: string } }>(manifest: M, mocks: SuiteMocks): M {
  const policy = manifest as PolicyManifest;
  if ((policy.kind !== 'ClusterPolicy' && policy.kind !== 'Policy') || !policy.spec?.rules) return manifest;
  const givenByValues = mocks.valueNames(manifest.metadata?.name ?? '');
  const rules = policy.spec.rules.map((rule) => withMockedContexts(rule as Part, mocks, givenByValues));
  return { ...manifest, spec: { ...policy.spec, rules } } as M;
}

/**
 * The suite's answers to Kyverno CEL's http, globalContext and imagedata libraries: an HTTP call gets the
 * mock's whole response (`body`, `statusCode`), whatever its status, as Kyverno's CLI hands it over; a global
 * context entry its mocked value; an image the context file's data for it.
 */
export function suiteAnswers(mocks: SuiteMocks): SuiteAnswers {
  return {
    httpCall(method, url) {
      const mock = mockedResponse(mocks.apiCalls, method, url);
      return mock ? { found: true, value: mock.response ?? {} } : { found: false };
    },
    globalEntry: (name) => (mocks.globalEntries.has(name) ? { found: true, value: mocks.globalEntries.get(name) } : { found: false }),
    imageData: (reference) => (mocks.images.has(reference) ? { found: true, value: mocks.images.get(reference) } : { found: false }),
  };
}
