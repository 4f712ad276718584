// What a Kyverno rule writes in JMESPath, checked when the rules are read so a rule that cannot run is
// refused with the reason rather than failing at admission: every `{{ }}` expression, foreach list and
// context jmesPath must parse and call only functions that are here.
import { isRegistered } from '@jmespath-community/jmespath';
import { UNSUPPORTED_FUNCTIONS } from '../jmespath/functions.js';
import { compileJmesPath, functionsCalledBy } from '../jmespath/jmespath.js';
import { variablesIn } from '../variables/variables.js';
import type { WrittenRule } from './rule-schema.js';

type Loop = { list?: unknown; context?: unknown; foreach?: unknown };

/** Every JMESPath expression of a rule's validate or mutate and context, as written. */
function expressionsOf(rule: WrittenRule): string[] {
  const expressions = variablesIn([rule.context, rule.preconditions, rule.validate, rule.mutate]);
  const visit = (loops: unknown) => {
    if (!Array.isArray(loops)) return;
    for (const loop of loops as Loop[]) {
      if (typeof loop?.list === 'string') expressions.push(loop.list);
      contextExpressions(loop?.context);
      visit(loop?.foreach);
    }
  };
  const contextExpressions = (entries: unknown) => {
    if (!Array.isArray(entries)) return;
    for (const entry of entries as { variable?: { jmesPath?: unknown } }[])
      if (typeof entry?.variable?.jmesPath === 'string') expressions.push(entry.variable.jmesPath);
  };
  contextExpressions(rule.context);
  visit((rule.validate as { foreach?: unknown } | undefined)?.foreach);
  visit((rule.mutate as { foreach?: unknown } | undefined)?.foreach);
  return expressions;
}

// A plain path (`request.object.metadata.name`) parses and calls no function, so it is not parsed to be
// checked, since most expressions are one and parsing is the costly part of reading a bundle.
const PLAIN_PATH = /^\s*[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*\s*$/;

/** Why the rule's expressions cannot run here, each naming the expression; empty when they all can. */
export function expressionProblems(rule: WrittenRule): string[] {
  const problems: string[] = [];
  if (JSON.stringify(rule.validate ?? null).includes('$('))
    problems.push('$( ) references to other fields of the pattern are not supported yet');
  for (const expression of expressionsOf(rule)) {
    if (expression === '@' || expression.startsWith('@.')) {
      problems.push(`{{${expression}}} (the pattern's own position) is not supported yet`);
      continue;
    }
    if (PLAIN_PATH.test(expression)) continue;
    const node = compileJmesPath(expression.includes('{{') ? expression.replace(/\{\{[^}]*\}\}/g, "''") : expression);
    if (node instanceof Error) {
      problems.push(node.message);
      continue;
    }
    for (const name of functionsCalledBy(node)) {
      if (UNSUPPORTED_FUNCTIONS[name]) problems.push(`${name}() in ${JSON.stringify(expression)}: ${UNSUPPORTED_FUNCTIONS[name]}`);
      else if (!isRegistered(name)) problems.push(`${name}() in ${JSON.stringify(expression)} is not a JMESPath or Kyverno function`);
    }
  }
  return problems;
}
