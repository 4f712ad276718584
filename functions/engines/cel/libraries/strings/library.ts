// The members of cel-go's strings extension that Kubernetes enables and the engine lacks: charAt, replace,
// reverse, strings.quote and format (k8s.io/apiserver/pkg/cel/library, ext.Strings). An invalid argument is
// an evaluation error, as there.
import { celMapEntries } from '../../values.js';
import { currentEvaluation } from '../../../runtime/evaluation.js';
import { textUnits } from '../../../runtime/size-units.js';
import type { CelLibrary } from '../cel-library.js';

function codePoints(text: string): string[] {
  return Array.from(text);
}

function quote(text: string): string {
  const escaped = text.replace(
    /[\\"\u0007\b\f\n\r\t\v]/g,
    (c) =>
      ({ '\\': '\\\\', '"': '\\"', '\u0007': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' })[c]!,
  );
  return `"${escaped}"`;
}

/** CEL's string.format: %s %d %f %e %x %X %o %b with an optional precision (%.2f). */
function format(template: string, args: unknown[]): string {
  let next = 0;
  return template.replace(/%(\.\d+)?([sdfexXob%])/g, (_all, precision: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    if (next >= args.length) throw new Error(`format: too few arguments for "${template}"`);
    const arg = args[next++];
    const digits = precision ? Number(precision.slice(1)) : 6;
    switch (verb) {
      case 's':
        return typeof arg === 'string' ? arg : displayString(arg);
      case 'd':
        if (typeof arg !== 'bigint') throw new Error('format: %d expects an integer');
        return arg.toString();
      case 'f':
        return Number(arg).toFixed(digits);
      case 'e':
        return Number(arg)
          .toExponential(digits)
          .replace(/e([+-])(\d)$/, 'e$10$2');
      case 'x':
      case 'X': {
        const text = typeof arg === 'string' ? Buffer.from(arg).toString('hex') : BigInt(arg as bigint).toString(16);
        return verb === 'X' ? text.toUpperCase() : text;
      }
      case 'o':
        return BigInt(arg as bigint).toString(8);
      default:
        return BigInt(arg as bigint).toString(2);
    }
  });
}

function displayString(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(displayString).join(', ')}]`;
  const entries = celMapEntries(value);
  if (entries) return `{${entries.map(([k, v]) => `${displayString(k)}: ${displayString(v)}`).join(', ')}}`;
  if (value === null || value === undefined) return 'null';
  return String(value);
}

/** `text` with up to `limit` (all when negative) occurrences of `from` replaced, charged before it is made. */
function replaced(text: string, from: string, to: string, limit: bigint): string {
  const parts = text.split(from);
  const count = limit < 0n ? parts.length - 1 : Math.min(Number(limit), parts.length - 1);
  currentEvaluation()?.budget.charge(textUnits(text.length + count * Math.max(0, to.length - from.length)));
  return parts.slice(0, count + 1).join(to) + (parts.length > count + 1 ? from + parts.slice(count + 1).join(from) : '');
}

export const stringsLibrary: CelLibrary = {
  name: 'kubernetes.strings',
  namespaces: [{ constant: 'strings' }],
  functions: {
    'string.charAt(int): string': (text: string, index: bigint) => {
      const chars = codePoints(text);
      if (index < 0n || index > BigInt(chars.length)) throw new Error(`charAt: index ${index} out of range`);
      return chars[Number(index)] ?? '';
    },
    'string.replace(string, string): string': (text: string, from: string, to: string) => replaced(text, from, to, -1n),
    'string.replace(string, string, int): string': replaced,
    'string.reverse(): string': (text: string) => codePoints(text).reverse().join(''),
    'strings.quote(string): string': (_namespace: unknown, text: string) => quote(text),
    'string.format(list): string': format,
  },
};
