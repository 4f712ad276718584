// OPA's certificate built-ins beyond what OPA's compliance cases hold: a chain made by openssl (an RSA root, a
// P-256 intermediate with pathlen 0, a P-384 leaf for api.example.com and *.apps.example.com, serverAuth)
// verified with each of OPA's options, key pairs and private keys in each of Go's formats, and the errors.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../functions/engines/rego/compile-sources.js';
import { evalQuery } from '../../functions/engines/rego/rego.js';
import { CostBudget } from '../../functions/engines/runtime/cost-budget.js';
import type { Value } from '../../functions/engines/rego/values.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/x509/${name}`, import.meta.url), 'utf8');
const chain = fixture('opa-chain.pem');
const [root, intermediate, leaf] = chain.split(/(?<=-----END CERTIFICATE-----\n)/);
const policy = compileSources([{ file: 'p.rego', source: 'package p' }]);

/** The value of `x` in `x := <expression>`, or the built-in error's message. */
function value(expression: string, input: Record<string, string> = {}): Value | string | undefined {
  const options = {
    input: input as Value,
    data: {},
    strictBuiltinErrors: true,
    now: new Date('2030-01-01T00:00:00Z'),
    budget: new CostBudget(),
  };
  try {
    return evalQuery(policy, `x := ${expression}`, options)[0]?.bindings.x;
  } catch (error) {
    return (error as Error).message;
  }
}
const verified = (options: string, certs = chain) =>
  value(`crypto.x509.parse_and_verify_certificates_with_options(input.certs, ${options})`, { certs }) as [boolean, Value[]];

describe('crypto.x509.parse_and_verify_certificates', () => {
  it('verifies root, intermediate and leaf, answering the chain leaf first with URIs as text', () => {
    const [valid, certificates] = value('crypto.x509.parse_and_verify_certificates(input.certs)', { certs: chain }) as [boolean, any[]];
    expect(valid).toBe(true);
    expect(certificates.map((certificate) => certificate.Subject.CommonName)).toEqual([
      'api.example.com',
      'Portcullis Test Intermediate',
      'Portcullis Test Root',
    ]);
    expect(certificates[0]).toMatchObject({
      DNSNames: ['api.example.com', '*.apps.example.com'],
      IPAddresses: ['10.0.0.1'],
      URIStrings: ['spiffe://example.com/api'],
      PublicKeyAlgorithm: 3,
      ExtKeyUsage: [1],
    });
    expect(certificates[2]).toMatchObject({ PublicKeyAlgorithm: 1, IsCA: true, URIStrings: null });
  });

  it('is false, with no chain, for a chain in the wrong order, a missing link or one certificate', () => {
    const no = [false, []];
    expect(value('crypto.x509.parse_and_verify_certificates(input.certs)', { certs: `${leaf}${intermediate}${root}` })).toEqual(no);
    expect(value('crypto.x509.parse_and_verify_certificates(input.certs)', { certs: `${root}${leaf}` })).toEqual(no);
    expect(value('crypto.x509.parse_and_verify_certificates(input.certs)', { certs: leaf! })).toEqual(no);
    expect(value('crypto.x509.parse_and_verify_certificates("bm90IGEgY2VydA==")')).toEqual(no);
  });

  it('with options: the host name (wildcards one label deep), the time in nanoseconds and the key usages', () => {
    expect(verified('{"DNSName": "api.example.com"}')[0]).toBe(true);
    expect(verified('{"DNSName": "web.apps.example.com"}')[0]).toBe(true);
    expect(verified('{"DNSName": "a.b.apps.example.com"}')[0]).toBe(false);
    expect(verified('{"DNSName": "10.0.0.1"}')[0]).toBe(true);
    expect(verified('{"DNSName": "::ffff:10.0.0.1"}')[0]).toBe(true);
    expect(verified('{"DNSName": "10.0.0.2"}')[0]).toBe(false);
    expect(verified('{"DNSName": "other.example.com"}')).toEqual([false, []]);
    expect(verified('{"CurrentTime": 946684800000000000}')[0]).toBe(false);
    expect(verified('{"KeyUsages": ["KeyUsageServerAuth"]}')[0]).toBe(true);
    expect(verified('{"KeyUsages": {"KeyUsageCodeSigning"}}')[0]).toBe(false);
    expect(verified('{"KeyUsages": ["KeyUsageAny"]}')[0]).toBe(true);
    const [, certificates] = verified('{}') as [boolean, any[]];
    expect(certificates[0].URIStrings).toBeUndefined();
  });

  it("with options: OPA's errors for options it does not know", () => {
    expect(verified('{"DNSName": 1}')).toContain("'DNSName' should be a string");
    expect(verified('{"CurrentTime": "now"}')).toContain("'CurrentTime' should be a number");
    expect(verified('{"KeyUsages": "KeyUsageAny"}')).toContain("'KeyUsages' should be an Array or Set");
    expect(verified('{"KeyUsages": ["ServerAuth", "KeyUsageAny", "X"]}')).toContain(
      "invalid entries for 'KeyUsages' found: [ServerAuth X]",
    );
    expect(verified('{"Roots": []}')).toContain('invalid key option');
  });

  it('a root is any trust anchor: the intermediate as the root verifies its leaf', () => {
    const [valid, certificates] = value('crypto.x509.parse_and_verify_certificates(input.certs)', { certs: `${intermediate}${leaf}` }) as [
      boolean,
      any[],
    ];
    expect([valid, certificates.length]).toEqual([true, 2]);
  });
});

