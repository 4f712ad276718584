// Kyverno's http library for CEL (pkg/cel/libs/http): http.Get and http.Post, and http.Client(caBundle) for
// a service with its own CA. They call the network, so the functions refuse them at compile (program.ts);
// `policy test` compiles them when the suite's apiCallResponses answer them, and a call answers from there.
import { ClusterLookupError } from '../../../../admission/cluster/cluster-view.js';
import { currentCluster, currentEvaluation } from '../../../runtime/evaluation.js';
import { toCel } from '../../program.js';
import type { CelLibrary } from '../cel-library.js';

function call(method: string, url: string): unknown {
  const answers = currentCluster()?.answers;
  if (!answers)
    throw new ClusterLookupError(`Kyverno's http.${method === 'GET' ? 'Get' : 'Post'} calls the network, which is not reached here`);
  const answer = answers.httpCall(method, url);
  // Kyverno's CLI would go on to the network; nothing here does.
  if (!answer.found) throw new ClusterLookupError(`no apiCallResponses entry answers ${method} ${url}`);
  currentEvaluation()?.budget.charge(1);
  return toCel(answer.value, `${method} ${url}`);
}

const get = (_http: unknown, url: string) => call('GET', url);
const post = (_http: unknown, url: string) => call('POST', url);

export const kyvernoHttpLibrary: CelLibrary = {
  name: 'kyverno.http',
  kyvernoOnly: true,
  namespaces: [{ constant: 'http' }],
  functions: {
    'http.Get(string): dyn': get,
    'http.Get(string, map): dyn': get,
    'http.Post(string, dyn): dyn': post,
    'http.Post(string, dyn, map): dyn': post,
    // The CA bundle says how to reach the service; a mocked answer needs no connection.
    'http.Client(string): http': (http: unknown) => http,
  },
};
