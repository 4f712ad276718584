// Gatekeeper's mutators as the mutations function reads them: what Gatekeeper refuses when a mutator is
// created (each refusal naming the mutator and the field), what cannot run here (with the reason), and the
// webhook registration derived from their applyTo and match.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { registrationsOf } from '../../functions/registration/webhook-registration.js';
import { assign, bundle, library, mutator, POD_V1, policy, refusalOf, rulesOf } from '../helpers/gatekeeper-mutators.js';

const widget = (name: string, location: string) =>
  assign(name, location, { assign: { value: 'x' } }, { applyTo: [{ groups: ['example.com'], kinds: ['Widget'], versions: ['v1'] }] });

describe('upload checks, naming the mutator and the field', () => {
  it.each([
    [assign('a', 'metadata.labels.x', { assign: { value: 'y' } }), /Assign a: spec.location: assign can't change metadata/],
    [assign('a', 'spec.containers[name: foo].name', { assign: { value: 'y' } }), /changing the item key is not allowed/],
    [assign('a', 'spec.containers[name: foo]', { assign: { value: { name: 'bar' } } }), /adding object to list with different key name/],
    [assign('a', 'spec..x', { assign: { value: 1 } }), /Assign a: spec.location: invalid location format `spec..x`/],
    [assign('a', 'spec.x.', { assign: { value: 1 } }), /trailing separators are forbidden/],
    [
      assign('a', 'spec.x', { assign: { value: 1 }, pathTests: [{ subPath: 'spec.y', condition: 'MustExist' }] }),
      /pathTests\[0\].subPath: all subpaths must be a prefix/,
    ],
    [assign('a', 'spec.x', { assign: { externalData: { provider: 'p' } } }), /spec.parameters.assign.externalData: cannot run here/],
    [
      assign('a', 'spec.x', { assign: { value: 1 } }, { match: { namespaceSelector: { matchLabels: { a: 'b' } } } }),
      /spec.match.namespaceSelector: cannot run here/,
    ],
    [assign('a', 'spec.x', { assign: { value: 1 } }, { match: { source: 'Generated' } }), /spec.match.source: Generated mutators run only/],
    [mutator('Assign', 'a', { location: 'spec.x', parameters: { assign: { value: 1 } } }), /Assign a: spec.applyTo: required/],
    [
      mutator('ModifySet', 's', { applyTo: POD_V1, location: 'spec.containers[name: x]', parameters: {} }),
      /final node in a modifyset location cannot be a keyed list/,
    ],
    [
      bundle(widget('keyed', 'spec.parts[name: foo].image'), widget('plain', 'spec.parts.image')),
      /conflicting schemas: Assign keyed and Assign plain disagree about the type of spec.parts \(example.com\/v1, Kind=Widget\)/,
    ],
    [
      bundle(widget('by-name', 'spec.parts[name: a].image'), widget('by-image', 'spec.parts[image: b].name')),
      /conflicting schemas: Assign by-image and Assign by-name disagree about the type of spec.parts/,
    ],
    // Kubernetes' schema of a built-in kind says what its fields are.
    [
      assign('a', 'spec.containers.image', { assign: { value: 'x' } }),
      /spec.containers is a list in Pod's schema: select its members with \[name: …\] before .image/,
    ],
    [
      assign('a', 'spec.affinity[name: x].nodeAffinity', { assign: { value: 1 } }),
      /spec.location: spec.affinity is an object in Pod's schema, not a list/,
    ],
    [assign('a', 'spec.nodeSelector[key: x].value', { assign: { value: 1 } }), /spec.nodeSelector is a map in Pod's schema/],
  ])('refused: %#', (text, message) => {
    expect(refusalOf(text)).toMatch(message);
  });

  it('a mutator and a ModifySet on the same list agree (Assign implies no type)', () => {
    expect(
      refusalOf(bundle(library('capabilities/samples/mutation-assign.yaml'), library('capabilities/samples/mutation-modifyset.yaml'))),
    ).toBe('(accepted)');
  });

  it('the cel function refuses mutators with the reason', async () => {
    const { celPolicy } = await import('../../functions/cel/policy.js');
    const parsed = parseRulesDocument(celPolicy as never, assign('a', 'spec.x', { assign: { value: 1 } }));
    expect(parsed.ok ? [] : parsed.errors).toEqual(['Assign a: Gatekeeper mutators are run by the mutations function, not cel']);
  });
});

describe('registration', () => {
  it("webhook-config registers what the mutators' applyTo and match name, for CREATE and UPDATE, failing open", () => {
    const text = bundle(
      library('seccomp/samples/mutation.yaml'),
      mutator('AssignMetadata', 'owner', {
        match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }] },
        location: 'metadata.labels.owner',
        parameters: { assign: { value: 'x' } },
      }),
    );
    const registrations = registrationsOf(policy, rulesOf(text));
    if (!registrations.ok) throw new Error(registrations.errors.join('\n'));
    const [only] = registrations.registrations;
    expect(registrations.registrations).toHaveLength(1);
    expect(only).toMatchObject({ failurePolicy: 'Ignore', reinvocationPolicy: 'Never' });
    expect(only!.rules.map(({ apiGroups, resources, operations }) => ({ apiGroups, resources, operations }))).toEqual([
      { apiGroups: [''], resources: ['pods'], operations: ['CREATE', 'UPDATE'] },
      { apiGroups: ['apps'], resources: ['deployments'], operations: ['CREATE', 'UPDATE'] },
    ]);
  });
});

it('the library files read as YAML documents (a sanity check on the corpus)', () => {
  expect(parseAllDocuments(library('users/samples/mutation-runAsUser.yaml'))).toHaveLength(2);
});
