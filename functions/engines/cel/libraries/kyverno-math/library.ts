// Kyverno's math library for CEL: math.round.
import type { CelLibrary } from '../cel-library.js';

/** Go's math.Round(value × 10^precision) / 10^precision: halves round away from zero. */
function round(value: number, precision: bigint): number {
  const shift = 10 ** Number(precision);
  const scaled = value * shift;
  return (Math.sign(scaled) * Math.round(Math.abs(scaled))) / shift;
}

export const kyvernoMathLibrary: CelLibrary = {
  name: 'kyverno.math',
  kyvernoOnly: true,
  namespaces: [{ constant: 'math' }],
  functions: { 'math.round(double, int): double': (_namespace: unknown, value: number, precision: bigint) => round(value, precision) },
};
