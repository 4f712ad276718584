// Container image references, normalised the way the container runtime resolves them, so rules compare
// what will actually be pulled: `nginx:1` → `docker.io/library/nginx:1`, `bitnami/redis` → `docker.io/bitnami/redis`.
// Hand-written: the JS ports of distribution/reference are unmaintained, and the rules are the few below.
export interface ImageReference {
  /** Registry host, with port: `docker.io`, `192.168.64.1:5000`, `localhost`. */
  registry: string;
  /** Repository path under the registry: `library/nginx`. */
  repository: string;
  tag?: string;
  digest?: string;
  /** `registry/repository[:tag][@digest]`. */
  normalised: string;
}

const DOCKER_HUB = 'docker.io';
// distribution/reference's grammar, condensed: lowercase path components, an optional tag and digest.
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;
const HOST = /^(?:[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*|\[[a-fA-F0-9:]+\])(?::\d+)?$/;

/**
 * distribution/reference's splitDockerDomain, which the runtime pulls by: the first component names a host
 * when it has a `.` or `:`, is `localhost`, or has an uppercase letter (a path component cannot).
 */
function isRegistryHost(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost' || component !== component.toLowerCase();
}

/** The normalised reference, or undefined when `image` is not a valid reference. */
export function parseImageReference(image: string): ImageReference | undefined {
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return undefined;
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return undefined;
  }
  const components = rest.split('/');
  let registry = DOCKER_HUB;
  if (components.length > 1 && isRegistryHost(components[0]!)) {
    const written = components.shift()!;
    // Host names compare as DNS does, whatever their case; but only `docker.io` and `index.docker.io` as
    // written are Docker Hub to the runtime, so `Docker.io/nginx` is neither Docker Hub nor anything else here.
    registry = written.toLowerCase();
    if (!HOST.test(registry)) return undefined;
    if ((registry === DOCKER_HUB || registry === 'index.docker.io') && written !== registry) return undefined;
    if (registry === 'index.docker.io') registry = DOCKER_HUB;
  }
  if (registry === DOCKER_HUB && components.length === 1) components.unshift('library');
  if (!components.every((component) => PATH_COMPONENT.test(component))) return undefined;
  const repository = components.join('/');
  const normalised = `${registry}/${repository}${tag ? `:${tag}` : ''}${digest ? `@${digest}` : ''}`;
  return { registry, repository, tag, digest, normalised };
}

/**
 * True when `prefix` covers the reference at a component boundary: followed by `/`, `:`, `@` or the end,
 * so `192.168.64.1` covers `192.168.64.1:5000/nginx` but not `192.168.64.10/x`. A prefix that ends in `/`
 * already marks its boundary.
 */
export function startsAtBoundary(normalised: string, prefix: string): boolean {
  if (!normalised.startsWith(prefix)) return false;
  if (prefix.endsWith('/')) return true;
  const next = normalised.charAt(prefix.length);
  return next === '' || next === '/' || next === ':' || next === '@';
}
