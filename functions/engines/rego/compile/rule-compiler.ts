// One rule compiled: its names resolved as OPA's compiler resolves them, and its body ordered for safety.
// A free name is, in order: a var the body declared (`:=`, `some`, a function's parameter, `every`'s),
// a rule of the package (unless declared), an import, `input` or `data`, else a var of the body. A var a
// comprehension shares with the body around it is that body's; one only the comprehension uses is its
// own. Each var is a slot of the rule's frame. Operators become calls of their built-ins.
import * as ast from '../syntax/ast.js';
import { isWildcard } from '../syntax/parse-terms.js';
import { compileError } from './errors.js';
import type { RegoLocation } from '../errors.js';
import type { CompiledRule, CompiledElse, CompiledExpr, FunctionRef, CompiledLiteral, CompiledTerm, CompiledWith } from './ir.js';
import { checkMembership, checkUnification } from './match-check.js';
import { hoistIterations, valueIterates } from './hoist.js';
import { orderForSafety } from './safety.js';
import { callsOutsideComprehensions as callsIn, literalVars, varsOf } from './visit.js';
import type { RuleMetadata } from './annotations.js';
import type { ModuleScope } from './module-scope.js';
import { namesAt, patternVars, Scope, type Var } from './scope.js';

const METADATA_CALLS: Record<string, keyof RuleMetadata> = { 'rego.metadata.chain': 'chain', 'rego.metadata.rule': 'rule' };

const NO_WITHS: CompiledWith[] = [];

export class RuleCompiler {
  private slots = 0;
  private readonly names: string[] = [];
  private rule: ast.Rule | undefined;

  constructor(private readonly module: ModuleScope) {}

