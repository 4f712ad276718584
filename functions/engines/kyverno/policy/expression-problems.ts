// What a Kyverno rule writes in JMESPath, checked when the rules are read so a rule that cannot run is
// refused with the reason rather than failing at admission: every `{{ }}` expression, foreach list and
// context jmesPath must parse and call only functions that are here.
import { isRegistered } from '@jmespath-community/jmespath';
import { UNSUPPORTED_FUNCTIONS } from '../jmespath/functions.js';
import { compileJmesPath, functionsCalledBy } from '../jmespath/jmespath.js';
import { variablesIn } from '../variables/variables.js';
import type { WrittenRule } from './rule-schema.js';

type Loop = { list?: unknown; context?: unknown; foreach?: unknown };

/** Every JMESPath expression of a rule's validate or mutate, context, attestation conditions and image extractors, as written. */
function expressionsOf(rule: WrittenRule): string[] {
  const attestations = Array.isArray(rule.verifyImages)
    ? rule.verifyImages.map((verification: { attestations?: { conditions?: unknown }[] }) =>
        Array.isArray(verification?.attestations) ? verification.attestations.map((attestation) => attestation?.conditions) : [],
      )
    : [];
  const expressions = variablesIn([rule.context, rule.preconditions, rule.validate, rule.mutate, attestations]);
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
  const extractors = (rule as { imageExtractors?: unknown }).imageExtractors;
  for (const list of Object.values(typeof extractors === 'object' && extractors !== null ? extractors : {}))
    for (const extractor of Array.isArray(list) ? (list as { jmesPath?: unknown }[]) : [])
      if (typeof extractor?.jmesPath === 'string') expressions.push(extractor.jmesPath);
  visit((rule.validate as { foreach?: unknown } | undefined)?.foreach);
  visit((rule.mutate as { foreach?: unknown } | undefined)?.foreach);
  return expressions;
}

// A plain path (`request.object.metadata.name`) parses and calls no function, so it is not parsed to be
// checked, since most expressions are one and parsing is the costly part of reading a bundle.
const PLAIN_PATH = /^\s*[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*\s*$/;

const NESTED = /\{\{[^}]*\}\}/g;

/**
 * The expression as it will parse once its nested variables are substituted, with a stand-in for each that
 * keeps the text around it what it is: a variable that is a whole quoted string (`'{{ x }}'`) enters as a
 * JSON literal, as the engine substitutes it (variables.ts); one inside a raw string, a quoted name or a
 * JSON literal as text in it; any other as a value (`''`).
 */
function withPlaceholders(expression: string): string {
  let quote: string | undefined;
  let result = '';
  let last = 0;
  for (const match of expression.matchAll(NESTED)) {
    const start = match.index;
    for (let index = last; index < start; index++) {
      const character = expression[index]!;
      if (character === '\\' && quote) index++;
      else if (quote === character) quote = undefined;
      else if (!quote && (character === "'" || character === '"' || character === '`')) quote = character;
    }
    const end = start + match[0].length;
    const whole = quote === "'" && expression[start - 1] === "'" && expression[end] === "'";
    if (whole) {
      result += `${expression.slice(last, start - 1)}\`""\``;
      last = end + 1;
      quote = undefined;
    } else {
      result += expression.slice(last, start) + (quote === '`' ? '0' : quote ? 'x' : "''");
      last = end;
    }
  }
  return result + expression.slice(last);
}

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
    const node = compileJmesPath(expression.includes('{{') ? withPlaceholders(expression) : expression);
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
