// An ImageValidatingPolicy's fields as the cel function's `imageValidation` parameter (its format writes them
// as the policy does), checked and compiled as the document is validated: its CEL lists in the policy's own
// environment (images, attestors, attestations, and Kyverno's image verification functions), its cosign
// attestors read as Kyverno's verifyImages attestor entries are (attestor-entries.ts), with Kyverno's
// defaults (verifyDigest and required true). What is not run here yet is refused with the reason, never skipped.
import { attestorSet, isObject, REFUSED, unread, type Written } from '../../../admission/image-verification/attestor-entries.js';
import * as v from '../../../admission/schema.js';
import { environmentWith } from '../environment.js';
import { celExpressionSchema } from '../expression-schema.js';
import { kyvernoImageVerifyLibrary } from '../libraries/kyverno-imageverify/library.js';
import { celListEntries } from '../cel-lists.js';
import type { Environment } from '@marcbachmann/cel-js';
import { type Attestation, Attestor, globPattern, type ImagePolicy } from './image-policy.js';

// Made when the first policy is read: most bundles have none.
let policyEnvironment: { name: string; env: Environment } | undefined;
let referenceEnvironment: { name: string; env: Environment } | undefined;

/** The policy's CEL environment: admission's, with images, attestors, attestations and the verification functions. */
function imagePolicyEnvironment() {
  if (!policyEnvironment) {
    const env = environmentWith([kyvernoImageVerifyLibrary]);
    for (const name of ['images', 'attestors', 'attestations']) env.registerVariable(name, 'dyn');
    policyEnvironment = { name: 'image-validating-policy', env };
  }
  return policyEnvironment;
}

/** matchImageReferences' expressions: one variable, `ref`, the image as written (Kyverno's NewMatchImageEnv). */
function imageReferenceEnvironment() {
  if (!referenceEnvironment) {
    const env = environmentWith([]);
    env.registerVariable('ref', 'string');
    referenceEnvironment = { name: 'image-reference', env };
  }
  return referenceEnvironment;
}

let attestorsRead = 0;
const COSIGN_FIELDS = new Set(['key', 'keyless', 'certificate', 'source', 'ctlog', 'tuf', 'annotations']);
const KEY_FIELDS = new Set(['data', 'kms', 'hashAlgorithm', 'expression']);
const CTLOG_FIELDS = new Set(['url', 'rekorPubKey', 'ctLogPubKey', 'tsaCertChain', 'insecureIgnoreTlog', 'insecureIgnoreSCT']);

const CERTIFICATE_FIELDS = new Set(['cert', 'certChain']);
const VALUE_FIELDS = new Set(['value', 'expression']);

/** A certificate attestor's `cert` or `certChain`: its value; an expression is refused with the reason. */
function certificateValue(certificate: Written, field: string, at: string, problems: string[]): unknown {
  const written = certificate[field];
  if (written === undefined) return undefined;
  if (!isObject(written)) {
    problems.push(`${at}.${field}: expected {value: <PEM>}`);
    return undefined;
  }
  unread(written, VALUE_FIELDS, `${at}.${field}`, problems);
  if (written.expression !== undefined)
    problems.push(`${at}.${field}.expression: ${REFUSED}: certificates are read from the policy's PEM (value) only`);
  return written.value;
}

/**
 * A cosign attestor as Kyverno's verifyImages attestor entries write it, so one reader judges both: a key
 * (`keys`), keyless identities (one entry each, any of them enough), or a certificate (`certificates`), with
 * the transparency log required against Sigstore's public keys unless `ctlog` names others or ignores it.
 */
