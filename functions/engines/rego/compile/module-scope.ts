// What a module gives the compiler of each of its rules (rule-compiler.ts): its package, rule names and
// imports, how its calls find their functions, and its annotations.
import type * as ast from '../syntax/ast.js';
import type { RuleMetadata } from './annotations.js';
import type { FunctionRef } from './ir.js';

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
  /** rego.metadata.chain() and rule() of a rule of this module, which OPA's compiler makes constants. */
  metadataOf?(rule: ast.Rule): RuleMetadata;
}
