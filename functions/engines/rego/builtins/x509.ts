// OPA's certificate and key built-ins (topdown/crypto.go): crypto.x509.parse_certificates, the
// parse_and_verify_* pair, parse_certificate_request, parse_keypair, parse_rsa_private_key and
// crypto.parse_private_keys, with OPA's ways of reading their input (PEM, base64 of PEM, base64 of DER) and
// its errors. Certificates become the JSON of Go's x509.Certificate (runtime/go/x509-decode.ts); chains are
// verified as Go's Certificate.Verify does (runtime/go/x509-verify.ts); keys are read by node:crypto.
import { createPrivateKey, createPublicKey, type KeyObject, X509Certificate } from 'node:crypto';
import { DerError, readElement } from '../../runtime/go/der.js';
import { pemBlock } from '../../runtime/go/pem.js';
import { certificateJson, certificateRequestJson } from '../../runtime/go/x509-decode.js';
import { goUrlString, type Json } from '../../runtime/go/x509-extensions.js';
import { goKnowsPrivateKey, goPrivateKey, goPublicKeyReader } from '../../runtime/go/x509-keys.js';
import { type ParsedCertificate, verifiedChain } from '../../runtime/go/x509-verify.js';
import { units } from '../../runtime/size-units.js';
import { BuiltinError, operandError } from '../errors.js';
import { fromJson, objectEntries, RegoSet, typeName, type Value } from '../values.js';
import { type Builtin, type BuiltinContext, builtin } from './builtin.js';
import { base64StdBytes } from './go-base64.js';
import { object, string } from './operands.js';

const BEGIN = '-----BEGIN';
const isPem = (bytes: Buffer) => bytes.subarray(0, BEGIN.length).toString('latin1') === BEGIN;

/** Go's x509.ParseCertificates: DER certificates one after another. */
function certificatesFromDer(bytes: Buffer): ParsedCertificate[] {
  const certificates: ParsedCertificate[] = [];
  for (let at = 0; at < bytes.length; ) {
    try {
      const end = readElement(bytes, at).end;
      certificates.push({ der: bytes.subarray(at, end), json: certificateJson(bytes, goPublicKeyReader, at) });
      at = end;
    } catch (error) {
      if (error instanceof DerError || error instanceof TypeError) throw new BuiltinError('x509: malformed certificate');
      throw error;
    }
  }
  return certificates;
}

/** OPA's getX509CertsFromPem: every CERTIFICATE block, any other type refused. */
function certificatesFromPem(text: string): ParsedCertificate[] {
  const parts: Buffer[] = [];
  for (let block = pemBlock(text); block; block = pemBlock(block.rest)) {
    if (block.type !== 'CERTIFICATE') throw new BuiltinError(`PEM block type is '${block.type}', expected CERTIFICATE`);
    parts.push(block.bytes);
  }
  return certificatesFromDer(Buffer.concat(parts));
}

/** OPA's getX509CertsFromString: PEM, else base64 of PEM or of DER. */
function certificatesOf(text: string, context: BuiltinContext): ParsedCertificate[] {
  context.charge(units(text));
  if (text.startsWith(BEGIN)) return certificatesFromPem(text);
  const decoded = base64StdBytes(text);
  if (isPem(decoded)) return certificatesFromPem(decoded.toString('latin1'));
  return certificatesFromDer(decoded);
}

/** OPA's extendedCert: the certificate with its URIs as text (null when it has none). */
function extended({ json }: ParsedCertificate): Value {
  const uris = json.URIs as Json[] | null;
  return fromJson({ ...json, URIStrings: uris ? uris.map(goUrlString) : null });
}

// OPA's names of Go's ExtKeyUsage values, in Go's order.
const KEY_USAGES = [
  'Any',
  'ServerAuth',
  'ClientAuth',
  'CodeSigning',
  'EmailProtection',
  'IPSECEndSystem',
  'IPSECTunnel',
  'IPSECUser',
  'TimeStamping',
  'OCSPSigning',
  'MicrosoftServerGatedCrypto',
  'NetscapeServerGatedCrypto',
  'MicrosoftCommercialCodeSigning',
  'MicrosoftKernelCodeSigning',
].map((name) => `KeyUsage${name}`);

