// Kubernetes' URL library for CEL (k8s.io/apiserver/pkg/cel/library/urls.go): an absolute URI or an
// absolute path, and its parts as Go's net/url gives them.
import type { CelLibrary } from '../cel-library.js';
import { accepts } from '../accepts.js';

export class Url {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly query: string,
  ) {}
}

const ABSOLUTE_URI = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$/;
const ABSOLUTE_PATH = /^(\/[^?#]*)(?:\?([^#]*))?(?:#.*)?$/;

export function parseUrl(text: string): Url {
  const uri = ABSOLUTE_URI.exec(text);
  if (uri) {
    const host = uri[2]!.replace(/^[^@]*@/, '');
    if (/\s/.test(text) || (host.startsWith('[') && !/^\[[0-9A-Fa-f:.]+\](:\d*)?$/.test(host)))
      throw new Error(`URL parse error: ${JSON.stringify(text)}`);
    return new Url(uri[1]!.toLowerCase(), host, uri[3]!, uri[4] ?? '');
  }
  const path = ABSOLUTE_PATH.exec(text);
  if (path && !/\s/.test(text)) return new Url('', '', path[1]!, path[2] ?? '');
  throw new Error(`URL must be an absolute URI or an absolute path: ${JSON.stringify(text)}`);
}

function hostname(url: Url): string {
  if (url.host.startsWith('[')) return url.host.slice(1, url.host.indexOf(']'));
  return url.host.replace(/:\d*$/, '');
}

function port(url: Url): string {
  const match = /:(\d*)$/.exec(url.host.startsWith('[') ? url.host.slice(url.host.indexOf(']') + 1) : url.host);
  return match?.[1] ?? '';
}

/** The query as Go's url.Values: each key's values in order; a key without `=` has the value "". */
function query(url: Url): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const part of url.query.split('&')) {
    if (part === '') continue;
    const [key, value = ''] = part.split(/=(.*)/s) as [string, string?];
    const decode = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
    const list = values.get(decode(key)) ?? [];
    list.push(decode(value));
    values.set(decode(key), list);
  }
  return values;
}

export const urlLibrary: CelLibrary = {
  name: 'kubernetes.urls',
  types: {
    URL: Url,
  },
  functions: {
    'url(string): URL': parseUrl,
    'isURL(string): bool': accepts(parseUrl),
    'URL.getScheme(): string': (url: Url) => url.scheme,
    'URL.getHost(): string': (url: Url) => url.host,
    'URL.getHostname(): string': hostname,
    'URL.getPort(): string': port,
    'URL.getEscapedPath(): string': (url: Url) => url.path,
    'URL.getQuery(): map<string, list<string>>': query,
  },
};
