// The hosts a deployment lets Kyverno CEL's http.Get and http.Post call (HTTP_CALL_HOSTS, from the
// httpCallHosts parameter: `host` or `host:port`, comma-separated), and the check of each call's URL
// against them, made when the call is (a policy may build its URL from the request).

interface AllowedHosts {
  hosts: ReadonlySet<string>;
  /** Entries that are not a host or host:port: every call is refused until the deployment's setting is fixed. */
  invalid: readonly string[];
}

/** `host:port` as a URL names it (lowercase, IPv6 in brackets, 443 when no port is given). */
const hostOf = (url: URL) => `${url.hostname}:${url.port || '443'}`;

function parseAllowedHosts(setting: string): AllowedHosts {
  const hosts = new Set<string>();
  const invalid: string[] = [];
  for (const entry of setting.split(',').map((part) => part.trim())) {
    if (!entry) continue;
    // Read as a URL reads a host, so that an entry and a call's URL are compared in the same form.
    let url: URL | undefined;
    try {
      if (/^[\w.\-[\]:]+$/.test(entry)) url = new URL(`https://${entry}`);
    } catch {
      url = undefined;
    }
    if (url?.hostname && url.pathname === '/') hosts.add(hostOf(url));
    else invalid.push(entry);
  }
  return { hosts, invalid };
}

// Read at import, as the functions read their configuration.
const ALLOWED = parseAllowedHosts(process.env.HTTP_CALL_HOSTS ?? '');

/** Whether the deployment allows calls to any host: then http.Get and http.Post compile. */
export const httpCallsAllowed = (): boolean => ALLOWED.hosts.size > 0 || ALLOWED.invalid.length > 0;

/** Why a call to `url` is not made, or undefined when the deployment allows it. */
export function callProblem(url: URL): string | undefined {
  const { hosts, invalid } = ALLOWED;
  if (invalid.length > 0)
    return `the deployment's HTTP_CALL_HOSTS has ${invalid.map((entry) => JSON.stringify(entry)).join(', ')}, which is not a host or host:port: no call is made until it is fixed`;
  if (url.protocol !== 'https:') return `${url.origin}: calls are made over HTTPS only`;
  if (url.username || url.password) return `${url.protocol}//${url.host}: a URL may not carry credentials`;
  const host = hostOf(url);
  if (!hosts.has(host)) return `${host} is not a host the deployment allows calls to (HTTP_CALL_HOSTS)`;
  return undefined;
}
