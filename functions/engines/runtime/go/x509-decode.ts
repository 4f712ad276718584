// Certificates and certificate requests as the JSON of Go's x509.Certificate or x509.CertificateRequest, for
// Kyverno's x509_decode (RSA keys only, as Kyverno requires) and OPA's crypto.x509 built-ins (which read
// keys with x509-keys.ts): raw parts in base64, the algorithms as Go's enumeration numbers, names as
// pkix.Name, times in RFC 3339, and the extensions Go parses (key usage, basic constraints, key ids,
// alternative names, extended key usage, name constraints, CRL distribution points, authority information
// access, policies). An empty list is null, as Go marshals a nil slice.
import {
  bitStringOf,
  childrenOf,
  contentOf,
  type DerElement,
  DerError,
  integerOf,
  oidOf,
  readElement,
  stringOf,
  timeOf,
  wholeOf,
} from './der.js';
import { pemBlock } from './pem.js';
import { type Json, base64, orNull, oidText, extensionsOf } from './x509-extensions.js';

// crypto/x509's SignatureAlgorithm numbers, by the OID of the algorithm (RSA-PSS by its hash).
const SIGNATURE_ALGORITHMS: Record<string, number> = {
  '1.2.840.113549.1.1.2': 1,
  '1.2.840.113549.1.1.4': 2,
  '1.2.840.113549.1.1.5': 3,
  '1.3.14.3.2.29': 3,
  '1.2.840.113549.1.1.11': 4,
  '1.2.840.113549.1.1.12': 5,
  '1.2.840.113549.1.1.13': 6,
  '1.2.840.10040.4.3': 7,
  '2.16.840.1.101.3.4.3.2': 8,
  '1.2.840.10045.4.1': 9,
  '1.2.840.10045.4.3.2': 10,
  '1.2.840.10045.4.3.3': 11,
  '1.2.840.10045.4.3.4': 12,
  '1.3.101.112': 16,
};
const RSA_PSS = '1.2.840.113549.1.1.10';
const PSS_BY_HASH: Record<string, number> = { '2.16.840.1.101.3.4.2.1': 13, '2.16.840.1.101.3.4.2.2': 14, '2.16.840.1.101.3.4.2.3': 15 };
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';

// pkix.Name's fields by the attribute's OID under 2.5.4.
const NAME_FIELDS: Record<string, string> = {
  '6': 'Country',
  '10': 'Organization',
  '11': 'OrganizationalUnit',
  '7': 'Locality',
  '8': 'Province',
  '9': 'StreetAddress',
  '17': 'PostalCode',
};

function signatureAlgorithmOf(bytes: Uint8Array, algorithm: DerElement): number {
  const [oid, parameters] = childrenOf(bytes, algorithm);
  const id = oidText(oidOf(bytes, oid!));
  if (id !== RSA_PSS) return SIGNATURE_ALGORITHMS[id] ?? 0;
  // RSASSA-PSS-params: the hash is [0] AlgorithmIdentifier.
  const hash = parameters && childrenOf(bytes, parameters).find((child) => child.tag === 0xa0);
  const hashOid = hash && childrenOf(bytes, childrenOf(bytes, hash)[0]!)[0];
  return (hashOid && PSS_BY_HASH[oidText(oidOf(bytes, hashOid))]) ?? 0;
}

/** A SubjectPublicKeyInfo as Go's PublicKeyAlgorithm number and the JSON of its key. */
export type PublicKeyReader = (bytes: Uint8Array, spki: DerElement) => { PublicKeyAlgorithm: number; PublicKey: unknown };

/** The RSA key of a SubjectPublicKeyInfo, as Kyverno prints it; Kyverno refuses other algorithms. */
const kyvernoRsaKey: PublicKeyReader = (bytes, spki) => {
  const [algorithm, key] = childrenOf(bytes, spki);
  if (oidText(oidOf(bytes, childrenOf(bytes, algorithm!)[0]!)) !== RSA_ENCRYPTION) throw new Error('certificate should use rsa algorithm');
  const keyBytes = bitStringOf(bytes, key!).bytes;
  const [modulus, exponent] = childrenOf(keyBytes, readElement(keyBytes, 0));
  return { PublicKeyAlgorithm: 1, PublicKey: { N: integerOf(keyBytes, modulus!).toString(), E: Number(integerOf(keyBytes, exponent!)) } };
};

function nameOf(bytes: Uint8Array, name: DerElement): Json {
  const result: Json = { CommonName: '', SerialNumber: '', ExtraNames: null };
  const lists: Record<string, string[]> = {};
  const names: Json[] = [];
  for (const rdn of childrenOf(bytes, name)) {
    for (const attribute of childrenOf(bytes, rdn)) {
      const [type, value] = childrenOf(bytes, attribute);
      const oid = oidOf(bytes, type!);
      const text = stringOf(bytes, value!);
      names.push({ Type: oid, Value: text ?? base64(contentOf(bytes, value!)) });
      if (text === undefined || oid.length !== 4 || oid[0] !== 2 || oid[1] !== 5 || oid[2] !== 4) continue;
      const arc = String(oid[3]);
      if (arc === '3') result.CommonName = text;
      else if (arc === '5') result.SerialNumber = text;
      else if (NAME_FIELDS[arc]) (lists[NAME_FIELDS[arc]!] ??= []).push(text);
    }
  }
  for (const field of Object.values(NAME_FIELDS)) result[field] = lists[field] ?? null;
  result.Names = orNull(names);
  return result;
}

