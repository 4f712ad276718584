// One rule compiled: its names resolved as OPA's compiler resolves them, and its body ordered for safety.
// A free name is, in order: a var the body declared (`:=`, `some`, a function's parameter, `every`'s),
// a rule of the package (unless declared), an import, `input` or `data`, else a var of the body. A var a
// comprehension shares with the body around it is that body's; one only the comprehension uses is its
// own. Each var is a slot of the rule's frame. Operators become calls of their built-ins.
import type * as ast from '../syntax/ast.js';
import { isWildcard } from '../syntax/parse-terms.js';
import { RegoCompileError } from './errors.js';
import type { CompiledRule, ElseClause, Expr, FunctionRef, Literal, Term, With } from './ir.js';
import { checkMembership, checkUnification } from './match-check.js';
import { orderForSafety, slotsIn } from './safety.js';
import { namesAt, patternVars, Scope, type Var } from './scope.js';

export interface ModuleScope {
  pkg: string[];
  /** The first names of the package's rules: a free var with one of these names is the rule. */
  ruleNames: ReadonlySet<string>;
  /** Import aliases and the paths they stand for (`data.lib.x`, `input.a`). */
  imports: ReadonlyMap<string, string[]>;
  /** A called function by its name as written, or an error. */
  resolveFunction(name: string[], loc: ast.Location): FunctionRef;
  file: string;
  /** Rego v1: `input` and `data` cannot be declared as local vars. */
  v1: boolean;
}

const NO_WITHS: With[] = [];

const OPERATOR_BUILTINS: Record<ast.BinaryOp, string> = {
  '+': 'plus',
  '-': 'minus',
  '*': 'mul',
  '/': 'div',
  '%': 'rem',
  '&': 'and',
  '|': 'or',
  '==': 'equal',
  '!=': 'neq',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
};

export class RuleCompiler {
  private slots = 0;
  private readonly names: string[] = [];

  constructor(private readonly module: ModuleScope) {}

  /**
   * A whole rule: parameters, body, then head (it reads what the body declares), the body ordered for
   * safety; then its `else` clauses, each the same way. `value` is the head's, or true.
   */
  compile(rule: ast.Rule, body: readonly ast.Literal[]): CompiledRule {
    const head = rule.head;
    const top = new Scope(undefined, namesAt(body, namesAt(this.headLiterals(head))));
    const params = head.args?.map((arg) => {
      for (const variable of patternVars(arg)) this.declare(top, variable);
      return this.term(arg, top);
    });
    const bound = new Set<number>();
    for (const param of params ?? []) for (const slot of slotsIn(param)) bound.add(slot);
    const literals = this.literals(body, top);
    const keys = head.path.map((part) => this.term(part, top));
    const member = head.key && this.term(head.key, top);
    const value = head.value ? this.term(head.value, top) : ({ t: 'const', value: true } as const);
    const headSlots = new Set<number>();
    for (const term of keys) slotsIn(term, headSlots);
    if (member) slotsIn(member, headSlots);
    slotsIn(value, headSlots);
    // Ordering the body extends the set with every var the body binds: what the head may read.
    const boundByBody = new Set(bound);
    const compiledBody = this.order(literals, boundByBody, headSlots);
    this.checkHead(headSlots, boundByBody, head.loc);
    const elses: ElseClause[] = rule.elses.map((clause) => {
      const scope = new Scope(top, namesAt(clause.body, clause.value ? namesAt([asLiteral(clause.value)]) : new Set()));
      const elseLiterals = this.literals(clause.body, scope);
      const elseValue = clause.value ? this.term(clause.value, scope) : ({ t: 'const', value: true } as const);
      const boundByElse = new Set(bound);
      const elseBody = this.order(elseLiterals, boundByElse, slotsIn(elseValue));
      this.checkHead(slotsIn(elseValue), boundByElse, clause.loc);
      return { value: elseValue, body: elseBody };
    });
    // One shape for every rule, optional parts undefined: an object spread after the first property is a
    // call into the runtime, per rule, and the evaluator reads rules of one shape.
    return {
      params,
      keys,
      member,
      value,
      body: compiledBody,
      elses,
      frameSize: this.slots,
      file: this.module.file,
      loc: rule.loc,
    };
  }

