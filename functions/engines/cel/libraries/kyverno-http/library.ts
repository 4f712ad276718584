// Kyverno's http library for CEL (pkg/cel/libs/http): http.Get and http.Post, with headers, and
// http.Client(caBundle) for a service with its own CA. `policy test` answers them from the suite's
// apiCallResponses; the functions make them to the hosts the deployment allows (http-calls.ts), and refuse
// them at upload otherwise (program.ts).
import { ClusterLookupError } from '../../../../admission/cluster/cluster-view.js';
import { currentCluster, currentEvaluation } from '../../../runtime/evaluation.js';
import { toCel } from '../../program.js';
import { celMapEntries, jsonOf } from '../../values.js';
import type { CelLibrary } from '../cel-library.js';
import { certificateBlocks } from '../../../../admission/image-verification/public-keys.js';
import { callProblem } from '../../../runtime/http-call-hosts.js';
import { currentHttpCalls } from '../../../runtime/http-calls.js';
import { currentImageLookups } from '../../../runtime/image-lookups.js';

/** What http.Client(caBundle) returns: the namespace's own type, carrying the CA its calls trust. */
const caOf = new WeakMap<object, string>();

function call(http: object, method: 'GET' | 'POST', target: string, headers: unknown, data?: unknown): unknown {
  const name = `Kyverno's http.${method === 'GET' ? 'Get' : 'Post'}`;
  const answers = currentCluster()?.answers;
  if (answers) {
    const answer = answers.httpCall(method, target);
    // Kyverno's CLI would go on to the network; nothing here does.
    if (!answer.found) throw new ClusterLookupError(`no apiCallResponses entry answers ${method} ${target}`);
    currentEvaluation()?.budget.charge(1);
    return toCel(answer.value, `${method} ${target}`);
  }
  const calls = currentHttpCalls();
  if (!calls) throw new ClusterLookupError(`${name} calls the network, which is not reached here`);
  // A run that reads stand-ins for images makes no call: its URL may be built from one.
  if (currentImageLookups()?.discovering) throw new ClusterLookupError(`${name}: not made while image data is fetched`);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new ClusterLookupError(`${name}: ${JSON.stringify(target)} is not a URL`);
  }
  const problem = callProblem(url);
  if (problem) throw new ClusterLookupError(`${name}: ${problem}`);
  const ca = caOf.get(http);
  const answer = calls.answer({
    method,
    url,
    headers: headersOf(headers, name),
    ...(method === 'POST' ? { body: JSON.stringify(jsonOf(data, `${name}'s data`)) } : {}),
    ...(ca ? { ca } : {}),
  });
  // Not made yet: the evaluation runs again once it is (http-calls.ts); this run's result is dropped.
  if (!answer) throw new ClusterLookupError(`${name} ${url.origin}${url.pathname}: not made yet`);
  if (!answer.ok) throw new ClusterLookupError(`${name}: request failed: ${answer.error}`);
  currentEvaluation()?.budget.charge(1);
  return toCel(answer.body, `${method} ${url.origin}${url.pathname}`);
}

// Headers that say where a request goes or how it is framed: the call's URL and the client decide them, so
// that a header (perhaps built from the request) cannot steer a call to another virtual host.
const CLIENT_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

function headersOf(headers: unknown, name: string): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [key, value] of celMapEntries(headers) ?? []) {
    if (typeof key !== 'string' || typeof value !== 'string')
      throw new ClusterLookupError(`${name}: headers are a map of strings to strings`);
    const header = key.toLowerCase();
    if (CLIENT_HEADERS.has(header)) throw new ClusterLookupError(`${name}: the ${key} header is not a policy's to set`);
    plain[header] = value;
  }
  return plain;
}

function client(http: object, caBundle: string): object {
  if (!caBundle) return http;
  if (certificateBlocks(caBundle).length === 0)
    throw new ClusterLookupError("Kyverno's http.Client: failed to parse PEM CA bundle for APICall");
  const withCa = Object.create(Object.getPrototypeOf(http)) as object;
  caOf.set(withCa, caBundle);
  return withCa;
}

const NO_HEADERS = new Map<string, string>();

export const kyvernoHttpLibrary: CelLibrary = {
  name: 'kyverno.http',
  kyvernoOnly: true,
  namespaces: [{ constant: 'http' }],
  functions: {
    'http.Get(string): dyn': (http: object, url: string) => call(http, 'GET', url, NO_HEADERS),
    'http.Get(string, map): dyn': (http: object, url: string, headers: unknown) => call(http, 'GET', url, headers),
    'http.Post(string, dyn): dyn': (http: object, url: string, data: unknown) => call(http, 'POST', url, NO_HEADERS, data),
    'http.Post(string, dyn, map): dyn': (http: object, url: string, data: unknown, headers: unknown) =>
      call(http, 'POST', url, headers, data),
    'http.Client(string): http': client,
  },
};
