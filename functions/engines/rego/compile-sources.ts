// Rego sources to a compiled policy, once per rules version, with OPA's errors as upload errors: each names
// the file, row and column and OPA's kind of error (`lib.rego:3:5: rego_compile_error: var x is unsafe`).
// Sources already compiled (the same template for several constraints) are compiled once.
import { BUILTINS } from './builtins/registry.js';
import { type CompiledPolicy, compilePolicy } from './compile/compile-policy.js';
import { parseModule } from './syntax/parser.js';

export interface RegoSource {
  /** As errors and `opa test` name it. */
  file: string;
  source: string;
  /** Rego v1 syntax (Gatekeeper's `version: v1`); else v0, unless the module imports `rego.v1`. */
  v1?: boolean;
  /**
   * v0 as OPA reads it: `if`, `contains`, `in` and `every` are keywords only where imported (cosign's policies,
   * compiled as RegoV0, fail otherwise); else they are keywords in v0 too, as regorus reads it.
   */
  strictV0?: boolean;
}

const MAX_CACHED = 64;
/**
 * Compiled policies by their sources, one level per module: a module's file and syntax, then its source, whose
 * hash the runtime keeps on the string itself (a key made by serialising every source cost more than a lookup).
 */
interface CacheLevel {
  policy?: CompiledPolicy;
  next: Map<string, Map<string, CacheLevel>>;
}
let cache: CacheLevel = { next: new Map() };
let cached = 0;

function cacheLevelOf(sources: readonly RegoSource[]): CacheLevel {
  let level = cache;
  for (let index = 0; index < sources.length; index++) {
    const { file, source, v1, strictV0 } = sources[index]!;
    const where = `${v1 === true ? 1 : 0}${strictV0 === true ? 1 : 0}${file}`;
    let bySource = level.next.get(where);
    if (!bySource) level.next.set(where, (bySource = new Map()));
    let next = bySource.get(source);
    if (!next) bySource.set(source, (next = { next: new Map() }));
    level = next;
  }
  return level;
}

/** The sources compiled together, as one policy; throws a RegoError (errors.ts) saying what is wrong where. */
export function compileSources(sources: readonly RegoSource[]): CompiledPolicy {
  if (cached >= MAX_CACHED) {
    cache = { next: new Map() };
    cached = 0;
  }
  const level = cacheLevelOf(sources);
  if (level.policy) return level.policy;
  const modules = sources.map(({ file, source, v1, strictV0 }) =>
    parseModule(source, file, { v1: v1 === true, futureKeywords: strictV0 !== true, isBuiltin: (name) => BUILTINS.has(name) }),
  );
  const policy = compilePolicy(modules, BUILTINS);
  level.policy = policy;
  cached++;
  return policy;
}
