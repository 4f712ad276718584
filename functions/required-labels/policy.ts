// required-labels: the object must carry every listed label key, and where allowed values are given, a
// value matching one of them. A missing key and a disallowed value are separate messages; all are listed.
import { matchesAnyGlob } from '../admission/kubernetes/glob.js';
import { ownValue } from '../admission/kubernetes/own-value.js';
import type { ValidatingPolicy } from '../admission/policy.js';
import { type RequiredLabelsParameters, RequiredLabelsParametersSchema } from './rules.js';

export const requiredLabelsPolicy: ValidatingPolicy<RequiredLabelsParameters> = {
  name: 'required-labels',
  kind: 'validating',
  defaultKinds: ['Deployment', 'StatefulSet', 'DaemonSet', 'Pod', 'Namespace', 'Service'],
  parametersSchema: RequiredLabelsParametersSchema,
  evaluate(request, { labels }) {
    const object = request.object as { metadata?: { labels?: unknown } } | null;
    const present = object?.metadata?.labels;
    const what = `${request.kind.kind} "${request.name ?? '(unnamed)'}"`;
    return labels.flatMap(({ key, allowedValues }) => {
      const value = ownValue(present, key);
      if (value === undefined) return [`${what} is missing label "${key}"`];
      if (allowedValues && !(typeof value === 'string' && matchesAnyGlob(value, allowedValues))) {
        return [`${what} label "${key}" has value ${JSON.stringify(value)}; allowed: ${allowedValues.join(', ')}`];
      }
      return [];
    });
  },
};
