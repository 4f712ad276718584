// Shell-style globs (`*` any run, `?` one character) as used in rules' match blocks and exemptImages.
// Hand-written: the rules are two characters wide, and a glob library would bring path semantics
// (`*` stopping at `/`) that Kubernetes names and usernames must not have.
const cache = new Map<string, RegExp>();

function toRegExp(glob: string): RegExp {
  let regexp = cache.get(glob);
  if (!regexp) {
    const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    regexp = new RegExp(`^${body}$`, 's');
    cache.set(glob, regexp);
  }
  return regexp;
}

export function matchesGlob(value: string, glob: string): boolean {
  return toRegExp(glob).test(value);
}

export function matchesAnyGlob(value: string, globs: readonly string[]): boolean {
  return globs.some((glob) => matchesGlob(value, glob));
}
