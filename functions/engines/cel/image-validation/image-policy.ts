// An ImageValidatingPolicy's image part as the CEL engine runs it (Kyverno's policies.kyverno.io
// ImageValidatingPolicy): which images it judges (matchImageReferences), where they are (the default
// extractors and its own), its attestors and attestations, and what the image functions of one evaluation
// need to see: the policy in progress and what its calls verified (required).
import type { AttestorSetSpec } from '../../../admission/image-verification/image-check.js';
import { ambient, currentEvaluation } from '../../runtime/evaluation.js';
import { re2Matches } from '../../runtime/re2.js';
import type { CelProgram } from '../program.js';

/** An attestor as CEL holds it (`attestors.<name>`, type imageverify.attestor): opaque, passed to the functions. */
export class Attestor {
  constructor(
    readonly name: string,
    /** Told apart from every other attestor read, so one image verified by it is verified once per request. */
    readonly id: string,
    readonly set: AttestorSetSpec,
  ) {}
}

/** An attestation the policy names: an in-toto statement's predicate type. */
export interface Attestation {
  name: string;
  predicateType: string;
}

export interface ImageExtractor {
  name: string;
  program: CelProgram;
}

export interface ImageException {
  name: string;
  matchConditions: { name: string; program: CelProgram }[];
}

export interface ImagePolicy {
  /** `glob` patterns as anchored RE2 patterns, and `expression`s over `ref`: an image any of them selects is judged. */
  globs: readonly string[];
  referenceExpressions: readonly CelProgram[];
  extractors: readonly ImageExtractor[];
  attestors: ReadonlyMap<string, Attestor>;
  attestations: ReadonlyMap<string, Attestation>;
  verifyDigest: boolean;
  required: boolean;
  /** The policy's failurePolicy Ignore: an error in its (or an exception's) matchConditions means no match. */
  ignoresMatchConditionErrors: boolean;
  exceptions: readonly ImageException[];
}

/** What one evaluation of the policy verified: each image its calls checked, and whether an attestor verified it. */
export interface ImageEvaluation {
  policy: ImagePolicy;
  /** Images checked by a call with attestors: true once one attestor verified the image. */
  verified: Map<string, boolean>;
  /** Statements of verified attestations, by image and predicate type (extractPayload). */
  statements: Map<string, unknown>;
}

const evaluation = ambient<ImageEvaluation>();
export const currentImageEvaluation = evaluation.current;
export const withImageEvaluation = evaluation.with;

/** Whether matchImageReferences selects `image` (every image, when it names none), as Kyverno's MatchImage. */
export function selectsImage(policy: ImagePolicy, image: string): boolean {
  if (policy.globs.length === 0 && policy.referenceExpressions.length === 0) return true;
  if (policy.globs.some((pattern) => re2Matches(image, pattern))) return true;
  return policy.referenceExpressions.some((program) => {
    const selected = program.run({ ref: image }, currentEvaluation()?.budget);
    if (typeof selected !== 'boolean')
      throw new Error(`matchImageReferences: ${program.source}: returned ${typeof selected}, expected a bool`);
    return selected;
  });
}

/**
 * A glob as gobwas/glob reads it without separators (Kyverno compiles matchImageReferences so): `*` any run
 * of characters, `/` included, `?` one, `[abc]`, `[a-z]`, `[!abc]` a class, `{a,b}` alternatives, `\` escapes;
 * as an anchored RE2 pattern, matched in linear time. Undefined when the glob is malformed.
 */
export function globPattern(glob: string): string | undefined {
  let pattern = '';
  let braces = 0;
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === '\\') {
      const next = glob[++index];
      if (next === undefined) return undefined;
      pattern += escapeRe2(next);
    } else if (char === '*') pattern += '.*';
    else if (char === '?') pattern += '.';
    else if (char === '[') {
      const close = glob.indexOf(']', index + 2);
      if (close < 0) return undefined;
      const body = glob.slice(index + 1, close);
      const negated = body.startsWith('!');
      const members = (negated ? body.slice(1) : body).replace(/[\\\]^[]/g, (special) => `\\${special}`);
      pattern += `[${negated ? '^' : ''}${members}]`;
      index = close;
    } else if (char === '{') {
      braces++;
      pattern += '(?:';
    } else if (char === '}' && braces > 0) {
      braces--;
      pattern += ')';
    } else if (char === ',' && braces > 0) pattern += '|';
    else pattern += escapeRe2(char);
  }
  return braces === 0 ? `^(?:${pattern})$` : undefined;
}

const escapeRe2 = (char: string) => (/[.*+?^${}()|[\]\\/-]/.test(char) ? `\\${char}` : char);
