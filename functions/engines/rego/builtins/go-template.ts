// strings.render_template (OPA's topdown/template.go): Go's text/template over the variables, a missing key
// written `<undefined>`. The part of text/template policies use: text, `{{.a.b}}`, `{{$v}}` and `{{$v.f}}`,
// literals, `{{- -}}`, comments, `{{$x := …}}`, if / else if / else, range (`$i, $v :=`, arrays and objects in
// key order), with, and the built-in functions and, or, not, len, index, eq, ne, lt, le, gt, ge, print,
// printf (%v %s %d %q), println. Values print as Go's fmt prints them (numbers as their JSON text, which OPA
// hands over as strings). Every node executed and every character written is charged.
import { BuiltinError } from '../errors.js';
import { isObject, objectEntries, objectGet, RegoSet, sortedEntries, type Value } from '../values.js';
import type { BuiltinContext } from './builtin.js';
import { numberText } from './format.js';

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'action'; pipe: Pipe }
  | { kind: 'if' | 'with'; pipe: Pipe; body: Node[]; otherwise: Node[] }
  | { kind: 'range'; pipe: Pipe; key?: string; value?: string; body: Node[]; otherwise: Node[] };

/** `$x := cmd arg…`: the declared var, and the command (a value or a function with arguments). */
interface Pipe {
  declare?: string;
  words: string[];
}

const fail = (message: string): never => {
  throw new BuiltinError(`template: template:${message}`);
};

/** Actions and text, with `{{-` and `-}}` trimming the whitespace beside them. */
function lex(template: string): ({ text: string } | { action: string })[] {
  const parts: ({ text: string } | { action: string })[] = [];
  let index = 0;
  while (index < template.length) {
    const open = template.indexOf('{{', index);
    if (open === -1) {
      parts.push({ text: template.slice(index) });
      break;
    }
    let text = template.slice(index, open);
    const close = template.indexOf('}}', open + 2);
    if (close === -1) fail('1: unclosed action');
    let action = template.slice(open + 2, close);
    if (action.startsWith('- ')) {
      text = text.replace(/\s+$/, '');
      action = action.slice(1);
    }
    index = close + 2;
    if (action.endsWith(' -')) {
      action = action.slice(0, -1);
      while (index < template.length && /\s/.test(template[index]!)) index++;
    }
    if (text) parts.push({ text });
    const trimmed = action.trim();
    if (!trimmed.startsWith('/*')) parts.push({ action: trimmed });
  }
  return parts;
}

/** An action's words: quoted strings kept whole. */
function wordsOf(action: string): string[] {
  return action.match(/"(?:[^"\\]|\\.)*"|`[^`]*`|[^\s()]+/g) ?? [];
}

function pipeOf(action: string): Pipe {
  const declared = /^(\$\w*)\s*(?:,\s*(\$\w*)\s*)?:?=\s*(.*)$/s.exec(action);
  if (declared && !declared[2]) return { declare: declared[1], words: wordsOf(declared[3]!) };
  return { words: wordsOf(action) };
}

/** The nodes up to `{{end}}` or `{{else…}}` (not taken): the tree of a template. */
function parse(parts: ReturnType<typeof lex>, at: { index: number }, top: boolean): Node[] {
  const nodes: Node[] = [];
  while (at.index < parts.length) {
    const part = parts[at.index]!;
    if ('text' in part) {
      nodes.push({ kind: 'text', text: part.text });
      at.index++;
      continue;
    }
    const [keyword, ...rest] = part.action.split(/\s+/);
    if (keyword === 'end' || keyword === 'else') {
      if (top) fail(`1: unexpected {{${keyword}}}`);
      return nodes;
    }
    at.index++;
    if (keyword === 'if' || keyword === 'with' || keyword === 'range') nodes.push(block(keyword, rest.join(' '), parts, at));
    else nodes.push({ kind: 'action', pipe: pipeOf(part.action) });
  }
  if (!top) fail('1: unexpected EOF');
  return nodes;
}

function block(keyword: 'if' | 'with' | 'range', condition: string, parts: ReturnType<typeof lex>, at: { index: number }): Node {
  const body = parse(parts, at, false);
  let otherwise: Node[] = [];
  const ending = parts[at.index] as { action: string };
  at.index++;
  if (ending.action.startsWith('else')) {
    const chained = ending.action.slice(4).trim();
    // `{{else if …}}` is an if of its own, ending at the same `{{end}}`.
    if (chained.startsWith('if ') || chained.startsWith('with ')) {
      const [word, ...rest] = chained.split(/\s+/);
      otherwise = [block(word as 'if' | 'with', rest.join(' '), parts, at)];
    } else {
      otherwise = parse(parts, at, false);
      at.index++;
    }
  }
  if (keyword !== 'range') return { kind: keyword, pipe: pipeOf(condition), body, otherwise };
  const declared = /^(\$\w*)\s*(?:,\s*(\$\w*)\s*)?:=\s*(.*)$/s.exec(condition);
  if (!declared) return { kind: 'range', pipe: pipeOf(condition), body, otherwise };
  const [key, value] = declared[2] ? [declared[1], declared[2]] : [undefined, declared[1]];
  return { kind: 'range', pipe: { words: wordsOf(declared[3]!) }, key, value, body, otherwise };
}

/** Go's truth: false, 0, nil, and empty strings and collections are false. */
const truthy = (value: Value | undefined) =>
  !(
    value === undefined ||
    value === null ||
    value === false ||
    value === 0 ||
    value === '' ||
    (Array.isArray(value) && value.length === 0) ||
    (isObject(value) && objectEntries(value).length === 0) ||
    (value instanceof RegoSet && value.size === 0)
  );

