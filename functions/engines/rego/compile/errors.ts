// Compile errors, as OPA reports them: what is wrong and where (`rego_compile_error` at file, row, column).
import type { Location } from '../syntax/ast.js';

export class RegoCompileError extends Error {
  file?: string;

  constructor(
    message: string,
    readonly loc?: Location,
  ) {
    super(message);
    this.name = 'RegoCompileError';
  }
}
