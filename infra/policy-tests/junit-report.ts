// `policy test -o junit`: the outcomes as JUnit XML, which CI systems (GitHub Actions reporters, GitLab,
// Jenkins) show per case: one testsuite per test file, a failure with what differs, a skip with why.
import type { CaseOutcome } from './case-outcome.js';

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export function junitReport(outcomes: CaseOutcome[]): string {
  const suites = new Map<string, CaseOutcome[]>();
  for (const outcome of outcomes) suites.set(outcome.suite, [...(suites.get(outcome.suite) ?? []), outcome]);
  const count = (list: CaseOutcome[], status: CaseOutcome['status']) => list.filter((outcome) => outcome.status === status).length;
  const body = [...suites].map(([suite, list]) => {
    const cases = list.map(({ name, status, detail }) => {
      const open = `    <testcase classname="${escapeXml(suite)}" name="${escapeXml(name)}"`;
      if (status === 'passed') return `${open}/>`;
      const firstLine = escapeXml((detail ?? '').split('\n')[0]!);
      const inner =
        status === 'failed'
          ? `<failure message="${firstLine}">${escapeXml(detail ?? '')}</failure>`
          : `<skipped message="${escapeXml(detail ?? '')}"/>`;
      return `${open}>\n      ${inner}\n    </testcase>`;
    });
    return `  <testsuite name="${escapeXml(suite)}" tests="${list.length}" failures="${count(list, 'failed')}" skipped="${count(list, 'skipped')}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="${outcomes.length}" failures="${count(outcomes, 'failed')}" skipped="${count(outcomes, 'skipped')}">\n${body.join('\n')}\n</testsuites>\n`;
}
