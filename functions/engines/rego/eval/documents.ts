// The documents under `data`, as OPA's topdown reads them: a reference walks the tree of rule documents;
// where rules define the document it is their value (computed once per evaluation), where none do it is
// the base data, and a package is the object of its documents merged over the base data. A complete rule
// gives one value (several: a conflict), a multi-value rule the set of its members, a rule with keys the
// object they build (one value per key), a function the value of its first definition that applies (a
// function without parameters also when referred to by name).
// `with data…` replacements show wherever their path is read.
import { dataKey } from '../compile/dependencies.js';
import type { CompiledRule, RuleGroup, RuleNode, CompiledTerm } from '../compile/ir.js';
import { defineKey, equal, isPlainObject, keyOf, makeObject, type PlainObject, RegoObject, RegoSet, type Value } from '../values.js';
import { replaced } from './context.js';
import { RegoError } from '../errors.js';
import type { TermEvaluator, Frame } from './frame.js';

type Each = (value: Value) => unknown;

/** The base data at a path of names, or undefined. */
function baseAt(data: Value, path: readonly string[]): Value | undefined {
  let value: Value | undefined = data;
  for (const part of path) {
    if (!isPlainObject(value) || !Object.hasOwn(value, part)) return undefined;
    value = value[part];
  }
  return value;
}

/** An object under construction from keyed rules: keys to values or to deeper objects. */
type Building = Map<string, { key: Value; value?: Value; inner?: Building }>;

function buildInto(building: Building, keys: readonly Value[], value: Value): void {
  const [first, ...rest] = keys;
  const id = keyOf(first!);
  let entry = building.get(id);
  if (!entry) building.set(id, (entry = { key: first! }));
  if (rest.length === 0) {
    if (entry.value !== undefined && !equal(entry.value, value)) throw new RegoError('eval_conflict_error', 'object keys must be unique');
    if (entry.inner) throw new RegoError('eval_conflict_error', 'object keys must be unique');
    entry.value = value;
    return;
  }
  if (entry.value !== undefined) throw new RegoError('eval_conflict_error', 'object keys must be unique');
  buildInto((entry.inner ??= new Map()), rest, value);
}

/** Whether the object under construction has a value at the keys. */
function has(building: Building, keys: readonly Value[]): boolean {
  const entry = building.get(keyOf(keys[0]!));
  if (!entry) return false;
  return keys.length === 1 || (entry.inner !== undefined && has(entry.inner, keys.slice(1)));
}

/** A keyed multi-value rule's member, added to the set at its keys. */
function addInto(building: Building, keys: readonly Value[], member: Value): void {
  const [first, ...rest] = keys;
  const id = keyOf(first!);
  let entry = building.get(id);
  if (!entry) building.set(id, (entry = { key: first!, ...(rest.length === 0 ? { value: new RegoSet() } : { inner: new Map() }) }));
  if (rest.length === 0) {
    if (!(entry.value instanceof RegoSet)) throw new RegoError('eval_conflict_error', 'object keys must be unique');
    entry.value.add(member);
  } else addInto((entry.inner ??= new Map()), rest, member);
}

/** A rule whose keys, member and value are all constants gives the same one thing for every solution: the first is enough. */
const isConstantRule = (rule: CompiledRule) =>
  rule.keys.every((key) => key.t === 'const') && (rule.member === undefined || rule.member.t === 'const') && rule.value.t === 'const';

function built(building: Building): Value {
  return makeObject([...building.values()].map(({ key, value, inner }) => [key, value !== undefined ? value : built(inner!)] as const));
}

const groupsByPath = new WeakMap<readonly string[], RuleGroup>();

/** Whether every definition of a group has the same constant value (computed once per group). */
const constantGroups = new WeakMap<RuleGroup, boolean>();
function sameConstant(group: RuleGroup): boolean {
  let same = constantGroups.get(group);
  if (same === undefined) {
    const [first] = group.rules;
    same = group.rules.every(
      (rule) =>
        rule.value.t === 'const' && rule.elses.length === 0 && first!.value.t === 'const' && equal(rule.value.value, first!.value.value),
    );
    constantGroups.set(group, same);
  }
  return same;
}

