// Compile errors, as OPA reports them: what is wrong and where (`rego_compile_error` at file, row, column);
// the file is added by whoever knows it (compile-policy.ts).
import { RegoError, type RegoErrorCode } from '../errors.js';
import type { Location } from '../syntax/ast.js';

export const compileError = (message: string, loc?: Location, code: RegoErrorCode = 'rego_compile_error') =>
  new RegoError(code, message, loc && { row: loc.row, col: loc.col });