/** OPA's extractVerifyOpts. */
function verifyOptions(options: ReturnType<typeof object>, now: Date) {
  const result = { now, dnsName: undefined as string | undefined, keyUsages: [] as number[] };
  for (const [key, value] of objectEntries(options)) {
    if (typeof key !== 'string') continue;
    if (key === 'DNSName') {
      if (typeof value !== 'string') throw new BuiltinError("'DNSName' should be a string");
      result.dnsName = value.replace(/^"+|"+$/g, '');
    } else if (key === 'CurrentTime') {
      if (typeof value !== 'number') throw new BuiltinError("'CurrentTime' should be a number");
      if (!Number.isInteger(value) || Math.abs(value) >= 2 ** 63) throw new BuiltinError("'CurrentTime' should be a valid int64 number");
      result.now = new Date(Math.floor(value / 1e6));
    } else if (key === 'MaxConstraintComparisons') {
      if (typeof value !== 'number') throw new BuiltinError("'MaxConstraintComparisons' should be a number");
      if (!Number.isSafeInteger(value)) throw new BuiltinError("'MaxConstraintComparisons' should be a valid number");
    } else if (key === 'KeyUsages') {
      const entries = Array.isArray(value) ? value : value instanceof RegoSet ? [...value.values()] : undefined;
      if (!entries) throw new BuiltinError("'KeyUsages' should be an Array or Set");
      const names = entries.filter((entry): entry is string => typeof entry === 'string').map((entry) => entry.replace(/^"+|"+$/g, ''));
      const invalid = names.filter((name) => !KEY_USAGES.includes(name));
      if (invalid.length > 0) throw new BuiltinError(`invalid entries for 'KeyUsages' found: [${invalid.join(' ')}]`);
      result.keyUsages = names.map((name) => KEY_USAGES.indexOf(name));
    } else throw new BuiltinError('invalid key option');
  }
  return result;
}

/**
 * OPA's verifyX509CertificateChain: the first certificate is the root, the last the leaf. Certificates that do
 * not parse are not verified (no error); options are read once they parse, and theirs is an error, as in OPA.
 */
function verifiedChainOf(text: string, context: BuiltinContext, optionsOf: () => Parameters<typeof verifiedChain>[3]) {
  let certificates: ParsedCertificate[];
  try {
    certificates = certificatesOf(text, context);
  } catch (error) {
    if (error instanceof BuiltinError) return undefined;
    throw error;
  }
  const options = optionsOf();
  if (certificates.length < 2) return undefined;
  return verifiedChain(certificates.at(-1)!, certificates.slice(0, 1), certificates.slice(1, -1), options);
}

const NOT_VERIFIED: Value = [false, []];

/** Go's x509.ParsePKCS1/PKCS8/ECPrivateKey, by the PEM block's type. */
function privateKeyOf(type: string, der: Buffer): KeyObject {
  const formats: Record<string, 'pkcs1' | 'pkcs8' | 'sec1'> = {
    'RSA PRIVATE KEY': 'pkcs1',
    'PRIVATE KEY': 'pkcs8',
    'EC PRIVATE KEY': 'sec1',
  };
  try {
    return createPrivateKey({ key: der, format: 'der', type: formats[type]! });
  } catch {
    throw new BuiltinError(
      `x509: failed to parse private key (use ParsePKCS${type === 'PRIVATE KEY' ? '8' : '1'}PrivateKey instead for this key format)`,
    );
  }
}

/** OPA's getPrivateKeysFromPEMData: every RSA, PKCS #8 and EC private key block, others passed over. */
function privateKeysOf(text: string): KeyObject[] {
  let pem = text;
  try {
    pem = base64StdBytes(text).toString('latin1');
  } catch {}
  const keys: KeyObject[] = [];
  for (let block = pemBlock(pem); block; block = pemBlock(block.rest))
    if (['RSA PRIVATE KEY', 'PRIVATE KEY', 'EC PRIVATE KEY'].includes(block.type)) keys.push(privateKeyOf(block.type, block.bytes));
  return keys;
}

/** Go's tls.X509KeyPair, after OPA's reading of each input (PEM, else base64 of PEM or DER). */
function keyPair(certificateText: string, keyText: string): Value {
  const pemOrDer = (text: string) => (text.startsWith(`${BEGIN} `) ? Buffer.from(text, 'latin1') : base64StdBytes(text));
  const [certificateInput, keyInput] = [pemOrDer(certificateText), pemOrDer(keyText)];
  const certificates: Buffer[] = [];
  if (isPem(certificateInput)) {
    for (let block = pemBlock(certificateInput.toString('latin1')); block; block = pemBlock(block.rest))
      if (block.type === 'CERTIFICATE') certificates.push(block.bytes);
  } else certificates.push(certificateInput);
  if (certificates.length === 0) throw new BuiltinError('tls: failed to find any PEM data in certificate input');
  let keyBlock = isPem(keyInput) ? undefined : { type: 'PRIVATE KEY', bytes: keyInput };
  for (let block = isPem(keyInput) ? pemBlock(keyInput.toString('latin1')) : undefined; block && !keyBlock; block = pemBlock(block.rest)) {
    if (block.type === 'PRIVATE KEY' || block.type.endsWith(' PRIVATE KEY')) keyBlock = block;
    else if (block.type === 'CERTIFICATE')
      throw new BuiltinError('tls: found a certificate rather than a key in the PEM for the private key');
  }
  if (!keyBlock) throw new BuiltinError('tls: failed to find any PEM data in key input');
  const [leaf] = certificatesFromDer(certificates[0]!);
  if (!leaf) throw new BuiltinError('x509: malformed certificate');
  const key = (['pkcs1', 'pkcs8', 'sec1'] as const)
    .map((type) => {
      try {
        return createPrivateKey({ key: keyBlock.bytes, format: 'der', type });
      } catch {
        return undefined;
      }
    })
    .find(Boolean);
  if (!key || !goKnowsPrivateKey(key)) throw new BuiltinError('tls: failed to parse private key');
  const publicKey = new X509Certificate(leaf.der).publicKey;
  if (publicKey.asymmetricKeyType !== key.asymmetricKeyType) throw new BuiltinError('tls: private key type does not match public key type');
  const spki = (object: KeyObject) => object.export({ format: 'der', type: 'spki' });
  if (!spki(publicKey).equals(spki(createPublicKey(key)))) throw new BuiltinError('tls: private key does not match public key');
  return fromJson({
    Certificate: certificates.map((der) => der.toString('base64')),
    PrivateKey: goPrivateKey(key),
    SupportedSignatureAlgorithms: null,
    OCSPStaple: null,
    SignedCertificateTimestamps: null,
    Leaf: leaf.json,
  });
}

