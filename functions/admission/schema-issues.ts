// Turns validation issues into one line per problem, each led by the exact path of the bad field
// (`rules[0].parameters.allowedRegistries: expected array, received string`), the form our docs promise.
// valibot's own wording ("Invalid type: Expected Array but received "x"") is replaced for the kinds of
// issue our schemas raise; messages our schemas state themselves are kept as written.
import { type BaseIssue, kindOf } from './schema.js';

export type Issue = BaseIssue<unknown>;

export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`))
    .join('');
}

/** valibot's default messages start so; ours never do. */
const isDefaultMessage = (message: string) => /^Invalid \w+: /.test(message);

function describeIssue(issue: Issue): string {
  if (!isDefaultMessage(issue.message)) return issue.message;
  const count = issue.expected?.replace(/^[<>]=?/, '');
  const size = `${count} ${typeof issue.input === 'string' ? 'character' : 'item'}${count === '1' ? '' : 's'}`;
  // An object's issue names a key (expected "uid") when that key is missing.
  if (issue.type.endsWith('object') && issue.expected?.startsWith('"')) return 'required field is missing';
  switch (issue.type) {
    case 'picklist':
      return `expected one of ${issue.expected!.replace(/^\(|\)$/g, '').replaceAll(' | ', '|')}, received ${issue.received}`;
    case 'literal':
      return `expected ${issue.expected}, received ${issue.received}`;
    case 'min_length':
      return `expected at least ${size}`;
    case 'max_length':
      return `expected at most ${size}`;
    case 'min_value':
    case 'max_value':
    case 'gt_value':
    case 'lt_value':
      return `expected a number ${issue.expected}, received ${issue.received}`;
    case 'integer':
      return `expected an integer, received ${issue.received}`;
    case 'url':
      return `expected a URL, received ${issue.received}`;
    case 'iso_timestamp':
      return `expected an ISO 8601 date-time such as 2026-01-31T09:00:00Z, received ${issue.received}`;
    case 'regex':
      return `expected to match ${issue.expected}, received ${issue.received}`;
    default:
      return issue.kind === 'schema' ? `expected ${issue.expected?.toLowerCase()}, received ${kindOf(issue.input)}` : issue.message;
  }
}

const pathOf = (issue: Issue): PropertyKey[] => (issue.path ?? []).map((item) => item.key as PropertyKey);

export function issueLines(issues: readonly Issue[], prefix: readonly PropertyKey[] = []): string[] {
  return issues.map((issue) => {
    const path = formatPath([...prefix, ...pathOf(issue)]);
    return path ? `${path}: ${describeIssue(issue)}` : describeIssue(issue);
  });
}