  /** A query (a body outside any rule): its literals as written and ordered, and its vars' names by slot. */
  query(body: readonly ast.Literal[]): { written: Literal[]; ordered: Literal[]; frameSize: number; names: readonly string[] } {
    const top = new Scope(undefined, namesAt(body));
    const written = this.literals(body, top);
    const ordered = this.order([...written], new Set());
    return { written, ordered, frameSize: this.slots, names: this.names };
  }

  /** The head's terms as literals, so their names count as written in the body's scope. */
  private headLiterals(head: ast.RuleHead): ast.Literal[] {
    const terms = [...head.path, ...(head.key ? [head.key] : []), ...(head.value ? [head.value] : [])];
    return terms.map((term) => ({ expr: { kind: 'term', term }, negated: false, withs: [], loc: term.loc }));
  }

  /** Head vars must be bound by the body (or the parameters). */
  private checkHead(headSlots: ReadonlySet<number>, bound: ReadonlySet<number>, loc: ast.Location): void {
    const unsafe = [...headSlots].filter((slot) => !bound.has(slot)).map((slot) => this.names[slot]!);
    if (unsafe.length > 0) throw new RegoCompileError(`var ${unsafe.join(', ')} is unsafe`, loc);
  }

  private allocate(name: string, scope: Scope): number {
    const slot = this.slots++;
    this.names[slot] = name;
    scope.owned.add(slot);
    return slot;
  }

  private declare(scope: Scope, variable: Var): number {
    const name = variable.name;
    if ((name === 'input' || name === 'data') && this.module.v1) throw new RegoCompileError(`${name} cannot be shadowed`, variable.loc);
    if (isWildcard(name)) return this.allocate(name, scope);
    if (scope.declared.has(name)) throw new RegoCompileError(`var ${name} assigned above`, variable.loc);
    if (scope.implicit.has(name)) throw new RegoCompileError(`var ${name} referenced above`, variable.loc);
    const slot = this.allocate(name, scope);
    scope.declared.set(name, slot);
    return slot;
  }

  private literals(body: readonly ast.Literal[], scope: Scope): Literal[] {
    return body.map((literal) => this.literal(literal, scope));
  }

  /**
   * Literals in an order safe from the slots bound before them. Asked once a body and its head are
   * compiled: a comprehension may name a var of the body around it for the first time.
   */
  private order(literals: Literal[], bound: Set<number>, extra: ReadonlySet<number> = new Set()): Literal[] {
    return orderForSafety(literals, bound, (slot) => this.names[slot] ?? `_${slot}`, extra);
  }

  private literal(literal: ast.Literal, scope: Scope): Literal {
    const withs = literal.withs.length === 0 ? NO_WITHS : literal.withs.map((modifier) => this.with(modifier, scope));
    return { expr: this.expr(literal.expr, scope), negated: literal.negated, withs, loc: literal.loc };
  }

  private expr(expr: ast.Expr, scope: Scope): Expr {
    switch (expr.kind) {
      case 'term':
        return { k: 'term', term: expr.term.type === 'call' ? this.call(expr.term, scope, true) : this.term(expr.term, scope) };
      case 'assign': {
        const right = this.term(expr.value, scope);
        for (const variable of patternVars(expr.target)) this.declare(scope, variable);
        if (expr.target.type !== 'var' && expr.target.type !== 'array' && expr.target.type !== 'object')
          throw new RegoCompileError('cannot assign to a non-variable', expr.target.loc);
        const left = this.term(expr.target, scope);
        checkUnification(left, right, expr.target.loc);
        return { k: 'unify', left, right };
      }
      case 'unify': {
        const [left, right] = [this.term(expr.left, scope), this.term(expr.right, scope)];
        checkUnification(left, right, expr.left.loc);
        return { k: 'unify', left, right };
      }
      case 'some':
        for (const variable of expr.vars) this.declare(scope, variable as Var);
        return { k: 'true' };
      case 'somein': {
        const collection = this.term(expr.collection, scope);
        const declared = [...(expr.key ? patternVars(expr.key) : []), ...patternVars(expr.value)];
        for (const variable of declared) this.declare(scope, variable);
        const value = this.term(expr.value, scope);
        checkMembership(value, collection, expr.value.loc);
        return { k: 'somein', key: expr.key ? this.term(expr.key, scope) : undefined, value, collection };
      }
      case 'every': {
        const domain = this.term(expr.domain, scope);
        const inner = new Scope(scope, namesAt(expr.body));
        const declared = [...(expr.key ? patternVars(expr.key) : []), ...patternVars(expr.value)];
        for (const variable of declared) this.declare(inner, variable);
        const key = expr.key ? this.term(expr.key, inner) : undefined;
        const value = this.term(expr.value, inner);
        const literals = this.literals(expr.body, inner);
        const bound = new Set([...this.outerSlots(scope), ...(key ? slotsIn(key) : []), ...slotsIn(value)]);
        const body = this.order(literals, bound);
        return { k: 'every', key, value, domain, body, locals: inner.owned };
      }
    }
  }

