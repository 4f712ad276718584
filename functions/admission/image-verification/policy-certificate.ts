// A certificates attestor's own certificate (Kyverno's `cert`), read once at upload: its key is what
// signatures verify with, and with a chain (`certChain`, the issuer first, the root last) it must be one the
// chain issued, as cosign's ValidateAndUnpackCertWithChain checks it: each certificate issued and signed by
// the next, each issuer a certificate authority valid when the certificate's validity starts (cosign verifies
// at its NotBefore), and code signing among the extended key usages of each that lists any. Its validity goes
// with the key: a signature verifies only if made while the certificate was valid (key-verification.ts).
import type { KeyObject, X509Certificate } from 'node:crypto';
import type { CertificateValidity } from './image-check.js';
import { certificateBlocks, nameConstraintsProblem, publicKeyOf } from './public-keys.js';

const CODE_SIGNING = '1.3.6.1.5.5.7.3.3';
const ANY_USE = '2.5.29.37.0';
/** Each link is a signature checked at upload; cosign's own chains are two or three certificates. */
export const MAX_CHAIN = 10;

function certificatesOf(pem: string, field: string): X509Certificate[] | string {
  const { X509Certificate } = process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
  const blocks = certificateBlocks(pem);
  if (blocks.length === 0) return `${field}: expected PEM certificates`;
  try {
    return blocks.map((block) => new X509Certificate(block));
  } catch (error) {
    return `${field}: not a certificate: ${(error as Error).message}`;
  }
}

const validAt = (certificate: X509Certificate, time: number) =>
  time >= Date.parse(certificate.validFrom) && time <= Date.parse(certificate.validTo);

/** Whether the certificate may sign code, as Go reads its extended key usages (none listed: any use). */
function forCodeSigning(certificate: X509Certificate): boolean {
  const uses = certificate.keyUsage as string[] | undefined;
  return !uses || uses.includes(CODE_SIGNING) || uses.includes(ANY_USE);
}

/** Why the chain did not issue the certificate, or undefined when it did. */
function chainProblem(certificate: X509Certificate, chain: readonly X509Certificate[]): string | undefined {
  if (chain.length > MAX_CHAIN) return `certChain: more than ${MAX_CHAIN} certificates`;
  if (!forCodeSigning(certificate)) return 'cert: not for code signing (its extended key usages)';
  const start = Date.parse(certificate.validFrom);
  let child = certificate;
  for (const [index, issuer] of chain.entries()) {
    const named = `certChain's certificate ${index + 1}`;
    if (!child.checkIssued(issuer) || !child.verify(issuer.publicKey))
      return `certChain: ${index === 0 ? 'cert' : `certificate ${index}`} was not issued by ${named} (the chain goes from the issuer to the root)`;
    if (!issuer.ca) return `certChain: ${named} is not a certificate authority`;
    if (!forCodeSigning(issuer)) return `certChain: ${named} may not issue for code signing (its extended key usages)`;
    if (!validAt(issuer, start)) return `certChain: ${named} was not valid when cert's validity starts (${certificate.validFrom})`;
    child = issuer;
  }
  return undefined;
}

/**
 * The key of the policy's certificate and its validity, checked against its chain when one is given, or why
 * it cannot be used. The text is one certificate and nothing else: no other key can stand in for its own.
 */
export function certifiedKey(cert: string, certChain: string | undefined): { key: KeyObject; validity: CertificateValidity } | string {
  const certificates = certificatesOf(cert, 'cert');
  if (typeof certificates === 'string') return certificates;
  if (certificates.length !== 1 || cert.trim() !== certificateBlocks(cert)[0]!.trim())
    return 'cert: expected one PEM certificate and nothing else (its issuers go in certChain)';
  const certificate = certificates[0]!;
  const key = publicKeyOf(certificate.publicKey.export({ type: 'spki', format: 'pem' }) as string);
  if (typeof key === 'string') return `cert: ${key}`;
  const certified = { key, validity: { from: Date.parse(certificate.validFrom), to: Date.parse(certificate.validTo) } };
  if (certChain === undefined) return certified;
  const chain = certificatesOf(certChain, 'certChain');
  if (typeof chain === 'string') return chain;
  const constrained = nameConstraintsProblem(chain);
  if (constrained) return `certChain: ${constrained}`;
  return chainProblem(certificate, chain) ?? certified;
}
