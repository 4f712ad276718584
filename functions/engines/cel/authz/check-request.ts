// The request an authorization policy judges, as Kyverno's authz engine hands it to CEL. Envoy's CheckRequest
// is a protocol buffer read from protojson: its fields answer under their proto names (`context_extensions`)
// whichever JSON name they were written with, an unset field has its default (an empty string, map or
// message), and an unknown field is an error, as protojson's is. The HTTP CheckRequest is a Go struct read
// with encoding/json: unset fields are empty, unknown ones ignored.

type Shape = 'string' | 'int' | 'bool' | 'map' | 'any' | { readonly [field: string]: Shape };

const PEER: Shape = { address: 'any', service: 'string', labels: 'map', principal: 'string', certificate: 'string' };
const METADATA: Shape = { filter_metadata: 'map', typed_filter_metadata: 'map' };
const HTTP_REQUEST: Shape = {
  id: 'string',
  method: 'string',
  headers: 'map',
  header_map: 'any',
  path: 'string',
  host: 'string',
  scheme: 'string',
  query: 'string',
  fragment: 'string',
  size: 'int',
  protocol: 'string',
  body: 'string',
  raw_body: 'string',
};
const ENVOY_CHECK_REQUEST: Shape = {
  attributes: {
    source: PEER,
    destination: PEER,
    request: { time: 'any', http: HTTP_REQUEST },
    context_extensions: 'map',
    metadata_context: METADATA,
    route_metadata_context: METADATA,
    tls_session: { sni: 'string' },
  },
};

const camel = (name: string) => name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
const DEFAULTS = { string: '', int: 0n, bool: false } as const;

function read(value: unknown, shape: Shape, path: string): unknown {
  if (shape === 'any') return value ?? null;
  if (typeof shape === 'string') {
    if (value === undefined || value === null) return shape === 'map' ? {} : DEFAULTS[shape];
    if (shape === 'map') {
      if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${path}: expected an object`);
      return value;
    }
    if (shape === 'int') {
      if (typeof value === 'number' || (typeof value === 'string' && /^-?\d+$/.test(value))) return BigInt(value);
      throw new Error(`${path}: expected an integer`);
    }
    if (typeof value !== shape) throw new Error(`${path}: expected a ${shape}`);
    return value;
  }
  if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value)))
    throw new Error(`${path}: expected an object`);
  const given = (value ?? {}) as Record<string, unknown>;
  const known = new Set(Object.keys(shape).flatMap((name) => [name, camel(name)]));
  const unknown = Object.keys(given).find((name) => !known.has(name));
  if (unknown !== undefined) throw new Error(`${path ? `${path}.` : ''}${unknown}: not a field of Envoy's CheckRequest`);
  return Object.fromEntries(
    Object.entries(shape).map(([name, inner]) => [name, read(given[name] ?? given[camel(name)], inner, path ? `${path}.${name}` : name)]),
  );
}

/** An Envoy CheckRequest from its protojson, as CEL reads the message; throws naming the field that is wrong. */
export const envoyCheckRequest = (json: unknown): unknown => read(json, ENVOY_CHECK_REQUEST, '');

const HTTP_ATTRIBUTES = ['method', 'header', 'host', 'protocol', 'contentLength', 'body', 'scheme', 'path', 'query', 'fragment'];

/** Kyverno's HTTP CheckRequest from its JSON: `attributes` with every field, the unset ones empty. */
export function httpCheckRequest(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('expected a JSON object');
  const attributes = ((json as { attributes?: unknown }).attributes ?? {}) as Record<string, unknown>;
  if (typeof attributes !== 'object' || Array.isArray(attributes)) throw new Error('attributes: expected an object');
  const empty = (name: string) => (name === 'header' || name === 'query' ? {} : name === 'contentLength' ? 0n : '');
  return {
    ...json,
    attributes: Object.fromEntries(HTTP_ATTRIBUTES.map((name) => [name, attributes[name] ?? empty(name)])),
  };
}
