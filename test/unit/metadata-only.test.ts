// Which apiCall jmesPaths read nothing of a Secret but its metadata: what a metadata-only snapshot can answer.
import { describe, expect, it } from 'vitest';
import { readsOnlyMetadata } from '../../functions/engines/kyverno/policy/metadata-only.js';

describe('an apiCall GET of one object', () => {
  it.each([
    "metadata.labels.status || ''",
    'metadata.annotations."example.com/owner"',
    'metadata.*',
    '[metadata.name, kind]',
    '{name: metadata.name, labels: metadata.labels}',
    "contains(keys(metadata.labels), 'team')",
    "metadata.labels.status == 'protected' && kind == 'Secret'",
  ])('reads only metadata: %s', (expression) => expect(readsOnlyMetadata(expression, 'object')).toBe(true));

  it.each([
    'data',
    'data.password',
    '@',
    '*',
    'keys(@)',
    'to_string(@)',
    'metadata.name || data.token',
    "type == 'kubernetes.io/tls'",
    'let $x = metadata in $x',
    'length(@)',
    'not a jmespath (',
  ])('reads more, or cannot be shown not to: %s', (expression) => expect(readsOnlyMetadata(expression, 'object')).toBe(false));
});

describe('an apiCall list', () => {
  it.each([
    'items[].metadata.name',
    'items[*].metadata.labels',
    "items[?metadata.labels.status == 'protected'].metadata.name",
    'items | [0].metadata.name',
    'items[0].metadata.name',
    'length(items)',
    'sort_by(items[].metadata, &name)[].name',
    'metadata.resourceVersion',
  ])('reads only metadata: %s', (expression) => expect(readsOnlyMetadata(expression, 'list')).toBe(true));

  it.each([
    'items',
    'items[]',
    'items[0]',
    'items[].data',
    "items[?type == 'Opaque'].metadata.name",
    'items[?data.token].metadata.name',
    'sort_by(items, &metadata.name)',
    'items[].*',
    'map(&data, items)',
  ])('reads more: %s', (expression) => expect(readsOnlyMetadata(expression, 'list')).toBe(false));
});
