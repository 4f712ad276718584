// Every built-in the engine has, by name, as OPA's topdown registers them: one list per category; and the
// built-ins it refuses, with the reason, so a policy that calls one is refused at upload, not at a request.
import { AGGREGATES } from './aggregates.js';
import type { Builtin } from './builtin.js';
import { COLLECTIONS } from './collections.js';
import { COMPARISON } from './comparison.js';
import { CRYPTO } from './crypto.js';
import { ENCODING } from './encoding.js';
import { GLOB_INTERSECTION } from './glob-intersection.js';
import { GRAPH } from './graph.js';
import { GRAPHQL } from './graphql.js';
import { JSON_PATCH } from './json-patch.js';
import { JSON_PATHS } from './json-paths.js';
import { JSON_SCHEMA } from './json-schema.js';
import { NET } from './net.js';
import { NUMBERS } from './numbers.js';
import { REGEX } from './regex.js';
import { REGO } from './rego.js';
import { SEMVER } from './semver.js';
import { STRINGS } from './strings.js';
import { TEMPLATE_STRINGS } from './template-string.js';
import { TIME } from './time.js';
import { TOKENS } from './tokens.js';
import { TYPES } from './types.js';
import { UNITS_BUILTINS } from './units.js';
import { UUID } from './uuid.js';
import { X509 } from './x509.js';

export const BUILTINS: ReadonlyMap<string, Builtin> = new Map(
  [
    ...COMPARISON,
    ...NUMBERS,
    ...NET,
    ...AGGREGATES,
    ...STRINGS,
    ...TEMPLATE_STRINGS,
    ...TYPES,
    ...COLLECTIONS,
    ...REGEX,
    ...GLOB_INTERSECTION,
    ...ENCODING,
    ...JSON_PATHS,
    ...JSON_PATCH,
    ...JSON_SCHEMA,
    ...UNITS_BUILTINS,
    ...SEMVER,
    ...TIME,
    ...GRAPH,
    ...GRAPHQL,
    ...CRYPTO,
    ...X509,
    ...TOKENS,
    ...UUID,
    ...REGO,
  ].map((builtin) => [builtin.name, builtin]),
);

const OUTSIDE = 'reaches outside the evaluation, which sees only the request and its parameters';

/** OPA's built-ins a policy may not call here, and why: the upload error names them. */
export const REFUSED_BUILTINS: ReadonlyMap<string, string> = new Map([
  ['http.send', `${OUTSIDE} (an HTTP request)`],
  ['net.lookup_ip_addr', `${OUTSIDE} (a DNS lookup)`],
  ['opa.runtime', `${OUTSIDE} (OPA's runtime configuration and environment)`],
  ['providers.aws.sign_req', `${OUTSIDE} (signing with credentials)`],
  [
    'external_data',
    `${OUTSIDE} (Gatekeeper's external data providers; to verify image signatures as Ratify does, write a Kyverno verifyImages rule, an ImageValidatingPolicy or a Sigstore ClusterImagePolicy)`,
  ],
]);

/** OPA's built-ins not implemented here (docs/rego.md): a policy that calls one is refused, saying so. */
export const NOT_IMPLEMENTED_BUILTINS: ReadonlySet<string> = new Set([
  'cast_array',
  'cast_boolean',
  'cast_null',
  'cast_object',
  'cast_set',
  'cast_string',
]);
