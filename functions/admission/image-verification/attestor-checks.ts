// An attestor entry as the rules read it, turned into what verifies signatures with it: a key with the
// Rekor logs trusted, or a keyless identity with the certificate authorities, CT logs and Rekor logs trusted
// (what the policy names, else the deployment's Sigstore root: deployment-trust-root.ts) and its regular
// expressions compiled by RE2.
// Roots and patterns come from rules documents: each is made once and kept, bounded.
import type { TrustedRoot } from '@sigstore/protobuf-specs';
import type { RE2JS } from 're2js';
import { entryKind } from './attestor-entries.js';
import type { AttestorEntrySpec, AttestorSetSpec, KeyEntrySpec, KeylessEntrySpec } from './image-check.js';
import type { KeyCheck } from './key-verification.js';
import type { KeylessCheck, Pattern } from './keyless-verification.js';
import { certificateAuthorityRoot, ctlogKeyRoot, rekorKeyRoot } from './trusted-root.js';
import type { AttestorEntry, AttestorSet } from './verify-image.js';

const MAX_KEPT = 64;
const kept = new Map<string, TrustedRoot | Pattern>();

function keptOr<T extends TrustedRoot | Pattern>(key: string, make: () => T): T {
  let value = kept.get(key) as T | undefined;
  if (!value) {
    if (kept.size >= MAX_KEPT) kept.clear();
    kept.set(key, (value = make()));
  }
  return value;
}

/** A root made from what the policy names; the rule's schema read it when the rules were, so a failure here is a defect. */
function rootOf(kind: string, pem: string, make: (pem: string) => TrustedRoot | string): TrustedRoot {
  return keptOr(`${kind} ${pem}`, () => {
    const made = make(pem);
    if (typeof made === 'string') throw new Error(made);
    return made;
  });
}

const rekorLogs = (pem: string | undefined, deployment: TrustedRoot) => (pem ? rootOf('rekor', pem, rekorKeyRoot) : deployment).tlogs;

function patternOf(source: string, re2: typeof RE2JS): Pattern {
  return keptOr(`pattern ${source}`, () => {
    try {
      return { source, compiled: re2.compile(source) };
    } catch (error) {
      return { source, compiled: (error as Error).message };
    }
  });
}

function keyCheckOf(entry: KeyEntrySpec, deployment: TrustedRoot): KeyCheck {
  const logs = entry.transparencyLog ? rekorLogs(entry.transparencyLog.rekorPublicKey, deployment) : undefined;
  return {
    key: entry.key,
    ...(entry.validity ? { validity: entry.validity } : {}),
    signatureAlgorithm: entry.signatureAlgorithm,
    annotations: entry.annotations,
    ...(logs ? { transparencyLogs: { ...deployment, certificateAuthorities: [], ctlogs: [], timestampAuthorities: [], tlogs: logs } } : {}),
  };
}

function keylessCheckOf(entry: KeylessEntrySpec, re2: typeof RE2JS | undefined, deployment: TrustedRoot): KeylessCheck {
  const { keyless } = entry;
  const trust: TrustedRoot = {
    ...deployment,
    tlogs: rekorLogs(entry.transparencyLog.rekorPublicKey, deployment),
    certificateAuthorities: keyless.roots
      ? rootOf('roots', keyless.roots, certificateAuthorityRoot).certificateAuthorities
      : deployment.certificateAuthorities,
    ctlogs: keyless.ctlogPublicKey ? rootOf('ctlog', keyless.ctlogPublicKey, ctlogKeyRoot).ctlogs : deployment.ctlogs,
    timestampAuthorities: [],
  };
  const pattern = (source: string | undefined) => {
    if (source === undefined) return undefined;
    // needsRe2 names every entry with a pattern: without RE2 here, the identity would go unchecked.
    if (!re2) throw new Error('a keyless identity pattern reached verification without RE2 loaded');
    return patternOf(source, re2);
  };
  const subjectPattern = pattern(keyless.subjectRegExp);
  const issuerPattern = pattern(keyless.issuerRegExp);
  return {
    identity: {
      ...(keyless.subject !== undefined ? { subject: keyless.subject } : {}),
      ...(keyless.issuer !== undefined ? { issuer: keyless.issuer } : {}),
    },
    ...(subjectPattern ? { subjectPattern } : {}),
    ...(issuerPattern ? { issuerPattern } : {}),
    trust,
    sctRequired: keyless.requireSCT,
    annotations: entry.annotations,
  };
}

/** Whether any entry needs RE2 (a keyless identity by regular expression). */
export const needsRe2 = (sets: readonly AttestorSetSpec[]) =>
  sets.some((set) =>
    set.entries.some((entry) => 'keyless' in entry && (entry.keyless.subjectRegExp ?? entry.keyless.issuerRegExp) !== undefined),
  );

function entryOf(entry: AttestorEntrySpec, re2: typeof RE2JS | undefined, deployment: TrustedRoot): AttestorEntry {
  return {
    check: 'keyless' in entry ? keylessCheckOf(entry, re2, deployment) : keyCheckOf(entry, deployment),
    kind: entryKind(entry),
    ...(entry.repository ? { repository: entry.repository } : {}),
  };
}

/** The set's checks; what an entry does not name itself, it trusts as the deployment's root says. */
export const attestorSetOf = (set: AttestorSetSpec, re2: typeof RE2JS | undefined, deployment: TrustedRoot): AttestorSet => ({
  ...(set.count !== undefined ? { count: set.count } : {}),
  entries: set.entries.map((entry) => entryOf(entry, re2, deployment)),
});