export const X509: Builtin[] = [
  builtin('crypto.x509.parse_certificates', 1, (args, context) => certificatesOf(string(args, 0), context).map(extended)),
  builtin('crypto.x509.parse_and_verify_certificates', 1, (args, context) => {
    const chain = verifiedChainOf(string(args, 0), context, () => ({ now: context.now, keyUsages: [] }));
    return chain ? [true, chain.map(extended)] : NOT_VERIFIED;
  }),
  builtin('crypto.x509.parse_and_verify_certificates_with_options', 2, (args, context) => {
    const [text, options] = [string(args, 0), object(args, 1)];
    const chain = verifiedChainOf(text, context, () => verifyOptions(options, context.now));
    return chain ? [true, chain.map(({ json }) => fromJson(json))] : NOT_VERIFIED;
  }),
  builtin('crypto.x509.parse_certificate_request', 1, (args, context) => {
    const text = string(args, 0);
    context.charge(units(text));
    let bytes = text.startsWith(`${BEGIN} CERTIFICATE REQUEST-----`) ? Buffer.from(text, 'latin1') : base64StdBytes(text);
    const block = pemBlock(bytes.toString('latin1'));
    if (block && block.type !== 'CERTIFICATE REQUEST') throw new BuiltinError('invalid PEM-encoded certificate signing request');
    if (block) bytes = block.bytes;
    return fromJson(certificateRequestOf(bytes));
  }),
  builtin('crypto.x509.parse_keypair', 2, (args, context) => {
    const certificate = string(args, 0);
    // OPA names the second operand "operand 1" too.
    if (typeof args[1] !== 'string') throw operandError(1, 'string', typeName(args[1]!));
    context.charge(units(certificate) + units(args[1]));
    return keyPair(certificate, args[1]);
  }),
  builtin('crypto.x509.parse_rsa_private_key', 1, (args) => {
    let text = string(args, 0);
    if (text === '') throw new BuiltinError('input PEM data was empty');
    if (!text.startsWith(BEGIN)) text = base64StdBytes(text).toString('latin1');
    const [key] = privateKeysOf(text);
    return key ? fromJson(key.export({ format: 'jwk' })) : null;
  }),
  builtin('crypto.parse_private_keys', 1, (args) => {
    const text = string(args, 0);
    if (text === '') return null;
    return privateKeysOf(text).map((key) => fromJson(goPrivateKey(key)));
  }),
];

/** Go's x509.ParseCertificateRequest, with encoding/asn1's error for what is not one. */
function certificateRequestOf(bytes: Buffer): Json {
  try {
    if (bytes.length > 1 && bytes[0] !== 0x30) throw asn1TagError(bytes[0]!, bytes[1]! & 0x7f);
    return certificateRequestJson(bytes, goPublicKeyReader);
  } catch (error) {
    if (error instanceof BuiltinError) throw error;
    if (error instanceof DerError || error instanceof TypeError) throw new BuiltinError(`asn1: structure error: ${error.message}`);
    throw error;
  }
}

/** encoding/asn1's complaint when a certificate request does not start with a SEQUENCE. */
function asn1TagError(identifier: number, length: number): BuiltinError {
  const found = `{class:${identifier >> 6} tag:${identifier & 0x1f} length:${length} isCompound:${(identifier & 0x20) !== 0}}`;
  const parameters =
    '{optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false}';
  return new BuiltinError(`asn1: structure error: tags don't match (16 vs ${found}) ${parameters} certificateRequest @2`);
}
