// Turns a zod error into one line per problem, each led by the exact path of the bad field
// (`rules[0].parameters.allowedRegistries: expected array, received string`), the form our docs promise.
import type * as z from './zod.js';

export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) =>
      typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`,
    )
    .join('');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  // zod's own wording ("Invalid input: expected array, received string") is clear once the prefix goes.
  const message = issue.message.replace(/^Invalid input: /, '');
  if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  return message;
}

export function zodIssueLines(error: z.core.$ZodError, prefix: readonly PropertyKey[] = []): string[] {
  return error.issues.map((issue) => {
    const path = formatPath([...prefix, ...issue.path]);
    return path ? `${path}: ${describeIssue(issue)}` : describeIssue(issue);
  });
}