// A function's results are cached by the identity of its arguments (a container of the input, passed to a
// helper for each check, is the same object each time): a key by value would walk it at every call.
const identities = new WeakMap<object, number>();
let nextIdentity = 0;

function argumentKey(arg: Value): string {
  // A string by its length and text: unambiguous beside the others (a number or `#<id>` has no colon).
  if (typeof arg === 'string') return `${arg.length}:${arg}`;
  if (typeof arg !== 'object' || arg === null) return String(arg);
  let identity = identities.get(arg);
  if (identity === undefined) identities.set(arg, (identity = nextIdentity++));
  return `#${identity}`;
}

// Called at every call of a function: one argument, the usual case, makes no array.
function argumentsKey(args: readonly Value[]): string {
  let key = args.length === 0 ? '' : argumentKey(args[0]!);
  for (let index = 1; index < args.length; index++) key += `,${argumentKey(args[index]!)}`;
  return key;
}

export class Documents {
  constructor(private readonly evaluator: TermEvaluator) {}

  private get ctx() {
    return this.evaluator.ctx;
  }

  /** `data` and the selectors after it. */
  data(path: readonly CompiledTerm[], frame: Frame, each: Each): boolean {
    const evaluator = this.evaluator;
    let node: RuleNode = evaluator.policy.root;
    const walked: string[] = [];
    for (let index = 0; ; index++) {
      const replacement = this.ctx.dataReplacementAt(walked);
      if (replacement) {
        const value = baseAt(replacement.value, replacement.rest);
        return value !== undefined && evaluator.walk(value, path, index, frame, each);
      }
      if (node.group) {
        const value = this.document(node, walked);
        return value !== undefined && evaluator.walk(value, path, index, frame, each);
      }
      if (index === path.length) return each(this.node(node, walked)) === true;
      const part = path[index]!;
      const name = dataKey(part);
      if (name !== undefined) {
        const child = node.children.get(name);
        if (child) {
          node = child;
          walked.push(name);
          continue;
        }
        // Base data, with what `with data…` replaced below here.
        let base = baseAt(this.ctx.data, walked);
        for (const replacement of this.ctx.dataReplacementsBelow(walked))
          base = replaced(base, replacement.path.slice(walked.length), replacement.value);
        return base !== undefined && this.walkBase(base, path, index, frame, each);
      }
      return evaluator.walk(this.node(node, walked), path, index, frame, each);
    }
  }

  /** Base data from `index` on: OPA's storage names an object's key by text, so `data.x[1]` reads key "1". */
  private walkBase(value: Value, path: readonly CompiledTerm[], index: number, frame: Frame, each: Each): boolean {
    let current = value;
    let at = index;
    for (; at < path.length; at++) {
      const part = path[at]!;
      if (part.t !== 'const' || !isPlainObject(current)) break;
      const key = typeof part.value === 'number' ? String(part.value) : part.value;
      if (typeof key !== 'string' || !Object.hasOwn(current, key)) return false;
      current = current[key]!;
    }
    return this.evaluator.walk(current, path, at, frame, each);
  }

  /** A package (a node no rule defines): its documents over the base data. */
  private node(node: RuleNode, path: readonly string[]): Value {
    const id = path.join('\u0000');
    const cached = this.ctx.packages.get(id);
    if (cached !== undefined) return cached;
    const base = baseAt(this.ctx.data, path);
    let object: PlainObject = {};
    if (isPlainObject(base)) for (const key of Object.keys(base)) defineKey(object, key, base[key]!);
    for (const [name, child] of node.children) {
      const childPath = [...path, name];
      const value = child.group ? this.document(child, childPath) : this.node(child, childPath);
      if (value !== undefined) defineKey(object, name, value);
    }
    for (const replacement of this.ctx.dataReplacementsBelow(path))
      object = replaced(object, replacement.path.slice(path.length), replacement.value) as PlainObject;
    this.ctx.packages.set(id, object);
    return object;
  }

