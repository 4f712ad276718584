// A set of modules compiled into one policy, once per rules version, as OPA's compiler does it: the rules
// gathered by the document they define (data.<package>.<head>), each rule's names resolved and body
// ordered (rule-compiler.ts), then the whole checked: one kind of rule per document, one default, the same
// arity for every definition of a function, every called function known, no recursion.
import type { Builtin } from '../builtins/builtin.js';
import { NOT_IMPLEMENTED_BUILTINS, REFUSED_BUILTINS } from '../builtins/registry.js';
import type * as ast from '../syntax/ast.js';
import { RegoError } from '../errors.js';
import { metadataIndex } from './annotations.js';
import { compileError } from './errors.js';
import { checkReads } from './dependencies.js';
import type { FunctionRef, RuleGroup, RuleKind, RuleNode, CompiledTerm } from './ir.js';
import { RuleCompiler } from './rule-compiler.js';

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

const pathKey = (path: readonly string[]) => path.join('\u0000');

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

export function compilePolicy(modules: readonly ast.Module[], builtins: ReadonlyMap<string, Builtin>): CompiledPolicy {
  const perModule = modules.map(definitionsOf);
  const definitions = perModule.flat();
  const groups = new Map<string, RuleGroup>();
  for (const definition of definitions) {
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
  for (const module of modules) nodeAt(module.package);
  for (const group of groups.values()) nodeAt(group.path).group = group;
  const ruleNames = new Map<string, Set<string>>();
  for (const { module, rule } of definitions) {
    const key = pathKey(module.package);
    if (!ruleNames.has(key)) ruleNames.set(key, new Set());
    ruleNames.get(key)!.add(rule.head.name);
  }
  const functionAt = (path: string[], name: string, loc: ast.Location): FunctionRef | undefined => {
    const group = groups.get(pathKey(path));
    if (!group) return undefined;
    if (group.kind !== 'function') throw compileError(`${name} is not a function (data.${path.join('.')} is a rule)`, loc);
    return { name: `data.${path.join('.')}`, rule: path, arity: group.arity! };
  };
  const builtinsCalled = new Set<string>();
  /** A function by its name as a module writes it: an import, a data path, the package's own, a built-in. */
  const resolverFor = (pkg: readonly string[] | undefined, imports: ReadonlyMap<string, string[]>) => {
    // A module calls the same few functions many times: each name is resolved once.
    const resolved = new Map<string, FunctionRef>();
    return (name: string[], loc: ast.Location): FunctionRef => {
      const dotted = name.length === 1 ? name[0]! : name.join('.');
      let found = resolved.get(dotted);
      if (!found) resolved.set(dotted, (found = resolve(pkg, imports, name, dotted, loc)));
      return found;
    };
  };
  const resolve = (
    pkg: readonly string[] | undefined,
    imports: ReadonlyMap<string, string[]>,
    name: string[],
    dotted: string,
    loc: ast.Location,
  ): FunctionRef => {
    const imported = imports.get(name[0]!);
    if (imported && imported[0] === 'data') {
      const found = functionAt([...imported.slice(1), ...name.slice(1)], dotted, loc);
      if (found) return found;
    }
    if (name[0] === 'data') {
      const found = functionAt(name.slice(1), dotted, loc);
      if (found) return found;
    }
    const local = pkg && groups.get(pathKey([...pkg, ...name]));
    if (local?.kind === 'function') return { name: `data.${local.path.join('.')}`, rule: local.path, arity: local.arity! };
    const builtin = builtins.get(dotted);
    if (builtin) {
      builtinsCalled.add(builtin.name);
      return { name: builtin.name, builtin, arity: builtin.arity };
    }
    const refused = REFUSED_BUILTINS.get(dotted);
    if (refused) throw compileError(`${dotted} ${refused}: refused`, loc);
    if (NOT_IMPLEMENTED_BUILTINS.has(dotted))
      throw compileError(`${dotted} is an OPA built-in that Portcullis does not implement (docs/rego.md)`, loc);
    throw compileError(`undefined function ${dotted}`, loc, 'rego_type_error');
  };
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
      resolveFunction: resolverFor(module.package, imports),
      metadataOf: (rule: ast.Rule) => (metadata ??= metadataIndex(modules))(module, rule),
    };
    for (const definition of perModule[moduleIndex]!) {
      const group = definition.group!;
      let compiled: ReturnType<RuleCompiler['compile']>;
      try {
        compiled = new RuleCompiler(scope).compile(definition.rule, definition.body);
      } catch (error) {
        if (error instanceof RegoError) throw error.inFile(module.file);
        throw error;
      }
      if (definition.rule.isDefault && group.kind === 'object') {
        if (!compiled.keys.every((key) => key.t === 'const') || !isConstant(compiled.value))
          throw compileError(`invalid default rule: its keys and value must be constants`, definition.rule.loc).inFile(module.file);
        (group.keyedDefaults ??= []).push(compiled);
      } else if (definition.rule.isDefault) {
        if (group.defaultRule)
          throw compileError(`multiple default rules data.${group.path.join('.')} found`, definition.rule.loc).inFile(module.file);
        if (!isConstant(compiled.value))
          throw compileError(`invalid default value: a default rule's value must be a constant`, definition.rule.loc).inFile(module.file);
        group.defaultRule = compiled;
      } else group.rules.push(compiled);
    }
  }
  const baseDocuments = checkReads(groups.values(), root);
  return {
    root,
    groups: new Map([...groups.values()].map((group) => [group.path.join('.'), group])),
    resolveFunction: resolverFor(undefined, new Map()),
    baseDocuments,
    builtinsCalled,
  };
}

/** A term with no vars, refs or calls: what a default rule's value may be. */
/** A default's value: no var or reference outside a comprehension (ast/compile.go: checkDefaultRuleValue). */
function isConstant(term: CompiledTerm): boolean {
  switch (term.t) {
    case 'const':
    case 'arraycompr':
    case 'setcompr':
    case 'objectcompr':
      return true;
    case 'array':
    case 'set':
      return term.items.every(isConstant);
    case 'object':
      return term.entries.every(([key, value]) => isConstant(key) && isConstant(value));
    default:
      return false;
  }
}
