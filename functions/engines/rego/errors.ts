// One error type for the whole language, as OPA's ast.Error and topdown.Error are one shape: a code, a
// message and where. Parse, compile and type errors stop a policy at upload; evaluation errors stop one
// evaluation (a conflict, a type error, a built-in's error in strict mode). A built-in raises a BuiltinError
// without naming itself; the evaluator adds the name, as OPA's handleBuiltinErr does.

export type RegoErrorCode =
  | 'rego_parse_error'
  | 'rego_compile_error'
  | 'rego_type_error'
  | 'rego_unsafe_var_error'
  | 'rego_recursion_error'
  | 'eval_conflict_error'
  | 'eval_type_error'
  | 'eval_builtin_error';

export interface RegoLocation {
  file?: string;
  row: number;
  col?: number;
}

/** `file:row:col` (the column when known; OPA's evaluation errors name the row only). */
export function locationText({ file, row, col }: RegoLocation): string {
  if (row === 0) return file ?? '';
  return `${file ?? ''}${file ? ':' : ''}${row}${col === undefined ? '' : `:${col}`}`;
}

export class RegoError extends Error {
  constructor(
    readonly code: RegoErrorCode,
    /** What is wrong, without where. */
    readonly detail: string,
    public location?: RegoLocation,
  ) {
    super();
    this.name = 'RegoError';
    this.message = this.text();
  }

  /** Names the file, where the error was raised before it was known (the parser does not know its file). */
  inFile(file: string): this {
    if (this.location && this.location.file === undefined) {
      this.location = { ...this.location, file };
      this.message = this.text();
    } else if (!this.location) {
      this.location = { file, row: 0 };
      this.message = this.text();
    }
    return this;
  }

  private text(): string {
    return this.location ? `${locationText(this.location)}: ${this.code}: ${this.detail}` : `${this.code}: ${this.detail}`;
  }
}

/**
 * A built-in's refusal of its operands (OPA's eval_type_error) or of what they hold (eval_builtin_error). As in
 * OPA, whose operand type errors all read `operand N must be …` (builtins.NewOperandTypeErr), such a message is
 * a type error.
 */
export class BuiltinError extends Error {
  readonly code: 'eval_type_error' | 'eval_builtin_error';

  constructor(message: string, code?: 'eval_type_error' | 'eval_builtin_error') {
    super(message);
    this.name = 'BuiltinError';
    this.code = code ?? (/^operand \d+ must be /.test(message) ? 'eval_type_error' : 'eval_builtin_error');
  }
}

/** `operand 2 must be string but got number`: a type error, as OPA's builtins.NewOperandTypeErr words it. */
export const operandError = (position: number, expected: string, got: string) =>
  new BuiltinError(`operand ${position} must be ${expected} but got ${got}`, 'eval_type_error');
