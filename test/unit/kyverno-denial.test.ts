// Kyverno's denial and warning wording, as its webhook writes them (GetBlockedMessages: yaml.v2's Marshal of
// the failed rules' messages by policy; GetWarningMessages), checked on the messages Kyverno's documentation
// and tests show, and on yaml.v2's choice of style and its folding at 80 columns.
import { describe, expect, it } from 'vitest';
import { marshalNestedStrings } from '../../functions/formats/go-yaml-v2.js';
import { kyvernoBlockedMessage } from '../../functions/formats/kyverno-denial.js';

const pod = { kind: { kind: 'Pod' }, object: { kind: 'Pod', metadata: { name: 'badpod', namespace: 'default' } } } as never;

describe("Kyverno's blocked message", () => {
  it('names the resource, then each policy and its failed rules (Kyverno documentation)', () => {
    const message = kyvernoBlockedMessage(pod, [
      {
        policy: 'disallow-latest-tag',
        rule: 'require-image-tag',
        message: 'validation error: An image tag is required. rule require-image-tag failed at path /spec/containers/0/image/',
      },
    ]);
    expect(message).toBe(
      '\n\nresource Pod/default/badpod was blocked due to the following policies \n\n' +
        'disallow-latest-tag:\n' +
        "  require-image-tag: 'validation error: An image tag is required. rule require-image-tag\n" +
        "    failed at path /spec/containers/0/image/'\n",
    );
  });

  it('sorts policies and rules, quotes a key YAML 1.1 reads as a boolean, and a cluster-scoped resource has an empty namespace', () => {
    const namespace = { kind: { kind: 'Namespace' }, object: { kind: 'Namespace', metadata: { name: 'prod' } } } as never;
    const message = kyvernoBlockedMessage(namespace, [
      { policy: 'b-policy', rule: 'z', message: 'Z is required.' },
      { policy: 'a-policy', rule: 'y', message: 'Y is required.' },
      { policy: 'b-policy', rule: 'x', message: 'X is required.' },
    ]);
    expect(message).toBe(
      '\n\nresource Namespace//prod was blocked due to the following policies \n\n' +
        'a-policy:\n  "y": Y is required.\nb-policy:\n  x: X is required.\n  z: Z is required.\n',
    );
  });
});

describe("yaml.v2's styles", () => {
  it.each([
    ['plain text', 'Pods must have a team label.', 'Pods must have a team label.'],
    ['a colon and space needs single quotes', 'validation error: bad', "'validation error: bad'"],
    ['a quote is doubled inside single quotes', "tag 'latest': not allowed", "'tag ''latest'': not allowed'"],
    ['text YAML would read as a boolean', 'true', '"true"'],
    ['a number', '42', '"42"'],
    ['empty text', '', '""'],
    ['a leading indicator', '*.example.com is not allowed', "'*.example.com is not allowed'"],
    ['a comment marker after a space', 'see #42', "'see #42'"],
    ['a line break makes a literal block', 'first\nsecond', '|-\n    first\n    second'],
  ])('%s', (_name, text, written) => {
    expect(marshalNestedStrings({ p: { r: text } })).toBe(`p:\n  r: ${written}\n`);
  });

  it('folds plain text at the first space past 80 columns, continuing at four spaces', () => {
    const text = `${'word '.repeat(20)}end`;
    const written = marshalNestedStrings({ p: { r: text } });
    const [first, second] = written.split('\n').slice(1);
    expect(first!.length).toBeGreaterThan(80);
    expect(first!.length).toBeLessThanOrEqual(86);
    expect(second).toMatch(/^ {4}word/);
  });
});