/** GeneralNames as Go sorts them: emails [1], DNS names [2], URIs [6], IP addresses [7]. */
const EMPTY_CERTIFICATE_FIELDS: Json = {
  KeyUsage: 0,
  ExtraExtensions: null,
  BasicConstraintsValid: false,
  IsCA: false,
  MaxPathLen: 0,
  MaxPathLenZero: false,
  SubjectKeyId: null,
  AuthorityKeyId: null,
  OCSPServer: null,
  IssuingCertificateURL: null,
  DNSNames: null,
  EmailAddresses: null,
  IPAddresses: null,
  URIs: null,
  PermittedDNSDomainsCritical: false,
  PermittedDNSDomains: null,
  ExcludedDNSDomains: null,
  PermittedIPRanges: null,
  ExcludedIPRanges: null,
  PermittedEmailAddresses: null,
  ExcludedEmailAddresses: null,
  PermittedURIDomains: null,
  ExcludedURIDomains: null,
  CRLDistributionPoints: null,
  PolicyIdentifiers: null,
};

/** The certificate starting at `at` in the DER bytes, as the JSON of Go's x509.Certificate. */
export function certificateJson(bytes: Uint8Array, readKey: PublicKeyReader, at = 0): Json {
  const certificate = readElement(bytes, at);
  const [tbs, algorithm, signature] = childrenOf(bytes, certificate);
  const fields = childrenOf(bytes, tbs!);
  const versioned = fields[0]!.tag === 0xa0;
  const version = versioned ? Number(integerOf(bytes, childrenOf(bytes, fields[0]!)[0]!)) + 1 : 1;
  const [serial, , issuer, validity, subject, spki, ...rest] = versioned ? fields.slice(1) : fields;
  const [notBefore, notAfter] = childrenOf(bytes, validity!);
  const result: Json = {
    Raw: base64(wholeOf(bytes, certificate)),
    RawTBSCertificate: base64(wholeOf(bytes, tbs!)),
    RawSubjectPublicKeyInfo: base64(wholeOf(bytes, spki!)),
    RawSubject: base64(wholeOf(bytes, subject!)),
    RawIssuer: base64(wholeOf(bytes, issuer!)),
    Signature: base64(bitStringOf(bytes, signature!).bytes),
    SignatureAlgorithm: signatureAlgorithmOf(bytes, algorithm!),
    ...readKey(bytes, spki!),
    Version: version,
    SerialNumber: Number(integerOf(bytes, serial!)),
    Issuer: nameOf(bytes, issuer!),
    Subject: nameOf(bytes, subject!),
    NotBefore: timeOf(bytes, notBefore!),
    NotAfter: timeOf(bytes, notAfter!),
    ...EMPTY_CERTIFICATE_FIELDS,
  };
  const extensions = rest.find((field) => field.tag === 0xa3);
  extensionsOf(bytes, extensions ? childrenOf(bytes, childrenOf(bytes, extensions)[0]!) : [], result);
  return result;
}

const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

/** A DER certificate request as the JSON of Go's x509.CertificateRequest. */
export function certificateRequestJson(bytes: Uint8Array, readKey: PublicKeyReader): Json {
  const request = readElement(bytes, 0);
  const [info, algorithm, signature] = childrenOf(bytes, request);
  const [version, subject, spki, attributes] = childrenOf(bytes, info!);
  const result: Json = {
    Raw: base64(wholeOf(bytes, request)),
    RawTBSCertificateRequest: base64(wholeOf(bytes, info!)),
    RawSubjectPublicKeyInfo: base64(wholeOf(bytes, spki!)),
    RawSubject: base64(wholeOf(bytes, subject!)),
    Version: Number(integerOf(bytes, version!)),
    Signature: base64(bitStringOf(bytes, signature!).bytes),
    SignatureAlgorithm: signatureAlgorithmOf(bytes, algorithm!),
    ...readKey(bytes, spki!),
    Subject: nameOf(bytes, subject!),
    Attributes: null,
    Extensions: null,
    ExtraExtensions: null,
    DNSNames: null,
    EmailAddresses: null,
    IPAddresses: null,
    URIs: null,
  };
  const requested = attributes ? childrenOf(bytes, attributes) : [];
  const extensionRequest = requested.find((attribute) => oidText(oidOf(bytes, childrenOf(bytes, attribute)[0]!)) === EXTENSION_REQUEST);
  if (extensionRequest) {
    const values = childrenOf(bytes, childrenOf(bytes, extensionRequest)[1]!);
    const extensions = values[0] ? childrenOf(bytes, values[0]) : [];
    const parsed: Json = {};
    extensionsOf(bytes, extensions, parsed);
    result.Extensions = parsed.Extensions;
    for (const key of ['DNSNames', 'EmailAddresses', 'IPAddresses', 'URIs']) if (parsed[key] !== undefined) result[key] = parsed[key];
  }
  return result;
}

/** x509_decode's answer for a PEM text; throws Kyverno's errors. */
export function x509Decode(text: string): Json {
  const block = pemBlock(text);
  if (!block) throw new Error('failed to decode PEM block');
  try {
    if (block.type === 'CERTIFICATE') return certificateJson(block.bytes, kyvernoRsaKey);
    if (block.type === 'CERTIFICATE REQUEST') return certificateRequestJson(block.bytes, kyvernoRsaKey);
  } catch (error) {
    if (error instanceof DerError || error instanceof TypeError)
      throw new Error(`x509: malformed ${block.type.toLowerCase()}: ${error.message}`);
    throw error;
  }
  throw new Error('PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST');
}
