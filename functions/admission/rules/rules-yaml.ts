// The YAML half of reading a rules document: a document as people write it, or a multi-document bundle of
// manifests, read as Kubernetes reads YAML (kubernetes/kubernetes-yaml.ts). Never throws: a document that
// makes the YAML library fail in any way (an alias bomb, nesting deep enough to exhaust the stack) is an
// invalid document with a message that says what and where.
import '../shared-chunk.js'; // the bundle's layout: see that file
import { parseKubernetesYaml } from '../kubernetes/kubernetes-yaml.js';
import { type RulesData, rulesDataUnlessYaml, statedFailurePolicy } from './rules-document-text.js';

/** Aliases a document may expand: YAML's own default, stated so the bound is visible. */
const MAX_ALIAS_COUNT = 100;

/** The document's data; a multi-document stream (a bundle of manifests) is the list of its documents. */
export function parseRulesYaml(text: string): RulesData {
  try {
    const documents = parseKubernetesYaml(text);
    const list = Array.isArray(documents) ? documents : [documents];
    const errors = list.flatMap((document, index) =>
      document.errors.map((error) => `YAML${list.length > 1 ? ` (document ${index + 1})` : ''}: ${error.message.split('\n')[0]}`),
    );
    if (errors.length > 0) return { ok: false, errors, failurePolicy: statedFailurePolicy(text) };
    const data = list.map((document) => document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }));
    return { ok: true, data: data.length <= 1 ? (data[0] ?? null) : data };
  } catch (error) {
    return { ok: false, errors: [`YAML: ${(error as Error)?.message ?? String(error)}`], failurePolicy: statedFailurePolicy(text) };
  }
}

/** Size limit, decoding, then JSON or YAML, in that order: the cheap refusals first. */
export function rulesData(input: string | Uint8Array, maxBytes: number): RulesData {
  const early = rulesDataUnlessYaml(input, maxBytes);
  return early.ok === 'needs-yaml' ? parseRulesYaml(early.text) : early;
}
