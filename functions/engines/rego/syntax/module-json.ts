// A parsed module as OPA's AST marshals to JSON (what rego.parse_module answers), without locations, as OPA
// writes it by default: terms as {"type", "value"} (a null's value {}, an object's a list of [key, value]
// pairs, a set's and a reference's a list of terms, a call's the operator's reference then the arguments),
// expressions as {"index", "terms", "negated", "with"}, rules as {"head", "body", "default", "else"}.
import type { ElseClause, Expr, Literal, Module, Rule, Term } from './ast.js';
import { OPERATOR_BUILTINS } from './ast.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const term = (type: string, value: Json): Json => ({ type, value });
const refOf = (names: readonly string[]): Json =>
  term(
    'ref',
    names.map((name, index) => (index === 0 ? term('var', name) : term('string', name))),
  );
const callOf = (name: string[], args: Json[]): Json => term('call', [refOf(name), ...args]);

/** `k, v in xs` (and `some … in`) as the call OPA's parser makes of it: internal.member_2 or member_3. */
const memberCall = ({ key, value, collection }: { key?: Term; value: Term; collection: Term }): Json =>
  callOf(['internal', key ? 'member_3' : 'member_2'], [...(key ? [termJson(key)] : []), termJson(value), termJson(collection)]);

export function termJson(t: Term): Json {
  switch (t.type) {
    case 'null':
      return term('null', {});
    case 'boolean':
    case 'string':
      return term(t.type, t.value);
    case 'number':
      return term('number', t.value);
    case 'var':
      return term('var', t.name);
    case 'ref':
      return term('ref', [termJson(t.head), ...t.path.map(termJson)]);
    case 'array':
    case 'set':
      return term(t.type, t.items.map(termJson));
    case 'object':
      return term(
        'object',
        t.entries.map(([key, value]) => [termJson(key), termJson(value)]),
      );
    case 'arraycompr':
    case 'setcompr':
      return term(t.type === 'arraycompr' ? 'arraycomprehension' : 'setcomprehension', { term: termJson(t.head), body: bodyJson(t.body) });
    case 'objectcompr':
      return term('objectcomprehension', { key: termJson(t.key), value: termJson(t.value), body: bodyJson(t.body) });
    case 'call':
      return callOf(t.name, t.args.map(termJson));
    case 'binary':
      return callOf([OPERATOR_BUILTINS[t.op]], [termJson(t.left), termJson(t.right)]);
    case 'membership':
      return memberCall(t);
    case 'template':
      return term('templatestring', {
        parts: t.parts.map((part) => ('expr' in part ? literalJson(part, 0) : termJson(part))),
        multi_line: false,
      });
  }
}

/** An expression's terms: one term, or an operator's call as [operator, arguments…]. */
function exprTerms(expr: Expr): Json {
  switch (expr.kind) {
    case 'term': {
      // A call written as an expression is the operator and its arguments, not a call term.
      const json = termJson(expr.term) as { type: string; value: Json };
      return json.type === 'call' ? json.value : json;
    }
    case 'assign':
      return [refOf(['assign']), termJson(expr.target), termJson(expr.value)];
    case 'unify':
      return [refOf(['eq']), termJson(expr.left), termJson(expr.right)];
    case 'some':
      return { symbols: expr.vars.map(termJson) };
    case 'somein':
      return { symbols: [memberCall(expr)] };
    case 'every':
      return {
        key: expr.key ? termJson(expr.key) : null,
        value: termJson(expr.value),
        domain: termJson(expr.domain),
        body: bodyJson(expr.body),
      };
  }
}

function literalJson(literal: Literal, index: number): Json {
  const json: { [key: string]: Json } = { index, terms: exprTerms(literal.expr) };
  if (literal.negated) json.negated = true;
  if (literal.withs.length > 0) json.with = literal.withs.map((w) => ({ target: termJson(w.target), value: termJson(w.value) }));
  return json;
}

const TRUE_BODY: Json = [{ index: 0, terms: term('boolean', true) }];

const bodyJson = (body: readonly Literal[]): Json => (body.length === 0 ? TRUE_BODY : body.map(literalJson));

function ruleJson(rule: Rule, body: readonly Literal[]): Json {
  const head = rule.head;
  const json: { [key: string]: Json } = {};
  const headJson: { [key: string]: Json } = {
    name: head.path.length === 0 ? head.name : '',
    ref: [term('var', head.name), ...head.path.map(termJson)],
  };
  if (head.args) headJson.args = head.args.map(termJson);
  if (head.key) headJson.key = termJson(head.key);
  if (head.value || !head.contains) headJson.value = head.value ? termJson(head.value) : term('boolean', true);
  if (head.assign) headJson.assign = true;
  json.head = headJson;
  json.body = bodyJson(body);
  if (rule.isDefault) json.default = true;
  const [first, ...rest] = rule.elses;
  if (first) json.else = elseJson(rule, first, rest);
  return json;
}

function elseJson(rule: Rule, clause: ElseClause, rest: ElseClause[]): Json {
  const head = { ...rule.head, value: clause.value ?? { type: 'boolean' as const, value: true, loc: clause.loc } };
  return ruleJson({ ...rule, head, elses: rest, isDefault: false }, clause.body);
}

export function moduleJson(module: Module): Json {
  return {
    package: { path: [term('var', 'data'), ...module.package.map((name) => term('string', name))] },
    ...(module.imports.length > 0
      ? {
          imports: module.imports.map((imported) => ({ path: refOf(imported.path), ...(imported.alias ? { alias: imported.alias } : {}) })),
        }
      : {}),
    rules: module.rules.flatMap((rule) => [rule.body, ...rule.otherBodies].map((body) => ruleJson(rule, body))),
  };
}
