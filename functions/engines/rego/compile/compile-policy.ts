// A set of modules compiled into one policy, once per rules version, as OPA's compiler does it: a table of
// named stages (STAGES, in the order of OPA's ast/compile.go): the rules gathered by the document they define
// (data.<package>.<head>), one kind and arity each; calls resolved; each rule's names resolved and body ordered
// (rule-compiler.ts); defaults checked; no recursion.
import type { Builtin } from '../builtins/builtin.js';
import type * as ast from '../syntax/ast.js';
import { RegoError } from '../errors.js';
import { metadataIndex } from './annotations.js';
import { compileError } from './errors.js';
import { checkReads } from './dependencies.js';
import type { CompiledRule, CompiledTerm, FunctionRef, RuleGroup, RuleKind, RuleNode } from './ir.js';
import { functionResolver, pathKey } from './resolve-functions.js';
import { RuleCompiler } from './rule-compiler.js';
import { visitTerm } from './visit.js';

export interface CompiledPolicy {
  root: RuleNode;
  /** Every group by its path joined with dots (`test.p`). */
  groups: Map<string, RuleGroup>;
  /** Resolves a function a query calls (no package, no imports). */
  resolveFunction(name: string[], loc: ast.Location): FunctionRef;
  /** The base documents its rules read under data (dependencies.ts: checkReads). */
  baseDocuments: ReadonlySet<string>;
  /** The built-ins its rules call, by name. */
  builtinsCalled: ReadonlySet<string>;
}

interface Definition {
  module: ast.Module;
  rule: ast.Rule;
  body: ast.Literal[];
  path: string[];
  kind: RuleKind;
  /** The group of the document it defines, once the groups are made. */
  group?: RuleGroup;
}

/** Where a rule's document is, and its kind: a function, a set, part of an object (dynamic keys), or a complete value. */
function definitionsOf(module: ast.Module): Definition[] {
  const definitions: Definition[] = [];
  for (let index = 0; index < module.rules.length; index++) {
    const rule = module.rules[index]!;
    const head = rule.head;
    const path = [...module.package, head.name];
    let staticParts = 0;
    while (staticParts < head.path.length && head.path[staticParts]!.type === 'string') {
      path.push((head.path[staticParts] as { value: string }).value);
      staticParts++;
    }
    const dynamic = head.path.length > staticParts;
    const kind: RuleKind = head.args ? 'function' : head.contains ? 'set' : dynamic ? 'object' : 'complete';
    const normalized: ast.Rule = staticParts === 0 ? rule : { ...rule, head: { ...head, path: head.path.slice(staticParts) } };
    definitions.push({ module, rule: normalized, body: rule.body, path, kind });
    for (let other = 0; other < rule.otherBodies.length; other++)
      definitions.push({ module, rule: normalized, body: rule.otherBodies[other]!, path, kind });
  }
  return definitions;
}

function importsOf(module: ast.Module): Map<string, string[]> {
  const imports = new Map<string, string[]>();
  for (const declared of module.imports) {
    if (declared.path[0] !== 'data' && declared.path[0] !== 'input') continue;
    const alias = declared.alias ?? declared.path.at(-1)!;
    if (imports.has(alias)) throw compileError(`import ${alias}: this import shadows previous import`, declared.loc).inFile(module.file);
    imports.set(alias, declared.path);
  }
  return imports;
}

/** What the stages share: each reads what the stages before it made. */
interface Compilation {
  modules: readonly ast.Module[];
  builtins: ReadonlyMap<string, Builtin>;
  perModule: Definition[][];
  groups: Map<string, RuleGroup>;
  root: RuleNode;
  builtinsCalled: Set<string>;
  resolverFor: ReturnType<typeof functionResolver>;
  compiled: Map<Definition, CompiledRule>;
  baseDocuments: ReadonlySet<string>;
}

/** OPA's compiler stages that apply here, in OPA's order (ast/compile.go), each named as OPA names it. */
const STAGES: [name: string, stage: (compilation: Compilation) => void][] = [
  ['SetRuleTree', setRuleTree],
  ['ResolveRefs', resolveRefs],
  ['CheckSafetyRuleBodies', compileRules],
  ['CheckDefaultRules', checkDefaultRules],
  ['CheckRecursion', checkRecursion],
];

export function compilePolicy(modules: readonly ast.Module[], builtins: ReadonlyMap<string, Builtin>): CompiledPolicy {
  const compilation = { modules, builtins, builtinsCalled: new Set<string>(), compiled: new Map() } as Compilation;
  for (const [, stage] of STAGES) stage(compilation);
  const { root, groups, resolverFor, baseDocuments, builtinsCalled } = compilation;
  return {
    root,
    groups: new Map([...groups.values()].map((group) => [group.path.join('.'), group])),
    resolveFunction: resolverFor(undefined, new Map()),
    baseDocuments,
    builtinsCalled,
  };
}

