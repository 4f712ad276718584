// OPA's safety check and body ordering (ast/compile.go: checkSafetyRuleBodies, reorderBodyForSafety): every
// var a literal reads must be bound before it runs, by an earlier literal, a function's parameters, or the
// body around a comprehension. Literals keep their written order where they can; one that reads a var bound
// later moves after it, and a var nothing binds is an error. What binds: unification (either side, when the
// other is known), `some … in`, a call's output argument, and the vars a reference iterates (`x[i]`).
// Loops over terms are indexed: this runs cold, once per rules version, where a for…of allocates at every step.
import { compileError } from './errors.js';
import type { CompiledLiteral, CompiledTerm } from './ir.js';
import { isWildcard } from '../syntax/parse-terms.js';
import { literalVars, varsOf } from './visit.js';

interface Vars {
  /** Vars that must be bound before the term is evaluated. */
  needed: number[];
  /** Vars a unification (or a call's output) can bind: patterns. */
  patterns: number[];
  /** Vars a reference binds by iterating (`x[i]`). */
  generated: number[];
}

// Arrays, not sets: a term has few vars, and a body's terms are many (cold code allocates little this way).
const emptyVars = (): Vars => ({ needed: [], patterns: [], generated: [] });

function analyze(term: CompiledTerm, pattern: boolean, vars: Vars): void {
  switch (term.t) {
    case 'var':
      (pattern ? vars.patterns : vars.needed).push(term.slot);
      break;
    case 'ref':
      analyze(term.head, false, vars);
      for (let index = 0; index < term.path.length; index++) {
        const part = term.path[index]!;
        if (part.t === 'var') vars.generated.push(part.slot);
        else if (part.t !== 'const') {
          // A selector with vars inside (`p[{"msg": msg}]`) binds them by unifying with each key.
          const inner = patternVarsOf(part, true);
          vars.needed.push(...inner.needed);
          vars.generated.push(...inner.patterns, ...inner.generated);
        }
      }
      break;
    case 'array':
      for (let index = 0; index < term.items.length; index++) analyze(term.items[index]!, pattern, vars);
      break;
    case 'set':
      for (let index = 0; index < term.items.length; index++) analyze(term.items[index]!, false, vars);
      break;
    case 'object':
      for (const [key, value] of term.entries) {
        analyze(key, false, vars);
        analyze(value, pattern, vars);
      }
      break;
    case 'arraycompr':
    case 'setcompr':
    case 'objectcompr':
      for (const slot of varsOf(term)) vars.needed.push(slot);
      break;
    case 'call':
      for (let index = 0; index < term.args.length; index++) analyze(term.args[index]!, index === term.fn.arity, vars);
      break;
    default:
      break;
  }
}

/** What a term needs bound, binds as a pattern (`pattern`: it is unified), and binds by iterating. */
function patternVarsOf(term: CompiledTerm, pattern: boolean): Vars {
  const vars = emptyVars();
  analyze(term, pattern, vars);
  return vars;
}

function within(slots: readonly number[], bound: ReadonlySet<number>): boolean {
  for (let index = 0; index < slots.length; index++) if (!bound.has(slots[index]!)) return false;
  return true;
}

/** Whether `left = right` can run: one side known, or both arrays (objects) whose items can pair up. */
function unifiable(
  left: CompiledTerm,
  right: CompiledTerm,
  bound: ReadonlySet<number>,
  l = patternVarsOf(left, true),
  r = patternVarsOf(right, true),
): boolean {
  if (!within(l.needed, bound) || !within(r.needed, bound)) return false;
  if (within(l.patterns, bound) || within(r.patterns, bound)) return true;
  if (left.t === 'array' && right.t === 'array' && left.items.length === right.items.length)
    return left.items.every((item, index) => unifiable(item, right.items[index]!, bound));
  if (left.t === 'object' && right.t === 'object' && left.entries.length === right.entries.length)
    return left.entries.every(([key, value]) => {
      const match = right.entries.find(([other]) => other.t === 'const' && key.t === 'const' && other.value === key.value);
      return match !== undefined && unifiable(value, match[1], bound);
    });
  return false;
}

/**
 * A literal as the ordering sees it, as data rather than closures (this runs cold, per literal): the slots
 * that must be bound before it runs, for a unification its sides (it may run with one side known), the
 * slots it binds once placed, and the lists of slots it reads, named in the error when nothing binds them.
 */
interface Step {
  literal: CompiledLiteral;
  needs: readonly number[];
  unify?: { left: CompiledTerm; right: CompiledTerm; l: Vars; r: Vars };
  binds: readonly number[];
  reads: readonly (readonly number[])[];
}

const NONE: readonly number[] = [];

