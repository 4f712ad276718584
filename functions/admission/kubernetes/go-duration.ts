// Go's time.ParseDuration, for the apiserver's ?timeout= and the durations Kyverno compares (`>= 30m`): a
// sign, then one or more decimal numbers each with a unit (ns, us, µs, ms, s, m, h); "0" alone needs no unit.
// Parsed by hand in one pass, so a long text costs linear time.

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5, micro sign
  μs: 1_000n, // U+03BC, Greek small letter mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX_DURATION = (1n << 63n) - 1n;

const isDigit = (code: number) => code >= 48 && code <= 57;

/** The fraction's leading digits whose value fits an int64, as Go's leadingFraction reads them. */
function leadingFraction(digits: string): string {
  let value = 0n;
  let kept = 0;
  while (kept < digits.length) {
    const next = value * 10n + BigInt(digits.charCodeAt(kept) - 48);
    if (next > MAX_DURATION) break;
    value = next;
    kept++;
  }
  return digits.slice(0, kept);
}

/** The duration in nanoseconds, or undefined when the text is not one (Go's error). */
export function parseGoDuration(text: string): bigint | undefined {
  let at = 0;
  let negative = false;
  if (text[at] === '-' || text[at] === '+') negative = text[at++] === '-';
  if (text.slice(at) === '0') return 0n;
  if (at === text.length) return undefined;
  let total = 0n;
  while (at < text.length) {
    const wholeStart = at;
    while (isDigit(text.charCodeAt(at))) at++;
    const whole = text.slice(wholeStart, at);
    let fraction = '';
    if (text[at] === '.') {
      const fractionStart = ++at;
      while (isDigit(text.charCodeAt(at))) at++;
      fraction = text.slice(fractionStart, at);
    }
    if (whole === '' && fraction === '') return undefined;
    // More digits than an int64 holds overflow, as in Go; of a fraction, Go keeps the digits an int64 holds.
    if (whole.replace(/^0+/, '').length > 19) return undefined;
    fraction = leadingFraction(fraction);
    const unitStart = at;
    while (at < text.length && text[at] !== '.' && !isDigit(text.charCodeAt(at))) at++;
    const unit = UNITS[text.slice(unitStart, at)];
    if (unit === undefined) return undefined;
    total += BigInt(whole || '0') * unit;
    // In floating point, as Go adds a fraction.
    if (fraction !== '') total += BigInt(Math.trunc(Number(fraction) * (Number(unit) / 10 ** fraction.length)));
    if (total > MAX_DURATION) return undefined;
  }
  return negative ? -total : total;
}