  /** The slots every scope from `scope` outwards owns: what a nested body may read as bound. */
  private outerSlots(scope: Scope): Set<number> {
    const slots = new Set<number>();
    for (let current: Scope | undefined = scope; current; current = current.parent) for (const slot of current.owned) slots.add(slot);
    return slots;
  }

  private with(modifier: ast.With, scope: Scope): With {
    const value = this.term(modifier.value, scope);
    const target = modifier.target;
    const path = refNames(target);
    if (!path) throw new RegoCompileError('with: the target must be a reference to input, data or a function', modifier.loc);
    if (path[0] === 'input') return { target: { kind: 'input', path: path.slice(1) }, value };
    const fn = this.functionNamed(path, modifier.loc);
    if (fn) {
      const replacementPath = refNames(modifier.value);
      const replacement = replacementPath ? this.functionNamed(replacementPath, modifier.loc) : undefined;
      return { target: { kind: 'function', name: fn.name }, value, replacement };
    }
    if (path[0] === 'data') return { target: { kind: 'data', path: path.slice(1) }, value };
    const imported = this.module.imports.get(path[0]!);
    if (imported && !scope.declared.has(path[0]!)) {
      const full = [...imported, ...path.slice(1)];
      if (full[0] === 'input') return { target: { kind: 'input', path: full.slice(1) }, value };
      return { target: { kind: 'data', path: full.slice(1) }, value };
    }
    throw new RegoCompileError(`with: ${path.join('.')} is not input, data or a function`, modifier.loc);
  }

  /** A function a name stands for, if it names one (a `with` replacement may be a function or a value). */
  private functionNamed(path: string[], loc: ast.Location): FunctionRef | undefined {
    try {
      return this.module.resolveFunction(path, loc);
    } catch {
      return undefined;
    }
  }

  term(term: ast.Term, scope: Scope): Term {
    switch (term.type) {
      case 'null':
        return { t: 'const', value: null };
      case 'boolean':
      case 'number':
      case 'string':
        return { t: 'const', value: term.value };
      case 'var':
        return this.variable(term.name, scope);
      case 'ref':
        return this.ref(term, scope);
      case 'array':
        return { t: 'array', items: term.items.map((item) => this.term(item, scope)) };
      case 'set':
        return { t: 'set', items: term.items.map((item) => this.term(item, scope)) };
      case 'object':
        return { t: 'object', entries: term.entries.map(([key, value]) => [this.term(key, scope), this.term(value, scope)]) };
      case 'arraycompr':
      case 'setcompr': {
        const inner = new Scope(scope, namesAt(term.body, namesAt([asLiteral(term.head)])));
        const literals = this.literals(term.body, inner);
        const head = this.term(term.head, inner);
        const body = this.order(literals, this.outerSlots(scope), slotsIn(head));
        return { t: term.type, head, body, locals: inner.owned };
      }
      case 'objectcompr': {
        const inner = new Scope(scope, namesAt(term.body, namesAt([asLiteral(term.key), asLiteral(term.value)])));
        const literals = this.literals(term.body, inner);
        const [key, value] = [this.term(term.key, inner), this.term(term.value, inner)];
        const body = this.order(literals, this.outerSlots(scope), new Set([...slotsIn(key), ...slotsIn(value)]));
        return { t: 'objectcompr', key, value, body, locals: inner.owned };
      }
      case 'call':
        return this.call(term, scope, false);
      case 'binary':
        return {
          t: 'call',
          fn: this.module.resolveFunction([OPERATOR_BUILTINS[term.op]], term.loc),
          args: [this.term(term.left, scope), this.term(term.right, scope)],
        };
      case 'membership':
        return {
          t: 'call',
          fn: this.module.resolveFunction([term.key ? 'internal.member_3' : 'internal.member_2'], term.loc),
          args: [...(term.key ? [this.term(term.key, scope)] : []), this.term(term.value, scope), this.term(term.collection, scope)],
        };
    }
  }

