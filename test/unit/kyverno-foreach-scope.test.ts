// A ClusterPolicy foreach with elementScope: true over elements that are not objects is the rule's error, as
// Kyverno's AddElementToContext makes it; over objects (or unscoped) it validates each element.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { ruleResults } from '../../functions/audit/rule-results.js';
import { offlineRequest } from '../../functions/audit/offline-request.js';
import { bundleRules, cel } from '../../infra/policy-tests/manifest-bundle-rules.js';

const policy = (list: string, elementScope: boolean | undefined) => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'images' },
  spec: {
    rules: [
      {
        name: 'ghcr-only',
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        validate: {
          message: 'images must come from ghcr.io',
          foreach: [
            {
              list,
              ...(elementScope === undefined ? {} : { elementScope }),
              deny: {
                conditions: { all: [{ key: "{{ starts_with(element.image || element, 'ghcr.io/') }}", operator: 'Equals', value: false }] },
              },
            },
          ],
        },
      },
    ],
  },
});

async function resultFor(list: string, elementScope: boolean | undefined) {
  const rules = bundleRules([policy(list, elementScope)]);
  if (!rules.ok) throw new Error(rules.errors.join('\n'));
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'docker.io/nginx' }] },
  };
  const request = offlineRequest(pod);
  if (!request.ok) throw new Error(request.error);
  const [result] = await ruleResults(cel, rules.document, request.request, new Date());
  return result!;
}

describe('foreach elementScope', () => {
  it('is an error over strings when set to true', async () => {
    const result = await resultFor('request.object.spec.containers[].image', true);
    expect(result.result).toBe('error');
    expect(result.messages.join('\n')).toContain(
      'cannot use elementScope=true foreach rules for elements that are not maps, expected type=map got type=string',
    );
  });

  it('validates strings when unset, and objects when true', async () => {
    expect((await resultFor('request.object.spec.containers[].image', undefined)).result).toBe('fail');
    expect((await resultFor('request.object.spec.containers', true)).result).toBe('fail');
  });
});