/** A value as Go's fmt %v prints it. */
function printed(value: Value | undefined): string {
  if (value === undefined || value === null) return '<no value>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(printed).join(' ')}]`;
  if (value instanceof RegoSet) return `[${[...value.values()].map(printed).join(' ')}]`;
  return `map[${sortedEntries(value)
    .map(([key, item]) => `${printed(key)}:${printed(item)}`)
    .join(' ')}]`;
}

type Scope = Map<string, Value | undefined>;

const FUNCTIONS: Record<string, (args: (Value | undefined)[]) => Value | undefined> = {
  and: (args) => args.find((arg) => !truthy(arg)) ?? args.at(-1),
  or: (args) => args.find((arg) => truthy(arg)) ?? args.at(-1),
  not: ([value]) => !truthy(value),
  len: ([value]) =>
    typeof value === 'string'
      ? value.length
      : Array.isArray(value)
        ? value.length
        : isObject(value)
          ? objectEntries(value).length
          : fail('1: len of a value with no length'),
  index: ([collection, ...keys]) =>
    keys.reduce<Value | undefined>(
      (value, key) =>
        value !== undefined && typeof value === 'object' && value !== null && key !== undefined
          ? Array.isArray(value)
            ? value[Number(key)]
            : isObject(value)
              ? objectGet(value, key)
              : undefined
          : undefined,
      collection,
    ),
  eq: ([first, ...rest]) => rest.some((other) => printed(other) === printed(first)),
  ne: ([a, b]) => printed(a) !== printed(b),
  lt: ([a, b]) => compareOf(a, b) < 0,
  le: ([a, b]) => compareOf(a, b) <= 0,
  gt: ([a, b]) => compareOf(a, b) > 0,
  ge: ([a, b]) => compareOf(a, b) >= 0,
  print: (args) => args.map(printed).join(''),
  println: (args) => `${args.map(printed).join(' ')}\n`,
  printf: ([format, ...args]) => {
    let index = 0;
    return String(format).replace(/%[vsdq%]/g, (verb) =>
      verb === '%%' ? '%' : verb === '%q' ? JSON.stringify(printed(args[index++])) : printed(args[index++]),
    );
  },
};

function compareOf(a: Value | undefined, b: Value | undefined): number {
  const [x, y] = [Number(a), Number(b)];
  if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  return printed(a) < printed(b) ? -1 : printed(a) > printed(b) ? 1 : 0;
}

/** A word's value: a literal, `.`, `.a.b`, `$x`, `$x.a`. */
function wordValue(word: string, dot: Value | undefined, scope: Scope): Value | undefined {
  if (/^"/.test(word)) return JSON.parse(word);
  if (/^`/.test(word)) return word.slice(1, -1);
  if (/^-?[0-9]/.test(word)) return Number(word);
  if (word === 'true' || word === 'false') return word === 'true';
  if (word === 'nil') return null;
  if (/^[A-Za-z_]/.test(word)) return fail(`1: function "${word}" not defined`);
  const [head, ...fields] = word.startsWith('.') ? ['.', ...word.slice(1).split('.').filter(Boolean)] : word.split('.');
  let value = head === '.' ? dot : scope.has(head!) ? scope.get(head!) : fail(`1: undefined variable "${head}"`);
  for (const field of fields) value = isObject(value) ? objectGet(value, field) : undefined;
  return value;
}

function evalPipe(pipe: Pipe, dot: Value | undefined, scope: Scope): Value | undefined {
  const [first, ...rest] = pipe.words;
  if (first === undefined) return fail('1: missing value for command');
  const fn = FUNCTIONS[first];
  const value = fn ? fn(rest.map((word) => wordValue(word, dot, scope))) : wordValue(first, dot, scope);
  if (pipe.declare) scope.set(pipe.declare, value);
  return value;
}

function execute(nodes: Node[], dot: Value | undefined, scope: Scope, out: string[], context: BuiltinContext): void {
  for (const node of nodes) {
    context.charge(1);
    if (node.kind === 'text') out.push(node.text);
    else if (node.kind === 'action') {
      const value = evalPipe(node.pipe, dot, scope);
      if (!node.pipe.declare) out.push(printed(value));
    } else if (node.kind === 'if' || node.kind === 'with') {
      const value = evalPipe(node.pipe, dot, scope);
      if (truthy(value)) execute(node.body, node.kind === 'with' ? value : dot, new Map(scope), out, context);
      else execute(node.otherwise, dot, new Map(scope), out, context);
    } else if (node.kind === 'range') {
      const value = evalPipe(node.pipe, dot, scope);
      const entries: [Value, Value][] = Array.isArray(value)
        ? value.map((item, index) => [index, item])
        : value instanceof RegoSet
          ? [...value.values()].map((item, index) => [index, item])
          : isObject(value)
            ? sortedEntries(value)
            : [];
      if (entries.length === 0) execute(node.otherwise, dot, new Map(scope), out, context);
      for (const [key, item] of entries) {
        const inner = new Map(scope);
        if (node.key) inner.set(node.key, key);
        if (node.value) inner.set(node.value, item);
        execute(node.body, item, inner, out, context);
      }
    }
  }
}

/** The template rendered over the variables, as OPA renders it. */
export function renderTemplate(template: string, variables: Value, context: BuiltinContext): string {
  const tree = parse(lex(template), { index: 0 }, true);
  const out: string[] = [];
  execute(tree, variables, new Map([['$', variables]]), out, context);
  return out.join('').replaceAll('<no value>', '<undefined>');
}