const chain = (...lists: (readonly number[])[]): readonly number[] => ([] as number[]).concat(...lists);

/** What the `with` values of a literal read. */
function withsNeeded(literal: CompiledLiteral): readonly number[] {
  if (literal.withs.length === 0) return NONE;
  const vars = emptyVars();
  for (let index = 0; index < literal.withs.length; index++) analyze(literal.withs[index]!.value, false, vars);
  return vars.needed;
}

function stepOf(literal: CompiledLiteral, shared: ReadonlySet<number>, names: (slot: number) => string): Step {
  const expr = literal.expr;
  if (literal.negated) {
    // Only a `_` may be local to a negation; a named var must be bound outside it (OPA: it is unsafe).
    const reads = [...literalVars(literal)].filter((slot) => shared.has(slot) || !isWildcard(names(slot)));
    return { literal, needs: reads, binds: NONE, reads: [reads] };
  }
  switch (expr.k) {
    case 'term': {
      const vars = patternVarsOf(expr.term, false);
      const withs = withsNeeded(literal);
      return {
        literal,
        needs: withs.length === 0 ? vars.needed : chain(vars.needed, withs),
        binds: chain(vars.generated, vars.patterns),
        reads: [vars.needed, withs],
      };
    }
    case 'unify': {
      const [l, r] = [patternVarsOf(expr.left, true), patternVarsOf(expr.right, true)];
      const withs = withsNeeded(literal);
      return {
        literal,
        needs: withs,
        unify: { left: expr.left, right: expr.right, l, r },
        binds: chain(l.patterns, r.patterns, l.generated, r.generated),
        reads: [l.needed, r.needed, withs, l.patterns, r.patterns],
      };
    }
    case 'somein': {
      const collection = patternVarsOf(expr.collection, false);
      const target = emptyVars();
      if (expr.key) analyze(expr.key, true, target);
      analyze(expr.value, true, target);
      return {
        literal,
        needs: chain(collection.needed, target.needed, withsNeeded(literal)),
        binds: chain(collection.generated, target.patterns, target.generated),
        reads: [collection.needed, target.needed],
      };
    }
    case 'every': {
      const domain = patternVarsOf(expr.domain, false);
      const outer = new Set([...literalVars(literal)].filter((slot) => !expr.locals.has(slot) && !domain.generated.includes(slot)));
      for (const slot of domain.needed) outer.add(slot);
      const needs = [...outer];
      return { literal, needs, binds: domain.generated, reads: [needs] };
    }
    default:
      return { literal, needs: NONE, binds: NONE, reads: [] };
  }
}

const ready = (step: Step, bound: ReadonlySet<number>) =>
  within(step.needs, bound) &&
  (step.unify === undefined || unifiable(step.unify.left, step.unify.right, bound, step.unify.l, step.unify.r));

/**
 * The body in an order where every literal's inputs are bound, starting from `bound` (which it extends
 * with what the body binds); `extra` are slots read elsewhere (the rule's head), for negation's locals.
 */
export function orderForSafety(
  body: readonly CompiledLiteral[],
  bound: Set<number>,
  names: (slot: number) => string,
  extra: ReadonlySet<number> = new Set(),
): CompiledLiteral[] {
  // The vars a negated literal shares with the rest of the body: only a body with one needs them counted.
  const shared = new Set<number>();
  if (body.some(({ negated }) => negated)) {
    const counts = new Map<number, number>();
    for (const literal of body) for (const slot of literalVars(literal)) counts.set(slot, (counts.get(slot) ?? 0) + 1);
    for (const [slot, count] of counts) if (count > 1 || extra.has(slot) || bound.has(slot)) shared.add(slot);
  }
  const remaining = body.map((literal) => stepOf(literal, shared, names));
  const ordered: CompiledLiteral[] = [];
  while (remaining.length > 0) {
    let progressed = false;
    for (let index = 0; index < remaining.length; ) {
      const step = remaining[index]!;
      if (!ready(step, bound)) {
        index++;
        continue;
      }
      ordered.push(step.literal);
      for (let at = 0; at < step.binds.length; at++) bound.add(step.binds[at]!);
      remaining.splice(index, 1);
      progressed = true;
    }
    if (!progressed) {
      const unsafe = new Set<number>();
      for (const { reads } of remaining) for (const slots of reads) for (const slot of slots) if (!bound.has(slot)) unsafe.add(slot);
      const first = remaining[0]!.literal;
      const vars = [...unsafe].map(names).filter((name) => !isWildcard(name));
      throw compileError(
        vars.length > 0 ? `var ${vars.join(', ')} is unsafe` : 'expression is unsafe (a `_` is never bound)',
        first.loc,
        'rego_unsafe_var_error',
      );
    }
  }
  return ordered;
}
