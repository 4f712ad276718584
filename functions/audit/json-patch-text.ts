// A mutating answer's base64 JSONPatch, decoded and written out for people: `replace /spec/x "v"`.
export interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
}

export function decodedPatch(patch: string): PatchOperation[] {
  return JSON.parse(Buffer.from(patch, 'base64').toString('utf8'));
}

export function describeOperation({ op, path, value }: PatchOperation): string {
  return `${op} ${path}${value === undefined ? '' : ` ${JSON.stringify(value)}`}`;
}