  /** The document rules define at a node (undefined for a function, or a complete rule with no value). */
  private document(node: RuleNode, path: readonly string[]): Value | undefined {
    const group = node.group!;
    // A function without parameters, referred to by name, is its value (OPA evaluates `f` as `f()`).
    if (group.kind === 'function') return group.arity === 0 ? this.call(group.path, []) : undefined;
    let value = node.children.size > 0 && group.kind !== 'complete' ? this.merged(node) : this.groupValue(group);
    if (value === undefined) return undefined;
    if (node.children.size > 0 && group.kind === 'complete' && (isPlainObject(value) || value instanceof RegoObject)) {
      const entries: [Value, Value][] = [...(value instanceof RegoObject ? value.entries.values() : Object.entries(value))];
      for (const [name, child] of node.children) {
        const childValue = child.group ? this.document(child, [...path, name]) : this.node(child, [...path, name]);
        if (childValue !== undefined) entries.push([name, childValue]);
      }
      value = makeObject(entries);
    }
    for (const replacement of this.ctx.dataReplacementsBelow(path))
      value = replaced(value, replacement.path.slice(path.length), replacement.value);
    return value;
  }

  /**
   * The object that rules with keys at a node and the rules below it build together, as OPA merges rules whose
   * heads are references (`p[q].r := i`, `p.a.r := 0`, `p.b contains "x"`): each puts its value, or its member,
   * at its path; two different values at one path, or a value where another rule's object goes on, conflict.
   */
  private merged(node: RuleNode): Value {
    const documents = this.ctx.documents;
    const group = node.group!;
    if (documents.has(group)) return documents.get(group)!;
    const building: Building = new Map();
    const visit = (current: RuleNode, prefix: Value[]) => {
      if (current.group) this.buildGroup(current.group, building, prefix);
      for (const [name, child] of current.children) visit(child, [...prefix, name]);
    };
    visit(node, []);
    const value = built(building);
    documents.set(group, value);
    return value;
  }

  /** One group's values or members put at `prefix` (and their keys) in an object under construction. */
  private buildGroup(group: RuleGroup, building: Building, prefix: readonly Value[]): void {
    if (group.kind === 'function') return;
    if (group.kind === 'object' || (group.kind === 'set' && group.rules.some((rule) => rule.keys.length > 0))) {
      this.buildRules(group, building, prefix);
      return;
    }
    const value = this.groupValue(group);
    if (value === undefined) return;
    if (prefix.length === 0) throw new RegoError('eval_conflict_error', 'object keys must be unique');
    if (group.kind === 'set' && value instanceof RegoSet) for (const member of value.values()) addInto(building, prefix, member);
    else buildInto(building, prefix, value);
  }

  private groupValue(group: RuleGroup): Value | undefined {
    const documents = this.ctx.documents;
    if (documents.has(group)) return documents.get(group);
    const value = this.compute(group);
    documents.set(group, value);
    return value;
  }

  private compute(group: RuleGroup): Value | undefined {
    switch (group.kind) {
      case 'complete': {
        const values = new Map<string, Value>();
        for (const rule of group.rules)
          this.values(rule, undefined, (value) => {
            values.set(keyOf(value), value);
            if (values.size > 1) throw new RegoError('eval_conflict_error', 'complete rules must not produce multiple outputs');
          });
        if (values.size === 1) return values.values().next().value;
        return group.defaultRule ? this.evaluator.single(group.defaultRule.value, []) : undefined;
      }
      case 'set': {
        // `p[k] contains x`: an object of sets by key; plain `p contains x`: the set.
        if (group.rules.some((rule) => rule.keys.length > 0)) return this.buildRules(group, new Map(), []);
        const set = new RegoSet();
        for (const rule of group.rules) {
          const frame: Frame = new Array(rule.frameSize);
          this.evaluator.body(rule.body, 0, frame, () =>
            this.evaluator.term(rule.member!, frame, (member) => {
              set.add(member);
              return isConstantRule(rule);
            }),
          );
        }
        return set;
      }
      case 'object':
        return this.buildRules(group, new Map(), []);
      default:
        return undefined;
    }
  }

