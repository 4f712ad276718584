// The compiled form of a Rego policy, made once per rules version: every name resolved (a rule, an
// import, a built-in, `input`, `data`, or a local var, which becomes a slot of its rule's frame), every
// body ordered so that each literal's inputs are bound before it runs, and the rules gathered by the path
// of the document they define (data.<package>.<name>…). The evaluator walks this form only.
import type { RegoLocation } from '../errors.js';
import type { Location } from '../syntax/ast.js';
import type { Value } from '../values.js';
import type { Builtin } from '../builtins/builtin.js';

export type CompiledTerm =
  | { t: 'const'; value: Value }
  | { t: 'var'; slot: number; name: string }
  | { t: 'input' }
  | { t: 'data' }
  /** `head.path…`: each selector a term (a const key, or a var that iterates). */
  | { t: 'ref'; head: CompiledTerm; path: CompiledTerm[] }
  | { t: 'array'; items: CompiledTerm[] }
  | { t: 'object'; entries: [CompiledTerm, CompiledTerm][] }
  | { t: 'set'; items: CompiledTerm[] }
  /** Comprehensions: `locals` are the slots their body owns; any other slot they read is the enclosing body's. */
  | { t: 'arraycompr'; head: CompiledTerm; body: CompiledLiteral[]; locals: Set<number> }
  | { t: 'setcompr'; head: CompiledTerm; body: CompiledLiteral[]; locals: Set<number> }
  | { t: 'objectcompr'; key: CompiledTerm; value: CompiledTerm; body: CompiledLiteral[]; locals: Set<number> }
  /** `at`: where the call is written, for its errors. */
  | { t: 'call'; fn: FunctionRef; args: CompiledTerm[]; at: RegoLocation };

/** A function as a call names it: its name for messages and `with` replacement, and what it is. */
export interface FunctionRef {
  name: string;
  /** Its parameters: a call with one more argument unifies that one with the result. */
  arity: number;
  builtin?: Builtin;
  /** A function rule's path under data. */
  rule?: string[];
}

export type CompiledExpr =
  | { k: 'term'; term: CompiledTerm }
  | { k: 'unify'; left: CompiledTerm; right: CompiledTerm }
  | { k: 'somein'; key?: CompiledTerm; value: CompiledTerm; collection: CompiledTerm }
  | { k: 'every'; key?: CompiledTerm; value: CompiledTerm; domain: CompiledTerm; body: CompiledLiteral[]; locals: Set<number> }
  /** `some x` declares: nothing to evaluate. */
  | { k: 'true' };

export type WithTarget = { kind: 'input'; path: string[] } | { kind: 'data'; path: string[] } | { kind: 'function'; name: string };

export interface CompiledWith {
  target: WithTarget;
  value: CompiledTerm;
  /** A function replaced by another function (not by a value). */
  replacement?: FunctionRef;
}

export interface CompiledLiteral {
  expr: CompiledExpr;
  negated: boolean;
  withs: CompiledWith[];
  loc: Location;
}

export interface CompiledElse {
  value: CompiledTerm;
  body: CompiledLiteral[];
}

export interface CompiledRule {
  /** A function's parameters, patterns unified with the arguments. */
  params?: CompiledTerm[];
  /** The keys of a rule that defines part of an object (`p[k] = v`, `a.b[k] := v`), outermost first. */
  keys: CompiledTerm[];
  /** A multi-value rule's member (`p contains x`). */
  member?: CompiledTerm;
  value: CompiledTerm;
  body: CompiledLiteral[];
  elses: CompiledElse[];
  frameSize: number;
  file: string;
  loc: Location;
}

export type RuleKind = 'complete' | 'set' | 'object' | 'function';

/** The rules that define one document (data.<path>), of one kind. */
export interface RuleGroup {
  path: string[];
  kind: RuleKind;
  rules: CompiledRule[];
  defaultRule?: CompiledRule;
  /** An object rule's defaults, one per constant key (`default p[true] := 1`): a key no rule defines takes its default. */
  keyedDefaults?: CompiledRule[];
  arity?: number;
}

/** The tree of documents rules define: a node per path segment, a group where rules define it. */
export interface RuleNode {
  children: Map<string, RuleNode>;
  group?: RuleGroup;
}