function cosignEntries(cosign: Written, at: string, problems: string[]): Written[] {
  unread(cosign, COSIGN_FIELDS, at, problems);
  for (const [field, why] of [
    ['source', 'signatures kept in another repository are not read yet'],
    ['tuf', "a TUF root is not read: name a private Sigstore's keys in ctlog and keyless.roots"],
  ] as const)
    if (cosign[field] !== undefined) problems.push(`${at}.${field}: ${REFUSED}: ${why}`);
  const ctlog = cosign.ctlog;
  if (ctlog !== undefined && !isObject(ctlog)) problems.push(`${at}.ctlog: expected an object`);
  const log = isObject(ctlog) ? ctlog : undefined;
  if (log) unread(log, CTLOG_FIELDS, `${at}.ctlog`, problems);
  // As Kyverno: a ctlog block names its Rekor; without one, Sigstore's public logs are read offline.
  if (log && (typeof log.url !== 'string' || log.url === '')) problems.push(`${at}.ctlog.url: rekor URL must be provided`);
  const rekor = log ? { url: log.url, pubkey: log.rekorPubKey, ignoreTlog: log.insecureIgnoreTlog } : undefined;
  const ctlogEntry = log ? { ignoreSCT: log.insecureIgnoreSCT, pubkey: log.ctLogPubKey, tsaCertChain: log.tsaCertChain } : undefined;
  const annotations = cosign.annotations === undefined ? {} : { annotations: cosign.annotations };
  const kinds = ['key', 'keyless', 'certificate'].filter((kind) => cosign[kind] !== undefined);
  if (kinds.length !== 1) {
    problems.push(`${at}: expected exactly one of key, keyless or certificate`);
    return [];
  }
  if (isObject(cosign.key)) {
    unread(cosign.key, KEY_FIELDS, `${at}.key`, problems);
    if (log?.tsaCertChain !== undefined) problems.push(`${at}.ctlog.tsaCertChain: ${REFUSED}: signed timestamps are not read yet`);
    for (const field of ['kms', 'expression'])
      if (cosign.key[field] !== undefined)
        problems.push(`${at}.key.${field}: ${REFUSED}: keys are read from the policy's PEM (key.data) only`);
    const hashAlgorithm =
      cosign.key.hashAlgorithm === undefined || cosign.key.hashAlgorithm === '' ? {} : { signatureAlgorithm: cosign.key.hashAlgorithm };
    return [{ keys: { publicKeys: cosign.key.data, ...hashAlgorithm, ...(rekor ? { rekor } : {}) }, ...annotations }];
  }
  if (isObject(cosign.keyless)) {
    const { identities, roots, ...others } = cosign.keyless;
    unread(others, new Set(), `${at}.keyless`, problems);
    if (!Array.isArray(identities) || identities.length === 0) {
      problems.push(`${at}.keyless.identities: expected one or more identities`);
      return [];
    }
    return identities.map((identity) => ({
      keyless: {
        ...(isObject(identity) ? identity : {}),
        ...(roots !== undefined ? { roots } : {}),
        ...(rekor ? { rekor } : {}),
        ...(ctlogEntry ? { ctlog: ctlogEntry } : {}),
      },
      ...annotations,
    }));
  }
  if (isObject(cosign.certificate)) {
    const where = `${at}.certificate`;
    unread(cosign.certificate, CERTIFICATE_FIELDS, where, problems);
    const cert = certificateValue(cosign.certificate, 'cert', where, problems);
    const certChain = certificateValue(cosign.certificate, 'certChain', where, problems);
    const certificates = {
      ...(cert !== undefined ? { cert } : {}),
      ...(certChain !== undefined ? { certChain } : {}),
      ...(rekor ? { rekor } : {}),
      ...(ctlogEntry ? { ctlog: ctlogEntry } : {}),
    };
    return [{ certificates, ...annotations }];
  }
  problems.push(`${at}.${kinds[0]}: expected an object`);
  return [];
}

/** An attestor or attestation written with its name and only the fields `known`, or undefined after saying why not. */
function namedEntry(written: unknown, at: string, what: string, known: readonly string[], problems: string[]) {
  if (!isObject(written) || typeof written.name !== 'string' || written.name === '') {
    problems.push(`${at}.name: expected the ${what}'s name`);
    return undefined;
  }
  unread(written, new Set(['name', ...known]), at, problems);
  return written as Written & { name: string };
}

function attestorOf(entry: unknown, index: number, problems: string[]): Attestor | undefined {
  const at = `attestors[${index}]`;
  const written = namedEntry(entry, at, 'attestor', ['cosign', 'notary'], problems);
  if (!written) return undefined;
  if (written.notary !== undefined) {
    problems.push(`${at}.notary: ${REFUSED}: Notary signatures are not verified yet (cosign's are)`);
    return undefined;
  }
  if (!isObject(written.cosign)) {
    problems.push(`${at}: expected cosign (or notary)`);
    return undefined;
  }
  const before = problems.length;
  const entries = cosignEntries(written.cosign, `${at}.cosign`, problems);
  // One attestor verifies an image when any of its entries does (a keyless attestor's identities).
  const set =
    entries.length > 0 && problems.length === before ? attestorSet({ count: 1, entries }, `${at}.cosign`, problems, undefined) : undefined;
  return set && problems.length === before ? new Attestor(written.name, `ivpol-attestor-${++attestorsRead}`, set) : undefined;
}

