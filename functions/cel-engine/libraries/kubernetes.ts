// The functions Kubernetes adds to CEL for admission policies, beyond what the engine ships: the strings
// extension's missing members (charAt, replace, reverse, strings.quote, format), the lists library
// (isSorted, sum, min, max, indexOf, lastIndexOf), the sets extension, and the regex library (find,
// findAll on RE2). Quantity, semver, URL, IP/CIDR and format live in their own files. Semantics follow
// k8s.io/apiserver/pkg/cel/library; an invalid argument is an evaluation error, as there.
import type { Environment } from '@marcbachmann/cel-js';
import type { RE2JS } from 're2js';
import { celMapEntries, compareCel, equalCel } from '../values.js';
import { registerFormatLibrary } from './format/format.js';
import { registerIpLibrary } from './ip/ip.js';
import { registerQuantityLibrary } from './quantity/quantity.js';
import { registerSemverLibrary } from './semver/semver.js';
import { registerUrlLibrary } from './url/url.js';

export interface RegexSupport {
  re2Pattern(pattern: string): RE2JS;
  chargeMatch(text: string, pattern: string): void;
}

function codePoints(text: string): string[] {
  return Array.from(text);
}

function quote(text: string): string {
  const escaped = text.replace(/[\\"\u0007\b\f\n\r\t\v]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\u0007': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' })[c]!);
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
        return Number(arg).toExponential(digits).replace(/e([+-])(\d)$/, 'e$10$2');
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

function numbersOf(list: unknown[], name: string): (bigint | number)[] {
  for (const item of list) if (typeof item !== 'bigint' && typeof item !== 'number') throw new Error(`${name}: expected a list of numbers`);
  return list as (bigint | number)[];
}

function extreme(list: unknown[], name: string, sign: 1 | -1): unknown {
  if (list.length === 0) throw new Error(`${name}: the list is empty`);
  return list.reduce((best, item) => (compareCel(item, best) * sign > 0 ? item : best));
}

/** A namespace of functions (`strings.quote`): a constant of its own type whose methods are the functions. */
export function registerNamespace(env: Environment, name: string): void {
  const type = class {};
  Object.defineProperty(type, 'name', { value: name });
  env.registerType(name, type);
  env.registerConstant(name, name, new type());
}

export function registerKubernetesLibrary(env: Environment, regex: RegexSupport): void {
  // Strings extension (cel-go ext.Strings), the members the engine lacks.
  env.registerFunction('string.charAt(int): string', (text: string, index: bigint) => {
    const chars = codePoints(text);
    if (index < 0n || index > BigInt(chars.length)) throw new Error(`charAt: index ${index} out of range`);
    return chars[Number(index)] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (text: string, from: string, to: string) => text.split(from).join(to));
  env.registerFunction('string.replace(string, string, int): string', (text: string, from: string, to: string, limit: bigint) => {
    if (limit < 0n) return text.split(from).join(to);
    const parts = text.split(from);
    const replaced = Number(limit);
    return parts.slice(0, replaced + 1).join(to) + (parts.length > replaced + 1 ? from + parts.slice(replaced + 1).join(from) : '');
  });
  env.registerFunction('string.reverse(): string', (text: string) => codePoints(text).reverse().join(''));
  registerNamespace(env, 'strings');
  env.registerFunction('strings.quote(string): string', (_namespace: unknown, text: string) => quote(text));
  env.registerFunction('string.format(list): string', format);

  // Lists library.
  env.registerFunction('list.isSorted(): bool', (list: unknown[]) => list.every((item, index) => index === 0 || compareCel(list[index - 1], item) <= 0));
  env.registerFunction('list.sum(): dyn', (list: unknown[]) => {
    const numbers = numbersOf(list, 'sum');
    if (numbers.length === 0) return 0n;
    return typeof numbers[0] === 'bigint' ? (numbers as bigint[]).reduce((a, b) => a + b, 0n) : (numbers as number[]).reduce((a, b) => a + b, 0);
  });
  env.registerFunction('list.min(): dyn', (list: unknown[]) => extreme(list, 'min', -1));
  env.registerFunction('list.max(): dyn', (list: unknown[]) => extreme(list, 'max', 1));
  env.registerFunction('list.indexOf(dyn): int', (list: unknown[], value: unknown) => BigInt(list.findIndex((item) => equalCel(item, value))));
  env.registerFunction('list.lastIndexOf(dyn): int', (list: unknown[], value: unknown) => {
    for (let index = list.length - 1; index >= 0; index--) if (equalCel(list[index], value)) return BigInt(index);
    return -1n;
  });

  // Sets extension.
  const contains = (list: unknown[], sub: unknown[]) => sub.every((item) => list.some((candidate) => equalCel(candidate, item)));
  registerNamespace(env, 'sets');
  env.registerFunction('sets.contains(list, list): bool', (_namespace: unknown, a: unknown[], b: unknown[]) => contains(a, b));
  env.registerFunction('sets.equivalent(list, list): bool', (_namespace: unknown, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a));
  env.registerFunction('sets.intersects(list, list): bool', (_namespace: unknown, a: unknown[], b: unknown[]) => a.some((item) => b.some((other) => equalCel(item, other))));

  // Regex library, on RE2 like `matches`.
  env.registerFunction('string.find(string): string', (text: string, pattern: string) => {
    regex.chargeMatch(text, pattern);
    const matcher = regex.re2Pattern(pattern).matcher(text);
    return matcher.find() ? (matcher.group(0) ?? '') : '';
  });
  const findAll = (text: string, pattern: string, limit: bigint = -1n): string[] => {
    regex.chargeMatch(text, pattern);
    const matcher = regex.re2Pattern(pattern).matcher(text);
    const found: string[] = [];
    while ((limit < 0n || BigInt(found.length) < limit) && matcher.find()) found.push(matcher.group(0) ?? '');
    return found;
  };
  env.registerFunction('string.findAll(string): list<string>', (text: string, pattern: string) => findAll(text, pattern));
  env.registerFunction('string.findAll(string, int): list<string>', findAll);

  registerQuantityLibrary(env);
  registerSemverLibrary(env);
  registerUrlLibrary(env);
  registerIpLibrary(env);
  registerFormatLibrary(env);
}
