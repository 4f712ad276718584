// Kubernetes' regex library for CEL (k8s.io/apiserver/pkg/cel/library/regex.go): find and findAll, on RE2
// like `matches`, charged to the cost budget by the text's length times the pattern's.
import { chargeMatch, re2Pattern } from '../../../runtime/re2.js';
import type { CelLibrary } from '../cel-library.js';

function find(text: string, pattern: string): string {
  chargeMatch(text, pattern);
  const matcher = re2Pattern(pattern).matcher(text);
  return matcher.find() ? (matcher.group(0) ?? '') : '';
}

function findAll(text: string, pattern: string, limit: bigint = -1n): string[] {
  chargeMatch(text, pattern);
  const matcher = re2Pattern(pattern).matcher(text);
  const found: string[] = [];
  while ((limit < 0n || BigInt(found.length) < limit) && matcher.find()) found.push(matcher.group(0) ?? '');
  return found;
}

export const regexLibrary: CelLibrary = {
  name: 'kubernetes.regex',
  functions: {
    'string.find(string): string': find,
    'string.findAll(string): list<string>': (text: string, pattern: string) => findAll(text, pattern),
    'string.findAll(string, int): list<string>': findAll,
  },
};
