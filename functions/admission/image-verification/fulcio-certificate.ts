// What cosign and Go's certificate verification ask of a keyless signature's certificate beyond its chain,
// which sigstore-js does not check: it is for code signing (when it names its uses), it has no critical
// extension Go does not understand, it is one certificate and nothing else (so no other key can stand in
// for its own), and the identity it names is read from its own bytes: every DNS, email and URI SAN, Fulcio's
// username, and the OIDC issuer, each ASCII (sigstore-js drops a byte's high bit, so `team\xAFapp` would read as `team/app`).
// The issuer is in two extensions: cosign and Kyverno read .1.1, sigstore-js .1.8 first, Fulcio writes both
// alike. Where both are, they must agree, so the issuer judged here is the one each of them would judge;
// .1.8 alone is read (as Fulcio and sigstore-js read it; cosign and Kyverno then see no issuer).
import { X509Certificate } from '@sigstore/core';

const CODE_SIGNING = '1.3.6.1.5.5.7.3.3';
const ANY_USE = '2.5.29.37.0';
const EXTENDED_KEY_USAGE = '2.5.29.37';
const SUBJECT_ALT_NAME = '2.5.29.17';
const FULCIO_USERNAME = '1.3.6.1.4.1.57264.1.7';
const ISSUER_V1 = '1.3.6.1.4.1.57264.1.1';
const ISSUER_V2 = '1.3.6.1.4.1.57264.1.8';
/** Critical extensions Go's x509 handles; any other marked critical fails verification there. */
const UNDERSTOOD = new Set([
  '2.5.29.15',
  '2.5.29.19',
  SUBJECT_ALT_NAME,
  EXTENDED_KEY_USAGE,
  '2.5.29.30',
  '2.5.29.32',
  '2.5.29.35',
  '2.5.29.14',
]);
/** cosign's certificates are a few KB; a larger annotation is not read. */
const MAX_PEM_CHARACTERS = 16 * 1024;
const PEM = /^-----BEGIN CERTIFICATE-----\s*([A-Za-z0-9+/=\s]+?)\s*-----END CERTIFICATE-----$/;

export interface FulcioCertificate {
  der: Buffer;
  /** The certificate's public key, DER (SPKI). */
  publicKey: Buffer;
  /** Every DNS, email and URI SAN, in order, and Fulcio's username. */
  subjects: string[];
  issuer: string;
}

const ascii = (bytes: Buffer) => bytes.every((byte) => byte < 0x80);
const UTF8_STRING = 0x0c;

/** The OIDC issuer's bytes (none when the certificate names none), or why they cannot be trusted. */
function issuerOf(certificate: X509Certificate): Buffer | undefined | string {
  const v1 = certificate.extension(ISSUER_V1)?.value;
  const extension = certificate.extension(ISSUER_V2);
  let v2: Buffer | undefined;
  if (extension) {
    const [text, ...more] = extension.valueObj.subs;
    // As Fulcio's ParseDERString reads what Fulcio writes: one universal UTF8String, minimally encoded, nothing
    // after it (Go would take other string types too, which Fulcio never writes), no fallback to .1.1.
    const string = text?.tag.isUniversal() && text.tag.number === UTF8_STRING && !text.tag.constructed;
    if (!text || !string || more.length > 0 || !text.toDER().equals(extension.value))
      return `its certificate's OIDC issuer (${ISSUER_V2}) is not one UTF8String`;
    v2 = text.value;
  }
  if (v1 && v2 && !v1.equals(v2)) return `its certificate names two different OIDC issuers (${ISSUER_V1} and ${ISSUER_V2})`;
  return v2 ?? v1;
}

/** The certificate in the PEM text (exactly one, nothing else), read as cosign reads it, or why it cannot be used. */
export function fulcioCertificate(pem: string | undefined): FulcioCertificate | string {
  if (!pem) return 'it has no certificate (a keyless signature carries the one Fulcio issued)';
  if (pem.length > MAX_PEM_CHARACTERS) return `its certificate is more than ${MAX_PEM_CHARACTERS} characters`;
  const base64 = PEM.exec(pem.trim())?.[1];
  if (base64 === undefined) return 'its certificate annotation is not one PEM certificate and nothing else';
  const der = Buffer.from(base64.replace(/\s+/g, ''), 'base64');
  let certificate: X509Certificate;
  try {
    certificate = X509Certificate.parse(der);
  } catch (error) {
    return `its certificate does not parse: ${(error as Error).message}`;
  }
  const extensions = certificate.extensions.map((extension) => ({
    oid: extension.subs[0]!.toOID(),
    critical: extension.subs.length === 3 && extension.subs[1]!.toBoolean(),
  }));
  const unknown = extensions.find(({ oid, critical }) => critical && !UNDERSTOOD.has(oid));
  if (unknown) return `its certificate has a critical extension ${unknown.oid} that is not understood`;
  const uses = certificate.extension(EXTENDED_KEY_USAGE)?.valueObj.subs[0]?.subs.map((use) => use.toOID());
  if (uses && !uses.includes(CODE_SIGNING) && !uses.includes(ANY_USE)) return 'its certificate is not for code signing';
  // As Go's GetSubjectAlternateNames: DNS names, emails, URIs, and Fulcio's username (an other name).
  const generalNames = certificate.extension(SUBJECT_ALT_NAME)?.valueObj.subs[0]?.subs ?? [];
  const named = generalNames.flatMap((name) => {
    if ([0x01, 0x02, 0x06].some((tag) => name.tag.isContextSpecific(tag))) return [name.value];
    const otherName = name.tag.isContextSpecific(0x00) && name.subs[0]?.toOID() === FULCIO_USERNAME;
    return otherName && name.subs[1]?.subs[0] ? [name.subs[1].subs[0].value] : [];
  });
  const issuerBytes = issuerOf(certificate);
  if (typeof issuerBytes === 'string') return issuerBytes;
  if (!named.every(ascii) || (issuerBytes && !ascii(issuerBytes))) return "its certificate's identity is not ASCII";
  return {
    der,
    publicKey: certificate.publicKey,
    subjects: named.map((bytes) => bytes.toString('ascii')),
    issuer: issuerBytes?.toString('ascii') ?? '',
  };
}
