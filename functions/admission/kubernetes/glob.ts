// Shell-style globs (`*` any run, including `/`; `?` one character; the rest literal, whole string) as used
// in rules' match blocks, exemptImages and allowed label values. Matched by the two-pointer wildcard
// algorithm: on a mismatch only the last `*` is retried, one character further, so the work is at most
// |value| × |glob| steps with no backtracking stack and no compiled state to cache. A RegExp built from the
// glob backtracks exponentially (`*a*a*a*a*a*a*a*a*b` against 44 `a`s took seconds per request).
// Hand-written: glob libraries compile to RegExps too, and bring path semantics (`*` stopping at `/`) that
// Kubernetes names and usernames must not have.
export function matchesGlob(value: string, glob: string): boolean {
  let v = 0;
  let g = 0;
  let lastStar = -1; // position in the glob just after the last `*` seen
  let resumeAt = 0; // where in the value that `*` would take its next character from
  while (v < value.length) {
    const token = glob.charCodeAt(g);
    if (token === STAR) {
      lastStar = ++g;
      resumeAt = v;
    } else if (g < glob.length && (token === QUESTION_MARK || token === value.charCodeAt(v))) {
      g++;
      v++;
    } else if (lastStar !== -1) {
      g = lastStar;
      v = ++resumeAt;
    } else {
      return false;
    }
  }
  while (glob.charCodeAt(g) === STAR) g++;
  return g === glob.length;
}

const STAR = 42; // '*'
const QUESTION_MARK = 63; // '?'

export function matchesAnyGlob(value: string, globs: readonly string[]): boolean {
  return globs.some((glob) => matchesGlob(value, glob));
}
