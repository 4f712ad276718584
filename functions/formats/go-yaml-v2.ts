// gopkg.in/yaml.v2's Marshal of a map of maps of strings, byte for byte, for Kyverno's denial message
// (kyverno-denial.ts), which people match in alerts: keys sorted, two-space indentation, and each string
// in the style yaml.v2's emitter chooses (plain where it may be, else single-quoted, else double-quoted;
// literal for text with line breaks; `""` for empty or for text that would read as another type), folded at a
// space once a line passes 80 columns, continuation lines indented by four, as that emitter folds them.

const BEST_WIDTH = 80;
const INDICATORS = new Set([...'#,[]{}&*!|>\'"%@`']);
const FLOW_INDICATORS = new Set([...',?[]{}']);
// Plain text YAML 1.1 would read as a boolean, null or number: yaml.v2 quotes it.
const NOT_A_STRING =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~|[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|0b[01_]+|0x[0-9a-fA-F_]+|[-+]?0[0-7_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?)$/;

type Style = 'plain' | 'single' | 'double' | 'literal';

const printable = (code: number) =>
  code === 0x0a ||
  (code >= 0x20 && code <= 0x7e) ||
  code === 0x85 ||
  (code >= 0xa0 && code <= 0xd7ff) ||
  (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff) ||
  code >= 0x10000;

/** The style yaml.v2 writes a string in, as a block mapping's value (or, `key`, a simple key). */
function styleOf(text: string, key: boolean): Style {
  if (text === '' || NOT_A_STRING.test(text)) return 'double';
  const chars = [...text];
  if (chars.some((char) => !printable(char.codePointAt(0)!))) return 'double';
  if (text.includes('\n')) return key ? 'double' : 'literal';
  let plain = !(text.startsWith('---') || text.startsWith('...'));
  const first = chars[0]!;
  const second = chars[1];
  if (INDICATORS.has(first) || ((first === '?' || first === ':' || first === '-') && (second === undefined || second === ' ')))
    plain = false;
  if (first === ' ' || chars.at(-1) === ' ') plain = false;
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index]!;
    if (key && FLOW_INDICATORS.has(char)) continue; // a block key may hold these
    if (char === ':' && (index + 1 === chars.length || chars[index + 1] === ' ')) plain = false;
    if (char === '#' && index > 0 && chars[index - 1] === ' ') plain = false;
  }
  return plain ? 'plain' : 'single';
}

/** A scalar written from `column` on, folded as yaml.v2 folds plain and single-quoted text. */
function folded(text: string, column: number, indent: number, quote: string): string {
  let out = quote;
  let at = column + quote.length;
  const chars = [...text];
  let spaces = false;
  chars.forEach((char, index) => {
    if (char === ' ') {
      const fold = !spaces && at > BEST_WIDTH && index !== 0 && index !== chars.length - 1 && chars[index + 1] !== ' ';
      if (fold) {
        out += `\n${' '.repeat(indent)}`;
        at = indent;
      } else {
        out += ' ';
        at++;
      }
      spaces = true;
      return;
    }
    const written = quote === "'" && char === "'" ? "''" : char;
    out += written;
    at += written.length;
    spaces = false;
  });
  return out + quote;
}

function scalar(text: string, column: number, indent: number, key: boolean): string {
  switch (styleOf(text, key)) {
    case 'plain':
      return key ? text : folded(text, column, indent, '');
    case 'single':
      return key ? `'${text.replaceAll("'", "''")}'` : folded(text, column, indent, "'");
    case 'literal': {
      const chomp = text.endsWith('\n') ? (text.endsWith('\n\n') ? '+' : '') : '-';
      const lines = (chomp === '-' ? text : text.replace(/\n$/, '')).split('\n');
      return `|${chomp}\n${lines.map((line) => (line ? `${' '.repeat(indent)}${line}` : '')).join('\n')}`;
    }
    default:
      return JSON.stringify(text);
  }
}

/** yaml.v2's Marshal of `{outer: {inner: text}}`, keys sorted. */
export function marshalNestedStrings(map: Record<string, Record<string, string>>): string {
  let out = '';
  for (const outer of Object.keys(map).sort()) {
    out += `${scalar(outer, 0, 2, true)}:\n`;
    for (const inner of Object.keys(map[outer]!).sort()) {
      const key = scalar(inner, 2, 4, true);
      // `  key: ` then the value: yaml.v2 writes the space before the scalar.
      out += `  ${key}: ${scalar(map[outer]![inner]!, 2 + key.length + 2, 4, false)}\n`;
    }
  }
  return out;
}
