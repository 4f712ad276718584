// AssignImage's view of an image string, as Gatekeeper's imageparser.go has it: a domain (the part before the
// first `/` when it has a `.` or `:` or is `localhost`), a path, and a tag (from the first `:` or `@` after the
// domain, the separator kept). A mutation replaces the parts it sets and keeps the others. The checks at
// upload are Gatekeeper's, which keep a mutation convergent: a part that held a separator would leak into its
// neighbour the next time round.
import { re2Pattern } from '../runtime/re2.js';

interface Image {
  domain: string;
  path: string;
  tag: string;
}

function splitDomain(name: string): [domain: string, remainder: string] {
  const slash = name.indexOf('/');
  if (slash === -1) return ['', name];
  const first = name.slice(0, slash);
  return /[.:]/.test(first) || first === 'localhost' ? [first, name.slice(slash + 1)] : ['', name];
}

function imageOf(reference: string): Image {
  const [domain, remainder] = splitDomain(reference);
  const separator = remainder.search(/[:@]/);
  return separator === -1
    ? { domain, path: remainder, tag: '' }
    : { domain, path: remainder.slice(0, separator), tag: remainder.slice(separator) };
}

export interface ImageParts {
  assignDomain?: string;
  assignPath?: string;
  assignTag?: string;
}

/** The image with the parts set replaced. */
export function mutatedImage(reference: string, { assignDomain, assignPath, assignTag }: ImageParts): string {
  const image = imageOf(reference);
  const domain = assignDomain || image.domain;
  return `${domain ? `${domain}/` : ''}${assignPath || image.path}${assignTag || image.tag}`;
}

// Gatekeeper's patterns, matched on RE2 as Go matches them.
const DOMAIN = String.raw`(^\w[\w\-_]*\.[\w\-_\.]*[\w](:\d+)?$)|(^localhost(:\d+)?$)`;
const PATH = `^[a-z0-9]+(?:(?:(?:[._/]|__|[-]*)[a-z0-9]+)+)?`;
const TAG = String.raw`(^:[\w][\w.-]{0,127}$)|(^@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}$)`;

/** Why the parts cannot make an image that converges, or undefined. */
export function imagePartsProblem({ assignDomain: domain, assignPath: path, assignTag: tag }: ImageParts): string | undefined {
  if (!domain && !path && !tag) return 'at least one of [assignDomain, assignPath, assignTag] must be set';
  if (domain && !re2Pattern(DOMAIN).matcher(domain).find())
    return `assignDomain ${JSON.stringify(domain)} does not match pattern ${DOMAIN}`;
  if (path) {
    const matcher = re2Pattern(PATH).matcher(path);
    if (!matcher.find() || matcher.group() !== path) return `assignPath ${JSON.stringify(path)} does not match pattern ${PATH}`;
  }
  if (tag && !re2Pattern(TAG).matcher(tag).find()) return `assignTag ${JSON.stringify(tag)} does not match pattern ${TAG}`;
  if (!domain && path && splitDomain(path)[0] !== '')
    return `assignDomain must be set if the first part of assignPath ${JSON.stringify(path)} can be interpretted as part of a domain`;
  return undefined;
}