function attestationOf(entry: unknown, index: number, problems: string[]): Attestation | undefined {
  const at = `attestations[${index}]`;
  const written = namedEntry(entry, at, 'attestation', ['intoto', 'referrer'], problems);
  if (!written) return undefined;
  if (written.referrer !== undefined) {
    problems.push(`${at}.referrer: ${REFUSED}: OCI referrer artifacts are not read yet (cosign's in-toto attestations are)`);
    return undefined;
  }
  const type = isObject(written.intoto) ? written.intoto.type : undefined;
  if (typeof type !== 'string' || type === '') {
    problems.push(`${at}.intoto.type: expected the statement's predicate type`);
    return undefined;
  }
  return { name: written.name, predicateType: type };
}

const Named = v.pipe(v.string(), v.minLength(1));

/** The `imageValidation` parameter as read: its CEL lists (for celValidationOf) and its ImagePolicy. */
export type ImageValidationParameter = v.InferOutput<ReturnType<typeof imageValidationSchema>>;

/** The `imageValidation` parameter's fields; the result is the lists (for celValidationOf) and the ImagePolicy. */
export function imageValidationSchema() {
  const Expression = celExpressionSchema({ environment: imagePolicyEnvironment() });
  const ReferenceExpression = celExpressionSchema({ environment: imageReferenceEnvironment() });
  return v.pipe(
    v.strictObject({
      ...celListEntries(Expression),
      matchImageReferences: v.optional(
        v.array(
          v.pipe(
            v.strictObject({ glob: v.optional(v.string()), expression: v.optional(ReferenceExpression) }),
            v.check((entry) => (entry.glob === undefined) !== (entry.expression === undefined), 'expected one of glob or expression'),
          ),
        ),
        () => [],
      ),
      images: v.optional(v.array(v.strictObject({ name: Named, expression: Expression })), () => []),
      attestors: v.optional(v.array(v.unknown()), () => []),
      attestations: v.optional(v.array(v.unknown()), () => []),
      verifyDigest: v.optional(v.boolean(), true),
      required: v.optional(v.boolean(), true),
      failurePolicy: v.optional(v.picklist(['Ignore', 'Fail']), 'Fail'),
      exceptions: v.optional(
        v.array(
          v.strictObject({
            name: Named,
            matchConditions: v.optional(v.array(v.strictObject({ name: Named, expression: Expression })), () => []),
          }),
        ),
        () => [],
      ),
    }),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const { matchImageReferences, images, attestors, attestations, verifyDigest, required, failurePolicy, exceptions, ...lists } =
        dataset.value;
      const problems: string[] = [];
      const globs = matchImageReferences.flatMap(({ glob }, index) => {
        if (glob === undefined) return [];
        const pattern = globPattern(glob);
        if (pattern === undefined) problems.push(`matchImageReferences[${index}].glob: ${JSON.stringify(glob)} is not a glob`);
        return pattern === undefined ? [] : [pattern];
      });
      const readAttestors = attestors.map((written, index) => attestorOf(written, index, problems));
      const readAttestations = attestations.map((written, index) => attestationOf(written, index, problems));
      for (const [kind, named] of [
        ['attestors', readAttestors],
        ['attestations', readAttestations],
      ] as const) {
        const names = named.flatMap((item) => (item ? [item.name] : []));
        const twice = names.find((name, index) => names.indexOf(name) !== index);
        if (twice) problems.push(`${kind}: ${twice} is named twice`);
      }
      if (problems.length > 0) {
        for (const message of problems) addIssue({ message });
        return NEVER;
      }
      const policy: ImagePolicy = {
        globs,
        referenceExpressions: matchImageReferences.flatMap(({ expression }) => (expression ? [expression] : [])),
        extractors: images.map(({ name, expression }) => ({ name, program: expression })),
        attestors: new Map(readAttestors.map((attestor) => [attestor!.name, attestor!])),
        attestations: new Map(readAttestations.map((attestation) => [attestation!.name, attestation!])),
        verifyDigest,
        required,
        ignoresMatchConditionErrors: failurePolicy === 'Ignore',
        exceptions: exceptions.map(({ name, matchConditions }) => ({
          name,
          matchConditions: matchConditions.map((condition) => ({ name: condition.name, program: condition.expression })),
        })),
      };
      return { lists, policy };
    }),
  );
}
