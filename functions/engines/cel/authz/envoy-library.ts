// Kyverno's envoy library for CEL (kyverno-authz pkg/cel/libs/authz/envoy), for ValidatingPolicies in Envoy
// mode: the responses an external authorization check gives Envoy, built as its builders build them. Each
// builder returns a new value: CEL values are never changed in place.
import type { CelLibrary } from '../libraries/cel-library.js';

export class EnvoyHeader {
  constructor(
    readonly key: string,
    readonly value: string,
    readonly keepEmptyValue = false,
  ) {}
}

export class EnvoyQueryParameter {
  constructor(
    readonly key: string,
    readonly value: string,
  ) {}
}

/** An OkHttpResponse: the request goes on upstream, with the headers and query changes it carries. */
export class EnvoyOk {
  constructor(
    readonly headers: readonly EnvoyHeader[] = [],
    readonly headersToRemove: readonly string[] = [],
    readonly responseHeadersToAdd: readonly EnvoyHeader[] = [],
    readonly queryParametersToSet: readonly EnvoyQueryParameter[] = [],
    readonly queryParametersToRemove: readonly string[] = [],
  ) {}
  with(change: Partial<EnvoyOk>): EnvoyOk {
    const next = { ...this, ...change };
    return new EnvoyOk(
      next.headers,
      next.headersToRemove,
      next.responseHeadersToAdd,
      next.queryParametersToSet,
      next.queryParametersToRemove,
    );
  }
}

/** A DeniedHttpResponse: Envoy answers the client with this status, body and headers. */
export class EnvoyDenied {
  constructor(
    readonly code: number,
    readonly body = '',
    readonly headers: readonly EnvoyHeader[] = [],
  ) {}
}

/** A CheckResponse: status code 0 (OK) for an allowed request, 7 (PERMISSION_DENIED) for a denied one. */
export class EnvoyCheckResponse {
  constructor(
    readonly response: EnvoyOk | EnvoyDenied,
    readonly message = '',
    readonly metadata: unknown = null,
  ) {}
}

const header = (value: EnvoyHeader | string, text?: string) => (value instanceof EnvoyHeader ? value : new EnvoyHeader(value, text ?? ''));
const parameter = (value: EnvoyQueryParameter | string, text?: string) =>
  value instanceof EnvoyQueryParameter ? value : new EnvoyQueryParameter(value, text ?? '');

export const envoyLibrary: CelLibrary = {
  name: 'kyverno.authz.envoy',
  namespaces: [{ constant: 'envoy', type: 'envoyNamespace' }],
  types: {
    'envoy.HeaderValueOption': EnvoyHeader,
    'envoy.QueryParameter': EnvoyQueryParameter,
    'envoy.OkResponse': EnvoyOk,
    'envoy.DeniedResponse': EnvoyDenied,
    'envoy.CheckResponse': EnvoyCheckResponse,
  },
  functions: {
    'envoyNamespace.Allowed(): envoy.OkResponse': () => new EnvoyOk(),
    'envoyNamespace.Denied(int): envoy.DeniedResponse': (_envoy: unknown, code: bigint) => new EnvoyDenied(Number(code)),
    'envoyNamespace.Header(string, string): envoy.HeaderValueOption': (_envoy: unknown, key: string, value: string) =>
      new EnvoyHeader(key, value),
    'envoyNamespace.QueryParam(string, string): envoy.QueryParameter': (_envoy: unknown, key: string, value: string) =>
      new EnvoyQueryParameter(key, value),
    'envoy.HeaderValueOption.KeepEmptyValue(): envoy.HeaderValueOption': (option: EnvoyHeader) =>
      new EnvoyHeader(option.key, option.value, true),
    'envoy.HeaderValueOption.KeepEmptyValue(bool): envoy.HeaderValueOption': (option: EnvoyHeader, keep: boolean) =>
      new EnvoyHeader(option.key, option.value, keep),
    'envoy.OkResponse.WithHeader(envoy.HeaderValueOption): envoy.OkResponse': (ok: EnvoyOk, option: EnvoyHeader) =>
      ok.with({ headers: [...ok.headers, option] }),
    'envoy.OkResponse.WithHeader(string, string): envoy.OkResponse': (ok: EnvoyOk, key: string, value: string) =>
      ok.with({ headers: [...ok.headers, header(key, value)] }),
    'envoy.OkResponse.WithoutHeader(string): envoy.OkResponse': (ok: EnvoyOk, key: string) =>
      ok.with({ headersToRemove: [...ok.headersToRemove, key] }),
    'envoy.OkResponse.WithResponseHeader(envoy.HeaderValueOption): envoy.OkResponse': (ok: EnvoyOk, option: EnvoyHeader) =>
      ok.with({ responseHeadersToAdd: [...ok.responseHeadersToAdd, option] }),
    'envoy.OkResponse.WithResponseHeader(string, string): envoy.OkResponse': (ok: EnvoyOk, key: string, value: string) =>
      ok.with({ responseHeadersToAdd: [...ok.responseHeadersToAdd, header(key, value)] }),
    'envoy.OkResponse.WithQueryParam(envoy.QueryParameter): envoy.OkResponse': (ok: EnvoyOk, option: EnvoyQueryParameter) =>
      ok.with({ queryParametersToSet: [...ok.queryParametersToSet, option] }),
    'envoy.OkResponse.WithQueryParam(string, string): envoy.OkResponse': (ok: EnvoyOk, key: string, value: string) =>
      ok.with({ queryParametersToSet: [...ok.queryParametersToSet, parameter(key, value)] }),
    'envoy.OkResponse.WithoutQueryParam(string): envoy.OkResponse': (ok: EnvoyOk, key: string) =>
      ok.with({ queryParametersToRemove: [...ok.queryParametersToRemove, key] }),
    // dyn, not envoy.CheckResponse: cel-go lets null stand for a message (`cond ? ….Response() : null`) and
    // this engine's checker does not; the response's kind is checked when a validation gives it.
    'envoy.OkResponse.Response(): dyn': (ok: EnvoyOk) => new EnvoyCheckResponse(ok),
    'envoy.DeniedResponse.WithBody(string): envoy.DeniedResponse': (denied: EnvoyDenied, body: string) =>
      new EnvoyDenied(denied.code, body, denied.headers),
    'envoy.DeniedResponse.WithHeader(envoy.HeaderValueOption): envoy.DeniedResponse': (denied: EnvoyDenied, option: EnvoyHeader) =>
      new EnvoyDenied(denied.code, denied.body, [...denied.headers, option]),
    'envoy.DeniedResponse.WithHeader(string, string): envoy.DeniedResponse': (denied: EnvoyDenied, key: string, value: string) =>
      new EnvoyDenied(denied.code, denied.body, [...denied.headers, header(key, value)]),
    'envoy.DeniedResponse.Response(): dyn': (denied: EnvoyDenied) => new EnvoyCheckResponse(denied),
    'envoy.CheckResponse.WithMessage(string): envoy.CheckResponse': (response: EnvoyCheckResponse, message: string) =>
      new EnvoyCheckResponse(response.response, message, response.metadata),
    'envoy.CheckResponse.WithMetadata(map): envoy.CheckResponse': (response: EnvoyCheckResponse, metadata: unknown) =>
      new EnvoyCheckResponse(response.response, response.message, metadata),
  },
};
