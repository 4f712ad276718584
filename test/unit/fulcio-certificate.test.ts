// The OIDC issuer a keyless signature's certificate names, read from Fulcio's two extensions: .1.1 (raw, what
// cosign and Kyverno read) and .1.8 (a DER UTF8String, what sigstore-js reads first). Made by openssl.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fulcioCertificate } from '../../functions/admission/image-verification/fulcio-certificate.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

const folder = temporaryDirectory('portcullis-issuer-');
let made = 0;

/** A self-signed certificate with these extensions (openssl's `-addext` values). */
function certificateWith(...extensions: string[]): string {
  const name = join(folder, `certificate-${++made}`);
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=test'],
      ...['-keyout', `${name}-key.pem`, '-out', `${name}.pem`, '-addext', 'subjectAltName=URI:https://github.com/team/app'],
      ...extensions.flatMap((extension) => ['-addext', extension]),
    ],
    { stdio: 'ignore' },
  );
  return readFileSync(`${name}.pem`, 'utf8');
}

const v1 = (issuer: string) => `1.3.6.1.4.1.57264.1.1=DER:${Buffer.from(issuer).toString('hex')}`;
const v2 = (issuer: string) => `1.3.6.1.4.1.57264.1.8=ASN1:UTF8String:${issuer}`;
const issuerOf = (pem: string) => {
  const read = fulcioCertificate(pem);
  return typeof read === 'string' ? read : read.issuer;
};

describe("a keyless certificate's OIDC issuer", () => {
  it('is read from either extension, and from both when they agree, as Fulcio writes them', () => {
    expect(issuerOf(certificateWith(v1('https://accounts.google.com'), v2('https://accounts.google.com')))).toBe(
      'https://accounts.google.com',
    );
    expect(issuerOf(certificateWith(v1('https://accounts.google.com')))).toBe('https://accounts.google.com');
    expect(issuerOf(certificateWith(v2('https://accounts.google.com')))).toBe('https://accounts.google.com');
    expect(issuerOf(certificateWith())).toBe('');
  });

  it('is refused when the two disagree: cosign and Kyverno would judge one, sigstore-js the other', () => {
    expect(issuerOf(certificateWith(v1('https://accounts.google.com'), v2('https://evil.example.com')))).toBe(
      'its certificate names two different OIDC issuers (1.3.6.1.4.1.57264.1.1 and 1.3.6.1.4.1.57264.1.8)',
    );
  });

  it('is refused when .1.8 is not one UTF8String, never read from .1.1 instead', () => {
    const notOne = "its certificate's OIDC issuer (1.3.6.1.4.1.57264.1.8) is not one UTF8String";
    expect(issuerOf(certificateWith(v1('https://accounts.google.com'), '1.3.6.1.4.1.57264.1.8=ASN1:INTEGER:5'))).toBe(notOne);
    // A UTF8String and bytes after it; a context-specific tag 12 in its place.
    expect(issuerOf(certificateWith('1.3.6.1.4.1.57264.1.8=DER:0c0161ff'))).toBe(notOne);
    expect(issuerOf(certificateWith('1.3.6.1.4.1.57264.1.8=DER:8c0161'))).toBe(notOne);
  });
});
