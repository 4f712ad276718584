// Kyverno's variables (pkg/engine/variables): `{{ <JMESPath> }}` in any string of a rule (and in map keys)
// is replaced by what the expression finds in the rule's context (request, serviceAccountName, images,
// element, context entries). A string that is one variable becomes the value itself, of any type; a
// variable inside text becomes text (JSON for what is not a string). `\{{ }}` is left as written, less the
// backslash. On DELETE, request.object reads request.oldObject, as in Kyverno. Substituted values are not
// scanned again: Kyverno would evaluate `{{ }}` found in the request's own content, which lets a request
// write expressions; here request content is only ever data.
import type { ClusterView } from '../../../admission/cluster/cluster-view.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import type { Evaluation } from '../../runtime/evaluation.js';
import { searchJmesPath } from '../jmespath/jmespath.js';

// A variable: `{{`, then text, one level of `{...}` (JMESPath hashes) or nested variables, then `}}`.
interface Variable {
  start: number;
  end: number;
  /** The expression's text and the nested variables inside it, positions relative to the whole string. */
  inner: Variable[];
}

/** The variables of a string, nested ones inside their outer one; `\{{` is escaped text, as in Kyverno. */
function scan(text: string, from = 0, nested = false): { variables: Variable[]; end: number } {
  const variables: Variable[] = [];
  let index = from;
  while (index < text.length) {
    if (nested && text.startsWith('}}', index)) return { variables, end: index };
    if (text.startsWith('{{', index) && text[index - 1] !== '\\') {
      const body = scan(text, index + 2, true);
      if (body.end >= text.length) break; // never closed: text, as Kyverno's pattern finds no variable
      variables.push({ start: index, end: body.end + 2, inner: body.variables });
      index = body.end + 2;
    } else if (nested && text[index] === '{') {
      const close = text.indexOf('}', index + 1);
      index = close === -1 ? text.length : close + 1;
    } else index++;
  }
  return { variables, end: nested ? text.length : index };
}

const ESCAPED = /\\(\{\{)/g;

export interface VariableContext {
  /** The data expressions read: request, serviceAccountName, images, element, context entries. */
  data: Record<string, unknown>;
  /** The evaluation's budget and clock. */
  scope: Evaluation;
  /** What the cluster holds, for context entries that read it; absent when none was loaded. */
  cluster?: ClusterView;
  /** DELETE: request.object reads request.oldObject. */
  deleting?: boolean;
  /**
   * An autogen rule on a pod controller: where its pod template is (`spec.template`). Kyverno rewrites the
   * autogen rule's text, `request.object.spec` and `request.object.metadata` (and oldObject's) to the
   * template's, and nothing else: a quoted segment (`request."object".metadata`) or any other field still
   * reads the controller itself.
   */
  template?: string;
}

const AUTOGEN_REWRITTEN = /request\.(object|oldObject)\.(spec|metadata)/g;

/** The expression as Kyverno's autogen rewrote it for the rule's controller (autogen.go's updateFields). */
export function autogenQuery(expression: string, context: VariableContext): string {
  return context.template ? expression.replace(AUTOGEN_REWRITTEN, `request.$1.${context.template}.$2`) : expression;
}

/** Every expression written in `{{ }}` anywhere in a value (strings and keys), for checking when rules are read. */
export function variablesIn(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') {
    const collect = (variables: Variable[]) => {
      for (const variable of variables) {
        into.push(value.slice(variable.start + 2, variable.end - 2).trim());
        collect(variable.inner);
      }
    };
    if (value.includes('{{')) collect(scan(value).variables);
  } else if (Array.isArray(value)) for (const item of value) variablesIn(item, into);
  else if (isJsonObject(value))
    for (const [key, item] of Object.entries(value)) {
      variablesIn(key, into);
      variablesIn(item, into);
    }
  return into;
}

function resolve(expression: string, context: VariableContext): unknown {
  const rewritten = autogenQuery(expression, context);
  const query = context.deleting ? rewritten.replaceAll('request.object', 'request.oldObject') : rewritten;
  return searchJmesPath(query, context.data, context.scope, 'error') ?? null;
}

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/** A value as a JMESPath JSON literal (`\`"v"\``), for a nested variable written inside quotes. */
const asLiteral = (value: unknown) => `\`${JSON.stringify(value ?? null).replaceAll('`', '\\u0060')}\``;

/**
 * A variable's value. Nested variables are evaluated first; one written as a quoted string (`'{{ x }}'`)
 * enters the outer expression as a JSON literal, so request content is data there, never expression text.
 */
function evaluate(text: string, variable: Variable, context: VariableContext): unknown {
  let expression = '';
  let position = variable.start + 2;
  for (const inner of variable.inner) {
    const value = evaluate(text, inner, context);
    const quoted = text[inner.start - 1] === "'" && text[inner.end] === "'";
    expression += quoted ? text.slice(position, inner.start - 1) + asLiteral(value) : text.slice(position, inner.start) + asText(value);
    position = quoted ? inner.end + 1 : inner.end;
  }
  expression += text.slice(position, variable.end - 2);
  return resolve(expression.trim(), context);
}

function substituteString(text: string, context: VariableContext): unknown {
  if (!text.includes('{{')) return text;
  const { variables } = scan(text);
  if (variables.length === 1 && variables[0]!.start === 0 && variables[0]!.end === text.length)
    return evaluate(text, variables[0]!, context);
  let result = '';
  let last = 0;
  for (const variable of variables) {
    result += text.slice(last, variable.start) + asText(evaluate(text, variable, context));
    last = variable.end;
  }
  return (result + text.slice(last)).replace(ESCAPED, '$1');
}

// Whether a tree of the rules (a pattern, conditions) holds a variable, found once per tree: one without is
// returned as it is, unwalked.
const holdsVariables = new WeakMap<object, boolean>();

/** The value with every variable substituted; the value itself when it holds none. */
export function substituteVariables(value: unknown, context: VariableContext): unknown {
  if (typeof value === 'string') return substituteString(value, context);
  if (value !== null && typeof value === 'object') {
    let holds = holdsVariables.get(value);
    if (holds === undefined) {
      holds = hasVariables(value);
      holdsVariables.set(value, holds);
    }
    if (!holds) return value;
  }
  if (Array.isArray(value)) return value.map((item) => substituteVariables(item, context));
  if (!isJsonObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) result[asText(substituteString(key, context))] = substituteVariables(item, context);
  return result;
}

/** Whether a value holds a variable anywhere, so rules without any are never walked per request. */
export const hasVariables = (value: unknown): boolean => variablesIn(value).length > 0;
