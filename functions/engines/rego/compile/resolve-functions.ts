// OPA's ResolveRefs for calls: a function by its name as a module writes it, an import, a data path, the
// package's own, then a built-in; a refused or missing built-in is an error naming it. Each name is resolved
// once per module (a module calls the same few functions many times).
import type { Builtin } from '../builtins/builtin.js';
import { NOT_IMPLEMENTED_BUILTINS, REFUSED_BUILTINS } from '../builtins/registry.js';
import type * as ast from '../syntax/ast.js';
import { compileError } from './errors.js';
import type { FunctionRef, RuleGroup } from './ir.js';

export type FunctionResolver = (name: string[], loc: ast.Location) => FunctionRef;

export const pathKey = (path: readonly string[]) => path.join('\u0000');

export function functionResolver(
  groups: ReadonlyMap<string, RuleGroup>,
  builtins: ReadonlyMap<string, Builtin>,
  builtinsCalled: Set<string>,
): (pkg: readonly string[] | undefined, imports: ReadonlyMap<string, string[]>) => FunctionResolver {
  const functionAt = (path: string[], name: string, loc: ast.Location): FunctionRef | undefined => {
    const group = groups.get(pathKey(path));
    if (!group) return undefined;
    if (group.kind !== 'function') throw compileError(`${name} is not a function (data.${path.join('.')} is a rule)`, loc);
    return { name: `data.${path.join('.')}`, rule: path, arity: group.arity! };
  };
  const resolve = (
    pkg: readonly string[] | undefined,
    imports: ReadonlyMap<string, string[]>,
    name: string[],
    dotted: string,
    loc: ast.Location,
  ) => {
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
  return (pkg, imports) => {
    const resolved = new Map<string, FunctionRef>();
    return (name, loc) => {
      const dotted = name.length === 1 ? name[0]! : name.join('.');
      let found = resolved.get(dotted);
      if (!found) resolved.set(dotted, (found = resolve(pkg, imports, name, dotted, loc)));
      return found;
    };
  };
}