describe('crypto.x509.parse_certificates and parse_certificate_request', () => {
  it('reads PEM, base64 of PEM and base64 of DER alike, in input order', () => {
    const der = Buffer.concat([root, leaf].map((pem) => Buffer.from(pem!.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64'))).toString(
      'base64',
    );
    for (const certs of [chain, Buffer.from(chain).toString('base64')])
      expect(value('[c.Subject.CommonName | c := crypto.x509.parse_certificates(input.certs)[_]]', { certs })).toEqual([
        'Portcullis Test Root',
        'Portcullis Test Intermediate',
        'api.example.com',
      ]);
    expect(value('[c.Subject.CommonName | c := crypto.x509.parse_certificates(input.certs)[_]]', { certs: der })).toEqual([
      'Portcullis Test Root',
      'api.example.com',
    ]);
  });

  it("refuses another PEM block and bad base64 with Go's errors", () => {
    expect(value('crypto.x509.parse_certificates(input.certs)', { certs: fixture('opa-leaf-pkcs8.key') })).toContain(
      "PEM block type is 'PRIVATE KEY', expected CERTIFICATE",
    );
    expect(value('crypto.x509.parse_certificates("a!")')).toContain('illegal base64 data at input byte 1');
  });

  it('reads a certificate request: its subject, key algorithm and alternative names', () => {
    expect(value('crypto.x509.parse_certificate_request(input.csr)', { csr: fixture('opa-leaf.csr') })).toMatchObject({
      Subject: { CommonName: 'api.example.com' },
      PublicKeyAlgorithm: 3,
      DNSNames: ['api.example.com', '*.apps.example.com'],
    });
    expect(value('crypto.x509.parse_certificate_request(input.csr)', { csr: Buffer.from(leaf!).toString('base64') })).toContain(
      'invalid PEM-encoded certificate signing request',
    );
  });
});

describe('crypto.x509.parse_keypair and the private key built-ins', () => {
  it('pairs a certificate with its key, refusing a key that is not its own', () => {
    const pair = value('crypto.x509.parse_keypair(input.cert, input.key)', { cert: leaf!, key: fixture('opa-leaf-pkcs8.key') }) as any;
    expect(pair.Certificate).toEqual([leaf!.replace(/-----[A-Z ]+-----|\s/g, '')]);
    expect(pair.PrivateKey).toMatchObject({ Curve: {}, X: expect.any(Number), D: expect.any(Number) });
    expect(pair.Leaf.Subject.CommonName).toBe('api.example.com');
    expect(value('crypto.x509.parse_keypair(input.cert, input.key)', { cert: leaf!, key: fixture('opa-intermediate-sec1.key') })).toContain(
      'tls: private key does not match public key',
    );
    expect(value('crypto.x509.parse_keypair(input.cert, input.key)', { cert: leaf!, key: fixture('opa-root-pkcs1.key') })).toContain(
      'tls: private key type does not match public key type',
    );
    expect(value('crypto.x509.parse_keypair(input.cert, input.key)', { cert: leaf!, key: leaf! })).toContain(
      'tls: found a certificate rather than a key in the PEM for the private key',
    );
    expect(value('crypto.x509.parse_keypair(input.cert, 1)', { cert: leaf! })).toContain('operand 1 must be string but got number');
  });

  it('parse_rsa_private_key gives the first key as a JWK; parse_private_keys gives every key as Go prints it', () => {
    expect(value('crypto.x509.parse_rsa_private_key(input.key)', { key: fixture('opa-root-pkcs1.key') })).toMatchObject({
      kty: 'RSA',
      e: 'AQAB',
      n: expect.any(String),
      d: expect.any(String),
    });
    expect(value('crypto.x509.parse_rsa_private_key("")')).toContain('input PEM data was empty');
    const keys = [fixture('opa-root-pkcs1.key'), fixture('opa-intermediate-sec1.key'), fixture('opa-leaf-pkcs8.key'), leaf!].join('');
    const parsed = value('crypto.parse_private_keys(input.keys)', { keys }) as any[];
    expect(parsed).toHaveLength(3);
    expect(parsed[0]).toMatchObject({ E: 65537, Primes: [expect.any(Number), expect.any(Number)] });
    expect(parsed[1]).toMatchObject({ Curve: {}, D: expect.any(Number) });
    expect(value('crypto.parse_private_keys("")')).toBeNull();
    expect(value('crypto.parse_private_keys(input.keys)', { keys: leaf! })).toEqual([]);
  });
});

describe('what Go refuses, and input that must not crash or run long', () => {
  it('a chain signed with SHA-224, which Go does not verify, is not verified', () => {
    expect(value('crypto.x509.parse_and_verify_certificates(input.certs)', { certs: fixture('sha224-chain.pem') })).toEqual([false, []]);
  });

  it('an empty CERTIFICATE block with a key is a malformed certificate, not a crash', () => {
    const empty = '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n';
    expect(value('crypto.x509.parse_keypair(input.cert, input.key)', { cert: empty, key: fixture('opa-leaf-pkcs8.key') })).toContain(
      'x509: malformed certificate',
    );
  });
});