  /** A call: as a literal of its own it may pass one more argument, its output; inside a term, exactly its parameters. */
  private call(term: ast.Term & { type: 'call' }, scope: Scope, statement: boolean): Term {
    const fn = this.module.resolveFunction(term.name, term.loc);
    const given = term.args.length;
    if (fn.arity >= 0 && (given < fn.arity || given > fn.arity + (statement ? 1 : 0))) {
      const expected = `${fn.arity} argument${fn.arity === 1 ? '' : 's'}`;
      throw new RegoCompileError(
        `\`${fn.name}\` expects ${expected}, got ${given}: ${given < fn.arity ? 'too few' : 'too many'} arguments`,
        term.loc,
      );
    }
    return { t: 'call', fn, args: term.args.map((arg) => this.term(arg, scope)) };
  }

  private ref(term: ast.Term & { type: 'ref' }, scope: Scope): Term {
    const head = this.term(term.head, scope);
    const path = term.path.map((part) => this.term(part, scope));
    if (head.t === 'ref') return { t: 'ref', head: head.head, path: [...head.path, ...path] };
    return { t: 'ref', head, path };
  }

  private variable(name: string, scope: Scope): Term {
    if (isWildcard(name)) return { t: 'var', slot: this.allocate('_', scope), name: '_' };
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      const slot = current.declared.get(name) ?? current.implicit.get(name);
      if (slot !== undefined) return { t: 'var', slot, name };
    }
    if (this.module.ruleNames.has(name)) return this.dataRef([...this.module.pkg, name]);
    const imported = this.module.imports.get(name);
    if (imported) return imported[0] === 'input' ? this.inputRef(imported.slice(1)) : this.dataRef(imported.slice(1));
    if (name === 'input') return { t: 'input' };
    if (name === 'data') return { t: 'data' };
    // The outermost scope that writes the name at its own level owns it: a comprehension shares the
    // body's var, and keeps one only it writes to itself.
    let owner = scope;
    for (let current: Scope | undefined = scope; current; current = current.parent) if (current.namesHere.has(name)) owner = current;
    const slot = this.allocate(name, owner);
    owner.implicit.set(name, slot);
    return { t: 'var', slot, name };
  }

  private dataRef(path: string[]): Term {
    return path.length === 0 ? { t: 'data' } : { t: 'ref', head: { t: 'data' }, path: path.map((part) => ({ t: 'const', value: part })) };
  }

  private inputRef(path: string[]): Term {
    return path.length === 0 ? { t: 'input' } : { t: 'ref', head: { t: 'input' }, path: path.map((part) => ({ t: 'const', value: part })) };
  }
}

const asLiteral = (term: ast.Term): ast.Literal => ({ expr: { kind: 'term', term }, negated: false, withs: [], loc: term.loc });

/** The names of a dotted reference (`a.b.c`, `data.x`), or undefined if it has other selectors. */
export function refNames(term: ast.Term): string[] | undefined {
  if (term.type === 'var') return [term.name];
  if (term.type === 'ref' && term.head.type === 'var' && term.path.every((part) => part.type === 'string'))
    return [term.head.name, ...term.path.map((part) => (part as { value: string }).value)];
  return undefined;
}
