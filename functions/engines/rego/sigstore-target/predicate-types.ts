// Predicate types as ClusterImagePolicies name them: cosign's short names (options.PredicateTypeMap), any
// other being the type's URI itself; and the seven of them policy-controller's webhook accepts (it refuses
// the others as unsupported). Read at upload by the format, and by the target when it runs.

/** cosign's short names and the URIs they stand for. */
export const PREDICATE_TYPES: Readonly<Record<string, string>> = {
  custom: 'https://cosign.sigstore.dev/attestation/v1',
  slsaprovenance: 'https://slsa.dev/provenance/v0.2',
  slsaprovenance02: 'https://slsa.dev/provenance/v0.2',
  slsaprovenance1: 'https://slsa.dev/provenance/v1',
  spdx: 'https://spdx.dev/Document',
  spdxjson: 'https://spdx.dev/Document',
  cyclonedx: 'https://cyclonedx.org/bom',
  link: 'https://in-toto.io/Link/v1',
  vuln: 'https://cosign.sigstore.dev/attestation/vuln/v1',
  openvex: 'https://openvex.dev/ns',
};

/** The short names policy-controller's ClusterImagePolicy validation accepts. */
export const POLICY_CONTROLLER_SHORT_NAMES: ReadonlySet<string> = new Set([
  'custom',
  'slsaprovenance',
  'spdx',
  'spdxjson',
  'cyclonedx',
  'link',
  'vuln',
]);
