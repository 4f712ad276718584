// METADATA annotations as OPA reads them for rego.metadata.chain() and rule(), beyond OPA's three compliance
// cases: subpackages, authors with emails, related resources, schemas, and the errors of a bad block.
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../functions/engines/rego/compile-sources.js';
import { evalDocument, evalQuery } from '../../functions/engines/rego/rego.js';
import { CostBudget } from '../../functions/engines/runtime/cost-budget.js';

const options = { input: null, data: {}, strictBuiltinErrors: true, now: new Date(), budget: new CostBudget() };
const compile = (...sources: string[]) => compileSources(sources.map((source, index) => ({ file: `m${index}.rego`, source })));

describe('rego.metadata', () => {
  it('chains rule, document, package and subpackages annotations, nearest first', () => {
    const policy = compile(
      `# METADATA
# scope: subpackages
# organizations: [Acme]
package acme`,
      `# METADATA
# title: Images
# related_resources:
# - https://example.com/images
# - ref: https://example.com/registries
#   description: the registries
package acme.images

import rego.v1

# METADATA
# scope: document
# description: one document, two rules
allowed := false if false

# METADATA
# title: from the allow list
# authors:
# - Platform Team <platform@example.com>
# - name: Security
# schemas:
# - input: schema.admission
# custom:
#   severity: high
allowed if input.ok

undocumented := rego.metadata.rule()
chain := rego.metadata.chain()
`,
    );
    const chain = evalQuery(policy, 'x := data.acme.images.chain', options)[0]?.bindings.x;
    expect(chain).toEqual([
      { path: ['acme', 'images', 'chain'] },
      {
        path: ['acme', 'images'],
        annotations: {
          scope: 'package',
          title: 'Images',
          related_resources: [
            { ref: 'https://example.com/images' },
            { ref: 'https://example.com/registries', description: 'the registries' },
          ],
        },
      },
      { path: ['acme'], annotations: { scope: 'subpackages', organizations: ['Acme'] } },
    ]);
    expect(evalDocument(policy, ['acme', 'images', 'undocumented'], options)).toEqual({});
  });

  it('rule() is the rule’s own annotation; a rule with document scope below it in the chain', () => {
    const policy = compile(`package p
import rego.v1

# METADATA
# scope: document
# description: the document
r := rego.metadata.chain() if false

# METADATA
# title: own
# authors: [Platform Team <platform@example.com>, Security]
r := [rego.metadata.rule(), rego.metadata.chain()] if true
`);
    const [rule, chain] = evalDocument(policy, ['p', 'r'], options) as [unknown, unknown[]];
    expect(rule).toEqual({
      scope: 'rule',
      title: 'own',
      authors: [{ name: 'Platform Team', email: 'platform@example.com' }, { name: 'Security' }],
    });
    expect(chain.map((entry) => (entry as { annotations: { scope: string } }).annotations.scope)).toEqual(['rule', 'document']);
  });

  it('is an error outside a rule, and a bad block is refused with its place', () => {
    const policy = compile('package p');
    expect(() => evalQuery(policy, 'x := rego.metadata.chain()', options)).toThrow(
      'the rego.metadata.chain function must only be called within the scope of a rule',
    );
    expect(() => compile('package p\n\n# METADATA\n# scope: everywhere\np := rego.metadata.rule()')).toThrow(
      "m0.rego:3:1: rego_parse_error: invalid annotation scope 'everywhere'",
    );
    expect(() => compile('package p\n\n# METADATA\n# scope: package\np := rego.metadata.rule()')).toThrow(
      "annotation scope 'package' must be applied to package (have rule)",
    );
  });
});
