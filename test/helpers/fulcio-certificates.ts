// A certificate authority made as Fulcio makes its certificates, for the tests of keyless verification: a
// self-signed root, and short-lived code-signing leaves for a key, each naming its signer in a URI or email
// SAN and the OIDC issuer in Fulcio's extensions (1.3.6.1.4.1.57264.1.1, raw, and .1.8, DER). Made by
// openssl: nothing here is verified, the product does that. No SCT is embedded (tests set ctlog.ignoreSCT).
// trustRootManifest is the policy-controller TrustRoot that trusts it.
import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestFulcio {
  rootPem: string;
  /**
   * A leaf for a fresh key: its PEM, and the private key that signs with it. `san` is openssl's (`URI:…`,
   * `email:…`), or `DER:<hex>` for GeneralNames written byte by byte; `uses` its extended key usage.
   */
  issue: (san: string, issuer: string, uses?: string) => { certificate: string; key: KeyObject };
}

export function testFulcio(folder: string, name = 'fulcio'): TestFulcio {
  const rootKey = join(folder, `${name}-root-key.pem`);
  const root = join(folder, `${name}-root.pem`);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...ec,
      '-days',
      '1',
      '-subj',
      `/O=sigstore.dev/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout',
      rootKey,
      '-out',
      root,
    ],
    { stdio: 'ignore' },
  );
  let issued = 0;
  return {
    rootPem: readFileSync(root, 'utf8'),
    issue: (san, issuer, uses = 'codeSigning') => {
      const leaf = join(folder, `${name}-leaf-${++issued}`);
      const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      writeFileSync(`${leaf}-key.pem`, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
      execFileSync('openssl', ['req', '-new', '-key', `${leaf}-key.pem`, '-subj', '/', '-out', `${leaf}.csr`], { stdio: 'ignore' });
      writeFileSync(
        `${leaf}.cnf`,
        [
          '[leaf]',
          'keyUsage=critical,digitalSignature',
          `extendedKeyUsage=${uses}`,
          san.startsWith('DER:') ? `2.5.29.17=critical,${san}` : `subjectAltName=critical,${san}`,
          'authorityKeyIdentifier=keyid',
          'subjectKeyIdentifier=hash',
          `1.3.6.1.4.1.57264.1.1=DER:${Buffer.from(issuer).toString('hex')}`,
          `1.3.6.1.4.1.57264.1.8=ASN1:UTF8String:${issuer}`,
          '',
        ].join('\n'),
      );
      execFileSync(
        'openssl',
        [
          'x509',
          '-req',
          '-in',
          `${leaf}.csr`,
          '-CA',
          root,
          '-CAkey',
          rootKey,
          '-CAcreateserial',
          '-days',
          '1',
          '-extfile',
          `${leaf}.cnf`,
          '-extensions',
          'leaf',
          '-out',
          `${leaf}.pem`,
        ],
        { stdio: 'ignore' },
      );
      return { certificate: readFileSync(`${leaf}.pem`, 'utf8'), key: pair.privateKey };
    },
  };
}

/**
 * A policy-controller TrustRoot manifest named `private` (a multi-document YAML part, `---` first) trusting
 * the test's Fulcio and its Rekor key, each as base64 of PEM, as sigstoreKeys writes them.
 */
export function trustRootManifest(fulcio: TestFulcio, rekorKey: KeyObject): string {
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  const rekorPem = createPublicKey(rekorKey).export({ type: 'spki', format: 'pem' }) as string;
  return `---
apiVersion: policy.sigstore.dev/v1alpha1
kind: TrustRoot
metadata: {name: private}
spec:
  sigstoreKeys:
    certificateAuthorities: [{subject: {organization: example, commonName: fulcio}, uri: "https://fulcio.example", certChain: ${base64(fulcio.rootPem)}}]
    tLogs: [{baseURL: "https://rekor.example", hashAlgorithm: sha-256, publicKey: ${base64(rekorPem)}}]
`;
}
