// Kyverno's HTTP authorization library for CEL (kyverno-authz pkg/cel/libs/authz/http), for ValidatingPolicies
// in HTTP mode: `http.Allowed()` and `http.Denied(reason)` and their `.Response()`, beside Kyverno's http.Get
// and http.Post on the same `http`; and the request's headers and query parameters by name.
import type { CelLibrary } from '../libraries/cel-library.js';

export class HttpAllowed {}

export class HttpDenied {
  constructor(readonly reason: string) {}
}

export class HttpCheckResponse {
  constructor(readonly response: HttpAllowed | HttpDenied) {}
}

/** Go's textproto canonical form, which header lookups use: `x-forwarded-for` is `X-Forwarded-For`. */
const canonical = (name: string) =>
  name.toLowerCase().replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());

function valuesNamed(entries: unknown, name: string, fold: (key: string) => string): string[] {
  if (typeof entries !== 'object' || entries === null) return [];
  const wanted = fold(name);
  const values = entries instanceof Map ? [...entries] : Object.entries(entries);
  return values
    .filter(([key]) => fold(String(key)) === wanted)
    .flatMap(([, value]) => (Array.isArray(value) ? value.map(String) : [String(value)]));
}

type Attributes = Record<string, unknown> | Map<string, unknown>;
const field = (attributes: Attributes, name: string) => (attributes instanceof Map ? attributes.get(name) : attributes[name]);

export const httpAuthzLibrary: CelLibrary = {
  name: 'kyverno.authz.http',
  types: { 'httpauthz.Allowed': HttpAllowed, 'httpauthz.Denied': HttpDenied, 'httpauthz.CheckResponse': HttpCheckResponse },
  functions: {
    'http.Allowed(): httpauthz.Allowed': () => new HttpAllowed(),
    'http.Denied(string): httpauthz.Denied': (_http: unknown, reason: string) => new HttpDenied(reason),
    // dyn, as envoy's Response(): a validation may give it or null.
    'httpauthz.Allowed.Response(): dyn': (allowed: HttpAllowed) => new HttpCheckResponse(allowed),
    'httpauthz.Denied.Response(): dyn': (denied: HttpDenied) => new HttpCheckResponse(denied),
    // The request's attributes are a map here: the methods are the map's.
    'map.Header(string): list<string>': (attributes: Attributes, name: string) => valuesNamed(field(attributes, 'header'), name, canonical),
    'map.QueryParam(string): list<string>': (attributes: Attributes, name: string) =>
      valuesNamed(field(attributes, 'query'), name, (key) => key),
  },
};
