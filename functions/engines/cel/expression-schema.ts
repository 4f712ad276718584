// A CEL expression as a rules document field: compiled as the document is validated (once each), so a
// document whose expressions do not compile is invalid, and the compiled program lives as long as the
// rules version.
import * as v from '../../admission/schema.js';
import { type CelProgram, type CompileOptions, compileCel } from './program.js';

export const celExpressionSchema = (options: CompileOptions = {}) =>
  v.pipe(
    v.string(),
    v.minLength(1),
    v.rawTransform(({ dataset, addIssue, NEVER }): CelProgram => {
      const compiled = compileCel(dataset.value, options);
      if (typeof compiled !== 'string') return compiled;
      addIssue({ message: compiled });
      return NEVER;
    }),
  );

export const CelNameSchema = v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a CEL identifier'));