/** The rules gathered by the document they define, one kind and arity each, in a tree by path. */
function setRuleTree(compilation: Compilation): void {
  compilation.perModule = compilation.modules.map(definitionsOf);
  const groups = new Map<string, RuleGroup>();
  for (const definition of compilation.perModule.flat()) {
    const key = pathKey(definition.path);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { path: definition.path, kind: definition.kind, rules: [] }));
    definition.group = group;
    const arity = definition.rule.head.args?.length;
    if (group.kind !== definition.kind || (arity !== undefined && group.arity !== undefined && group.arity !== arity))
      throw compileError(
        `rule data.${definition.path.join('.')} conflicts with the following rule: kinds or arities differ`,
        definition.rule.loc,
      ).inFile(definition.module.file);
    if (arity !== undefined) group.arity = arity;
  }
  const root: RuleNode = { children: new Map() };
  const nodeAt = (path: readonly string[]) => {
    let node = root;
    for (const part of path) {
      let child = node.children.get(part);
      if (!child) node.children.set(part, (child = { children: new Map() }));
      node = child;
    }
    return node;
  };
  // A package is a document even with no rules: `data.<package>` is then {}.
  for (const module of compilation.modules) nodeAt(module.package);
  for (const group of groups.values()) nodeAt(group.path).group = group;
  compilation.groups = groups;
  compilation.root = root;
}

/** How each module's calls find their functions (resolve-functions.ts). */
function resolveRefs(compilation: Compilation): void {
  compilation.resolverFor = functionResolver(compilation.groups, compilation.builtins, compilation.builtinsCalled);
}

/** Each rule compiled (rule-compiler.ts): names resolved to slots, bodies ordered for safety, checked. */
function compileRules(compilation: Compilation): void {
  const { modules, perModule } = compilation;
  const ruleNames = new Map<string, Set<string>>();
  for (const { module, rule } of perModule.flat()) {
    const key = pathKey(module.package);
    if (!ruleNames.has(key)) ruleNames.set(key, new Set());
    ruleNames.get(key)!.add(rule.head.name);
  }
  // Annotations are read only when a rule asks for them, as OPA's compiler reads them.
  let metadata: ReturnType<typeof metadataIndex> | undefined;
  for (const [moduleIndex, module] of modules.entries()) {
    const imports = importsOf(module);
    const scope = {
      pkg: module.package,
      ruleNames: ruleNames.get(pathKey(module.package)) ?? new Set<string>(),
      imports,
      file: module.file,
      v1: module.v1,
      resolveFunction: compilation.resolverFor(module.package, imports),
      metadataOf: (rule: ast.Rule) => (metadata ??= metadataIndex(modules))(module, rule),
    };
    for (const definition of perModule[moduleIndex]!) {
      try {
        compilation.compiled.set(definition, new RuleCompiler(scope).compile(definition.rule, definition.body));
      } catch (error) {
        if (error instanceof RegoError) throw error.inFile(module.file);
        throw error;
      }
    }
  }
}

/** Defaults are constants, one per document (per constant key of an object); the other rules join their group. */
function checkDefaultRules(compilation: Compilation): void {
  for (const [definition, compiled] of compilation.compiled) {
    const { group, rule, module } = definition as Required<Definition>;
    if (rule.isDefault && group.kind === 'object') {
      if (!compiled.keys.every((key) => key.t === 'const') || !isConstant(compiled.value))
        throw compileError(`invalid default rule: its keys and value must be constants`, rule.loc).inFile(module.file);
      (group.keyedDefaults ??= []).push(compiled);
    } else if (rule.isDefault) {
      if (group.defaultRule) throw compileError(`multiple default rules data.${group.path.join('.')} found`, rule.loc).inFile(module.file);
      if (!isConstant(compiled.value))
        throw compileError(`invalid default value: a default rule's value must be a constant`, rule.loc).inFile(module.file);
      group.defaultRule = compiled;
    } else group.rules.push(compiled);
  }
}

/** No rule reads itself (dependencies.ts), and the base documents the rules read, found in the same walk. */
function checkRecursion(compilation: Compilation): void {
  compilation.baseDocuments = checkReads(compilation.groups.values(), compilation.root);
}

/** A default's value: no var, reference or call outside a comprehension (ast/compile.go: checkDefaultRuleValue). */
function isConstant(term: CompiledTerm): boolean {
  let constant = true;
  visitTerm(term, (each) => {
    if (each.t === 'arraycompr' || each.t === 'setcompr' || each.t === 'objectcompr') return true;
    if (each.t !== 'const' && each.t !== 'array' && each.t !== 'set' && each.t !== 'object') constant = false;
    return !constant;
  });
  return constant;
}
