// A query (`opa eval`'s, a test's, a case's) compiled against a compiled policy: parsed, its functions
// resolved by the policy, its vars given slots and its literals ordered for safety, as OPA's query compiler
// does; errors name the query as their file.
import type { CompiledPolicy } from './compile-policy.js';
import { RegoError } from '../errors.js';
import { isWildcard } from '../syntax/parse-terms.js';
import { parseQueryText } from '../syntax/parser.js';
import { RuleCompiler } from './rule-compiler.js';

export type CompiledQuery = ReturnType<RuleCompiler['query']> & {
  /** The slots a solution reports, by name: neither `_` nor a var the compiler made (`__local0__`), as in OPA. */
  reported: [number, string][];
};

export function compileQuery(policy: CompiledPolicy, query: string): CompiledQuery {
  try {
    const body = parseQueryText(query);
    const compiled = new RuleCompiler({
      pkg: [],
      ruleNames: new Set(),
      imports: new Map(),
      resolveFunction: policy.resolveFunction,
      file: 'query',
      v1: false,
    }).query(body);
    const reported = compiled.names.flatMap((name, slot): [number, string][] =>
      isWildcard(name) || name.startsWith('__') ? [] : [[slot, name]],
    );
    return { ...compiled, reported };
  } catch (error) {
    if (error instanceof RegoError) error.inFile('query');
    throw error;
  }
}