  /**
   * A whole rule: parameters, body, then head (it reads what the body declares), the body ordered for
   * safety; then its `else` clauses, each the same way. `value` is the head's, or true.
   */
  compile(rule: ast.Rule, body: readonly ast.Literal[]): CompiledRule {
    this.rule = rule;
    const head = rule.head;
    const top = new Scope(undefined, namesAt(body, namesAt(this.headLiterals(head))));
    const params = head.args?.map((arg) => {
      for (const variable of patternVars(arg)) this.declare(top, variable);
      return this.term(arg, top);
    });
    // A parameter that calls (`f($"{x}")`) is compared with its argument in the body, once what it reads is bound.
    const computedParams: CompiledLiteral[] = [];
    for (const [index, param] of (params ?? []).entries())
      if (callsIn(param)) params![index] = this.evaluateInBody(param, computedParams, top, head.loc);
    const bound = new Set<number>();
    for (const param of params ?? []) for (const slot of varsOf(param)) bound.add(slot);
    const literals = [...this.literals(body, top), ...computedParams];
    const keys = head.path.map((part) => this.term(part, top));
    let member = head.key && this.term(head.key, top);
    let value: CompiledTerm = head.value ? this.term(head.value, top) : { t: 'const', value: true };
    // A value or member that iterates with a var nothing else binds (`q := xs[_]`) is evaluated in the body.
    const bodySlots = new Set(bound);
    for (const literal of literals) literalVars(literal, bodySlots);
    for (const key of keys) varsOf(key, {}, bodySlots);
    if (valueIterates(value, bodySlots)) value = this.evaluateInBody(value, literals, top, head.loc);
    if (member && valueIterates(member, bodySlots)) member = this.evaluateInBody(member, literals, top, head.loc);
    const headSlots = new Set<number>();
    for (const term of keys) varsOf(term, {}, headSlots);
    if (member) varsOf(member, {}, headSlots);
    varsOf(value, {}, headSlots);
    // Ordering the body extends the set with every var the body binds: what the head may read.
    const boundByBody = new Set(bound);
    const compiledBody = this.order(literals, boundByBody, headSlots);
    this.checkHead(headSlots, boundByBody, head.loc);
    const elses: CompiledElse[] = rule.elses.map((clause) => {
      const scope = new Scope(top, namesAt(clause.body, clause.value ? namesAt([ast.asLiteral(clause.value)]) : new Set()));
      const elseLiterals = this.literals(clause.body, scope);
      let elseValue: CompiledTerm = clause.value ? this.term(clause.value, scope) : { t: 'const', value: true };
      const elseSlots = new Set(bound);
      for (const literal of elseLiterals) literalVars(literal, elseSlots);
      if (valueIterates(elseValue, elseSlots)) elseValue = this.evaluateInBody(elseValue, elseLiterals, scope, clause.loc);
      const boundByElse = new Set(bound);
      const elseBody = this.order(elseLiterals, boundByElse, varsOf(elseValue));
      this.checkHead(varsOf(elseValue), boundByElse, clause.loc);
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
  query(body: readonly ast.Literal[]): {
    written: CompiledLiteral[];
    ordered: CompiledLiteral[];
    captures: (number | undefined)[];
    frameSize: number;
    names: readonly string[];
  } {
    const top = new Scope(undefined, namesAt(body));
    // One compiled literal per written one (what a query reports), the hoisted parts before it.
    const groups = body.map((literal) => hoistIterations(this.literal(literal, top), () => this.local(top)));
    const written = groups.map((group) => group.at(-1)!);
    // A term's value is captured where it is evaluated (inside its `with`s), as `opa eval` reports it: the
    // term unified with a var of its own, then (unless it is the whole query, whose false is its answer)
    // checked to be true.
    const captures = written.map((literal, index) => {
      if (literal.expr.k !== 'term' || literal.negated) return undefined;
      const local = this.local(top);
      const group = groups[index]!;
      const check: CompiledLiteral[] =
        written.length === 1 ? [] : [{ expr: { k: 'term', term: local }, negated: false, withs: NO_WITHS, loc: literal.loc }];
      group.splice(group.length - 1, 1, { ...literal, expr: { k: 'unify', left: local, right: literal.expr.term } }, ...check);
      return local.slot;
    });
    const ordered = this.order(groups.flat(), new Set());
    return { written, ordered, captures, frameSize: this.slots, names: this.names };
  }

  /** The head's terms as literals, so their names count as written in the body's scope. */
  private headLiterals(head: ast.RuleHead): ast.Literal[] {
    const terms = [...head.path, ...(head.key ? [head.key] : []), ...(head.value ? [head.value] : [])];
    return terms.map(ast.asLiteral);
  }

  /** Head vars must be bound by the body (or the parameters). */
  private checkHead(headSlots: ReadonlySet<number>, bound: ReadonlySet<number>, loc: ast.Location): void {
    const unsafe = [...headSlots].filter((slot) => !bound.has(slot)).map((slot) => this.names[slot]!);
    if (unsafe.length > 0) throw compileError(`var ${unsafe.join(', ')} is unsafe`, loc, 'rego_unsafe_var_error');
  }

  private allocate(name: string, scope: Scope): number {
    const slot = this.slots++;
    this.names[slot] = name;
    scope.owned.add(slot);
    return slot;
  }

  private declare(scope: Scope, variable: Var): number {
    const name = variable.name;
    if ((name === 'input' || name === 'data') && this.module.v1)
      throw compileError(`variables must not shadow ${name} (use a different variable name)`, variable.loc);
    if (isWildcard(name)) return this.allocate(name, scope);
    if (scope.declared.has(name)) throw compileError(`var ${name} assigned above`, variable.loc);
    if (scope.implicit.has(name)) throw compileError(`var ${name} referenced above`, variable.loc);
    const slot = this.allocate(name, scope);
    scope.declared.set(name, slot);
    return slot;
  }

  private literals(body: readonly ast.Literal[], scope: Scope): CompiledLiteral[] {
    return body.flatMap((literal) => hoistIterations(this.literal(literal, scope), () => this.local(scope)));
  }

  /** A new var of the scope, for a value the compiler takes out of a term (OPA's `__local<n>__`). */
  private local(scope: Scope): CompiledTerm & { t: 'var' } {
    const name = `__local${this.slots}__`;
    return { t: 'var', slot: this.allocate(name, scope), name };
  }

  /** `term` as a var the body binds to it, the unification added to the body. */
  private evaluateInBody(term: CompiledTerm, literals: CompiledLiteral[], scope: Scope, loc: ast.Location): CompiledTerm {
    const local = this.local(scope);
    literals.push({ expr: { k: 'unify', left: local, right: term }, negated: false, withs: NO_WITHS, loc });
    return local;
  }

  /**
   * Literals in an order safe from the slots bound before them. Asked once a body and its head are
   * compiled: a comprehension may name a var of the body around it for the first time.
   */
  private order(literals: CompiledLiteral[], bound: Set<number>, extra: ReadonlySet<number> = new Set()): CompiledLiteral[] {
    return orderForSafety(literals, bound, (slot) => this.names[slot] ?? `_${slot}`, extra);
  }

  private literal(literal: ast.Literal, scope: Scope): CompiledLiteral {
    const withs = literal.withs.length === 0 ? NO_WITHS : literal.withs.map((modifier) => this.with(modifier, scope));
    return { expr: this.expr(literal.expr, scope), negated: literal.negated, withs, loc: literal.loc };
  }

  private expr(expr: ast.Expr, scope: Scope): CompiledExpr {
    switch (expr.kind) {
      case 'term':
        return { k: 'term', term: expr.term.type === 'call' ? this.call(expr.term, scope, true) : this.term(expr.term, scope) };
      case 'assign': {
        const right = this.term(expr.value, scope);
        for (const variable of patternVars(expr.target)) this.declare(scope, variable);
        if (expr.target.type !== 'var' && expr.target.type !== 'array' && expr.target.type !== 'object')
          throw compileError('cannot assign to a non-variable', expr.target.loc);
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
        const bound = new Set([...this.outerSlots(scope), ...(key ? varsOf(key) : []), ...varsOf(value)]);
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

  private with(modifier: ast.With, scope: Scope): CompiledWith {
    const target = modifier.target;
    const path = ast.refNames(target);
    if (!path) throw compileError('with: the target must be a reference to input, data or a function', modifier.loc);
    const fn = path[0] === 'input' ? undefined : this.functionNamed(path, modifier.loc);
    if (fn) {
      // A function replaced by another function (a built-in or a rule), not by the value a name has.
      const replacementPath = ast.refNames(modifier.value);
      const replacement =
        replacementPath && !scope.isDeclared(replacementPath[0]!) ? this.functionNamed(replacementPath, modifier.loc) : undefined;
      const value: CompiledTerm = replacement ? { t: 'const', value: null } : this.term(modifier.value, scope);
      return { target: { kind: 'function', name: fn.name }, value, replacement };
    }
    const value = this.term(modifier.value, scope);
    if (path[0] === 'input') return { target: { kind: 'input', path: path.slice(1) }, value };
    if (path[0] === 'data') return { target: { kind: 'data', path: path.slice(1) }, value };
    const imported = this.module.imports.get(path[0]!);
    if (imported && !scope.declared.has(path[0]!)) {
      const full = [...imported, ...path.slice(1)];
      if (full[0] === 'input') return { target: { kind: 'input', path: full.slice(1) }, value };
      return { target: { kind: 'data', path: full.slice(1) }, value };
    }
    throw compileError(`with: ${path.join('.')} is not input, data or a function`, modifier.loc);
  }

  /** A function a name stands for, if it names one (a `with` replacement may be a function or a value). */
  private functionNamed(path: string[], loc: ast.Location): FunctionRef | undefined {
    try {
      return this.module.resolveFunction(path, loc);
    } catch {
      return undefined;
    }
  }

  term(term: ast.Term, scope: Scope): CompiledTerm {
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
        const inner = new Scope(scope, namesAt(term.body, namesAt([ast.asLiteral(term.head)])));
        const literals = this.literals(term.body, inner);
        const head = this.term(term.head, inner);
        const body = this.order(literals, this.outerSlots(scope), varsOf(head));
        return { t: term.type, head, body, locals: inner.owned };
      }
      case 'objectcompr': {
        const inner = new Scope(scope, namesAt(term.body, namesAt([ast.asLiteral(term.key), ast.asLiteral(term.value)])));
        const literals = this.literals(term.body, inner);
        const [key, value] = [this.term(term.key, inner), this.term(term.value, inner)];
        const body = this.order(literals, this.outerSlots(scope), new Set([...varsOf(key), ...varsOf(value)]));
        return { t: 'objectcompr', key, value, body, locals: inner.owned };
      }
      case 'call':
        return this.call(term, scope, false);
      case 'binary':
        return this.builtinCall(ast.OPERATOR_BUILTINS[term.op], [term.left, term.right], scope, term.loc);
      case 'membership': {
        const operands = [...(term.key ? [term.key] : []), term.value, term.collection];
        return this.builtinCall(term.key ? 'internal.member_3' : 'internal.member_2', operands, scope, term.loc);
      }
      case 'template':
        return this.template(term, scope);
    }
  }

  /** A call: as a literal of its own it may pass one more argument, its output; inside a term, exactly its parameters. */
  private call(term: ast.Term & { type: 'call' }, scope: Scope, statement: boolean): CompiledTerm {
    const fn = this.module.resolveFunction(term.name, term.loc);
    const metadata = METADATA_CALLS[fn.name];
    if (metadata && this.rule && this.module.metadataOf && term.args.length === 0)
      return { t: 'const', value: this.module.metadataOf(this.rule)[metadata] };
    const given = term.args.length;
    if (fn.arity >= 0 && (given < fn.arity || given > fn.arity + (statement ? 1 : 0))) {
      const expected = `${fn.arity} argument${fn.arity === 1 ? '' : 's'}`;
      throw compileError(
        `\`${fn.name}\` expects ${expected}, got ${given}: ${given < fn.arity ? 'too few' : 'too many'} arguments`,
        term.loc,
        'rego_type_error',
      );
    }
    return { t: 'call', fn, args: term.args.map((arg) => this.term(arg, scope)), at: this.at(term.loc) };
  }

  /** An operator as the call of its built-in. */
  private builtinCall(name: string, operands: ast.Term[], scope: Scope, loc: ast.Location): CompiledTerm {
    const args = operands.map((operand) => this.term(operand, scope));
    return { t: 'call', fn: this.module.resolveFunction([name], loc), args, at: this.at(loc) };
  }

  /** Where a call is, for its errors: OPA's evaluation errors name the file and row. */
  private at(loc: ast.Location): RegoLocation {
    return { file: this.module.file, row: loc.row };
  }

  /**
   * `$"a {x} b"` as OPA's RewriteTemplateStrings makes it: internal.template_string over the text parts and,
   * for each expression, the set of its values (`{v | v = x}`), so an undefined one reads `<undefined>`.
   */
  private template(term: ast.Term & { type: 'template' }, scope: Scope): CompiledTerm {
    const items = term.parts.map((part): CompiledTerm => {
      if ('type' in part) return this.term(part, scope);
      const value: ast.Term = { type: 'var', name: `__template${this.slots}__`, loc: part.loc };
      const expr = part.expr as ast.Expr & { kind: 'term' };
      const body: ast.Literal[] = [
        { expr: { kind: 'unify', left: value, right: expr.term }, negated: false, withs: part.withs, loc: part.loc },
      ];
      return this.term({ type: 'setcompr', head: value, body, loc: part.loc }, scope);
    });
    return {
      t: 'call',
      fn: this.module.resolveFunction(['internal.template_string'], term.loc),
      args: [{ t: 'array', items }],
      at: this.at(term.loc),
    };
  }

  private ref(term: ast.Term & { type: 'ref' }, scope: Scope): CompiledTerm {
    const head = this.term(term.head, scope);
    const path = term.path.map((part) => this.term(part, scope));
    if (head.t === 'ref') return { t: 'ref', head: head.head, path: [...head.path, ...path] };
    return { t: 'ref', head, path };
  }

  private variable(name: string, scope: Scope): CompiledTerm {
    if (isWildcard(name)) return { t: 'var', slot: this.allocate(name, scope), name };
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      const slot = current.declared.get(name) ?? current.implicit.get(name);
      if (slot !== undefined) return { t: 'var', slot, name };
    }
    if (this.module.ruleNames.has(name)) return documentRef('data', [...this.module.pkg, name]);
    const imported = this.module.imports.get(name);
    if (imported) return imported[0] === 'input' ? documentRef('input', imported.slice(1)) : documentRef('data', imported.slice(1));
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
}

/** `input` or `data`, or a reference into it by constant names. */
const documentRef = (root: 'input' | 'data', path: readonly string[]): CompiledTerm =>
  path.length === 0 ? { t: root } : { t: 'ref', head: { t: root }, path: path.map((part) => ({ t: 'const', value: part })) };
