// Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity) such as `500m`, `1.5Gi`, `2e3`,
// exact to the nano unit (resource.Quantity rounds up to it as well): for CEL's quantity library and
// Kyverno's patterns and conditions alike.

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
// Digits, an optional fraction, a suffix: no two parts can take the same characters, so matching is linear
// (a pattern where they could backtracked quadratically on a long run of digits).
const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;
export const NANO = 1_000_000_000n;
export const MAX_INT64 = (1n << 63n) - 1n;

export class Quantity {
  /** The value in nano units, rounded up as Kubernetes rounds. */
  constructor(readonly nanos: bigint) {}
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator !== 0n && numerator > 0n ? quotient + 1n : quotient;
}

/** The quantity's value in nano units, or undefined for text that is not one (no exception: callers try many texts). */
export function quantityNanos(text: string): bigint | undefined {
  const parsed = QUANTITY.exec(text);
  if (!parsed || (!parsed[2] && !parsed[3])) return undefined;
  try {
    return parseQuantity(text).nanos;
  } catch {
    return undefined; // an exponent out of range
  }
}

export function parseQuantity(text: string): Quantity {
  const parsed = QUANTITY.exec(text);
  const [, signText = '', whole = '', fraction = '', suffix = ''] = parsed ?? [];
  if (!parsed || (whole === '' && fraction === ''))
    throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${JSON.stringify(text)}`);
  const sign = signText === '-' ? -1n : 1n;
  let numerator = BigInt(`${whole || '0'}${fraction}`) * sign * NANO;
  let denominator = 10n ** BigInt(fraction.length);
  if (BINARY[suffix]) numerator *= BINARY[suffix]!;
  else {
    // `E` alone is exa; followed by digits it is an exponent.
    const exponent = /^[eE][+-]?\d/.test(suffix) ? Number(suffix.slice(1)) : DECIMAL[suffix]!;
    if (Math.abs(exponent) > 1000) throw new Error(`quantity exponent out of range: ${text}`);
    if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
    else denominator *= 10n ** BigInt(-exponent);
  }
  return new Quantity(ceilDiv(numerator, denominator));
}