  /** The rules of a group with keys, each value (or member) put at `prefix` and its keys; the object built. */
  private buildRules(group: RuleGroup, building: Building, prefix: readonly Value[]): Value {
    const set = group.kind === 'set';
    for (const rule of group.rules) {
      const frame: Frame = new Array(rule.frameSize);
      const keys = new Array(rule.keys.length);
      this.evaluator.body(rule.body, 0, frame, () =>
        this.evaluator.terms(rule.keys, 0, frame, keys, (values) =>
          this.evaluator.term(set ? rule.member! : rule.value, frame, (value) => {
            const at = prefix.length === 0 ? values : [...prefix, ...values];
            if (set) addInto(building, at, value);
            else buildInto(building, at, value);
            return isConstantRule(rule);
          }),
        ),
      );
    }
    for (const fallback of group.keyedDefaults ?? []) {
      const keys = [...prefix, ...fallback.keys.map((key) => (key as { value: Value }).value)];
      const value = has(building, keys) ? undefined : this.evaluator.single(fallback.value, new Array(fallback.frameSize));
      if (value !== undefined) buildInto(building, keys, value);
    }
    return built(building);
  }

  /**
   * The values a rule gives (its body's solutions, else its `else` clauses' in turn): `args` bind a
   * function's parameters first. A rule whose value is a constant stops at its first solution.
   */
  private values(rule: CompiledRule, args: readonly Value[] | undefined, collect: (value: Value) => void): void {
    const evaluator = this.evaluator;
    const frame: Frame = new Array(rule.frameSize);
    let produced = false;
    const run = (body: CompiledRule['body'], value: CompiledTerm) =>
      this.withParams(rule, args, frame, () =>
        evaluator.body(body, 0, frame, () =>
          evaluator.term(value, frame, (result) => {
            produced = true;
            collect(result);
            return value.t === 'const';
          }),
        ),
      );
    run(rule.body, rule.value);
    for (const clause of rule.elses) {
      if (produced) return;
      run(clause.body, clause.value);
    }
  }

  private withParams(rule: CompiledRule, args: readonly Value[] | undefined, frame: Frame, next: () => boolean): boolean {
    const params = rule.params;
    if (!params || !args) return next();
    const bind = (index: number): boolean =>
      index === params.length ? next() : this.evaluator.unification.unifyValue(params[index]!, args[index]!, frame, () => bind(index + 1));
    return bind(0);
  }

  /** A function rule's value for the arguments (cached per evaluation), or undefined. */
  /** The values one definition of a rule gives on its own, as `opa test` runs each body of a test. */
  definitionValues(group: RuleGroup, index: number): Value[] {
    const values: Value[] = [];
    this.values(group.rules[index]!, undefined, (value) => values.push(value));
    return values;
  }

  call(path: readonly string[], args: Value[]): Value | undefined {
    const group = this.groupAt(path);
    let results = this.ctx.calls.get(group);
    if (!results) this.ctx.calls.set(group, (results = new Map()));
    const id = argumentsKey(args);
    if (results.has(id)) return results.get(id);
    let result: Value | undefined;
    for (const rule of group.rules) {
      this.values(rule, args, (value) => {
        if (result !== undefined && !equal(result, value))
          throw new RegoError('eval_conflict_error', 'functions must not produce multiple outputs for same inputs');
        result = value;
      });
      // Every definition gives the same constant (`f(x) { … }` is true): one that applies decides.
      if (result !== undefined && sameConstant(group)) break;
    }
    if (result === undefined && group.defaultRule) result = this.evaluator.single(group.defaultRule.value, []);
    results.set(id, result);
    return result;
  }

  /** The group of a function, by its path (the path a call's function names, the same array each time). */
  private groupAt(path: readonly string[]): RuleGroup {
    let group = groupsByPath.get(path);
    if (!group) groupsByPath.set(path, (group = this.evaluator.policy.groups.get(path.join('.'))!));
    return group;
  }
}
