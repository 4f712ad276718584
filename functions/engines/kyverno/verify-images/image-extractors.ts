// Kyverno's imageExtractors: a rule's own image locations per kind (pkg/utils/api/image.go), for resources
// whose images are not a pod spec's containers (a CRD's). A path's `*` walks a list's items or a map's
// values; the field at its end holds the image (`value`, else the path's last part), a `jmesPath` turning
// that string into the image; an object without the field has no image there. A kind with extractors of its
// own is read by them alone; every other kind as Kyverno reads it by default (its pod spec's containers).
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { podContainers } from '../../../admission/kubernetes/pod-containers.js';
import type { WorkDeadline } from '../../../admission/decide/deadline.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from '../../runtime/cost-budget.js';
import { searchJmesPath } from '../jmespath/jmespath.js';
import type { ImageExtractor, ImageExtractors } from './image-extractor-schema.js';

type Found = string[];

function extract(node: unknown, fields: readonly string[], extractor: ImageExtractor, found: Found, budget: CostBudget): void {
  if (node === null || node === undefined) return;
  if (fields[0] === '*') {
    if (Array.isArray(node)) for (const item of node) extract(item, fields.slice(1), extractor, found, budget);
    else if (isJsonObject(node)) for (const item of Object.values(node)) extract(item, fields.slice(1), extractor, found, budget);
    else throw new Error('imageExtractors: invalid type: `*` over a value that is neither a list nor a map');
    return;
  }
  if (!isJsonObject(node)) throw new Error('imageExtractors: invalid image config: the path reaches a value that is not a map');
  if (fields.length > 0) {
    extract(node[fields[0]!], fields.slice(1), extractor, found, budget);
    return;
  }
  if (extractor.key && typeof node[extractor.key] !== 'string')
    throw new Error(`imageExtractors: invalid key: ${extractor.key} is not a string`);
  const value = node[extractor.value];
  if (typeof value !== 'string' || value.trim() === '') return;
  if (!extractor.jmesPath) {
    found.push(value);
    return;
  }
  const image = searchJmesPath(extractor.jmesPath, value, { budget });
  if (typeof image !== 'string')
    throw new Error(`imageExtractors: jmespath ${extractor.jmesPath} must produce a string, but produced ${JSON.stringify(image)}`);
  found.push(image);
}

/**
 * The images of `resource` (of `kind`), as written, by the rule's extractors for that kind or by default; the
 * jmesPaths of one call on one budget, which the request's deadline also stops.
 */
export function imagesOf(kind: string, resource: unknown, extractors: ImageExtractors | undefined, deadline?: WorkDeadline): string[] {
  const own = extractors?.get(kind);
  if (!own) return podContainers(kind, resource).flatMap(({ image }) => (typeof image === 'string' ? [image] : []));
  const found: Found = [];
  const budget = new CostBudget(PER_EXPRESSION_COST_LIMIT, deadline);
  for (const extractor of own) extract(resource, extractor.fields, extractor, found, budget);
  return found;
}
