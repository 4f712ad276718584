// Rego sources to a compiled policy, once per rules version, with OPA's errors as upload errors: each names
// the file, row and column and OPA's kind of error (`lib.rego:3:5: rego_compile_error: var x is unsafe`).
// Sources already compiled (the same template for several constraints) are compiled once.
import { BUILTINS } from './builtins/registry.js';
import { type CompiledPolicy, compilePolicy } from './compile/compile-policy.js';
import { RegoCompileError } from './compile/errors.js';
import { parseModule, RegoSyntaxError } from './syntax/parser.js';

export interface RegoSource {
  /** As errors and `opa test` name it. */
  file: string;
  source: string;
  /** Rego v1 syntax (Gatekeeper's `version: v1`); else v0, unless the module imports `rego.v1`. */
  v1?: boolean;
}

/** A Rego source that does not parse or compile, with where. */
export class RegoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegoError';
  }
}

const MAX_CACHED = 64;
const compiled = new Map<string, CompiledPolicy>();

/** The sources compiled together, as one policy; throws a RegoError saying what is wrong where. */
export function compileSources(sources: readonly RegoSource[]): CompiledPolicy {
  const key = JSON.stringify(sources.map(({ file, source, v1 }) => [file, source, v1 === true]));
  const cached = compiled.get(key);
  if (cached) return cached;
  const modules = sources.map(({ file, source, v1 }) => {
    try {
      return parseModule(source, file, { v1: v1 === true });
    } catch (error) {
      if (error instanceof RegoSyntaxError) throw new RegoError(`${file}:${error.row}:${error.col}: rego_parse_error: ${error.message}`);
      throw error;
    }
  });
  let policy: CompiledPolicy;
  try {
    policy = compilePolicy(modules, BUILTINS);
  } catch (error) {
    if (error instanceof RegoCompileError) {
      const where = error.loc ? `${error.file ?? 'policy'}:${error.loc.row}:${error.loc.col}` : (error.file ?? 'policy');
      throw new RegoError(`${where}: rego_compile_error: ${error.message}`);
    }
    throw error;
  }
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(key, policy);
  return policy;
}
