// A corpus test's refusals, checked against its table: each refusal is for a listed reason, and each reason
// refuses as many rules as the table says (docs/bringing-policies.md has the tables).
import { expect } from 'vitest';

/** Every refusal is one of the listed reasons, each counted. */
export function expectRefusals(refusals: { suite: string; error: string }[], listed: Record<string, number>): void {
  const counted = Object.fromEntries(Object.keys(listed).map((reason) => [reason, 0]));
  const unlisted: string[] = [];
  for (const { suite, error } of refusals) {
    const reason = Object.keys(listed).find((candidate) => error.includes(candidate));
    if (reason) counted[reason]!++;
    else unlisted.push(`${suite}: ${error}`);
  }
  expect(unlisted).toEqual([]);
  expect(counted).toEqual(listed);
}
