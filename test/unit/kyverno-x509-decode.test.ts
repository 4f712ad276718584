// x509_decode as Kyverno answers it: the certificates and the request of Kyverno's Test_x509Decode
// (pkg/engine/jmespath/functions_test.go) with the values of its expected JSON (Go's x509.Certificate and
// x509.CertificateRequest), and a certificate made by openssl with every extension Go parses.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CostBudget } from '../../functions/engines/runtime/cost-budget.js';
import { searchJmesPath } from '../../functions/engines/kyverno/jmespath/jmespath.js';

const pem = (name: string) => readFileSync(new URL(`../fixtures/x509/${name}.pem`, import.meta.url), 'utf8');
const decode = (text: string) =>
  searchJmesPath('x509_decode(@)', text, { budget: new CostBudget(), now: new Date('2026-11-25T10:30:00Z') }) as Record<string, any>;
const bodyOf = (text: string) => text.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');

describe("Kyverno's Test_x509Decode", () => {
  it('a self-signed certificate: raw parts, algorithms, names, times and extensions as Go marshals them', () => {
    const text = pem('kyverno-test-kyverno-svc');
    const decoded = decode(text);
    const name = {
      Country: null,
      Organization: null,
      OrganizationalUnit: null,
      Locality: null,
      Province: null,
      StreetAddress: null,
      PostalCode: null,
      SerialNumber: '',
      CommonName: '*.kyverno.svc',
      Names: [{ Type: [2, 5, 4, 3], Value: '*.kyverno.svc' }],
      ExtraNames: null,
    };
    expect(decoded).toMatchObject({
      Raw: bodyOf(text),
      RawSubject: 'MBgxFjAUBgNVBAMMDSoua3l2ZXJuby5zdmM=',
      RawIssuer: 'MBgxFjAUBgNVBAMMDSoua3l2ZXJuby5zdmM=',
      SignatureAlgorithm: 4,
      PublicKeyAlgorithm: 1,
      Version: 3,
      SerialNumber: 0,
      Issuer: name,
      Subject: name,
      NotBefore: '2022-01-11T13:26:43Z',
      NotAfter: '2023-01-11T14:26:43Z',
      KeyUsage: 37,
      Extensions: [
        { Id: [2, 5, 29, 15], Critical: true, Value: 'AwICpA==' },
        { Id: [2, 5, 29, 19], Critical: true, Value: 'MAMBAf8=' },
        { Id: [2, 5, 29, 14], Critical: false, Value: 'BBTp5QElQ/X7t0wI6bZVv4AFwOKpfg==' },
      ],
      ExtraExtensions: null,
      UnhandledCriticalExtensions: null,
      ExtKeyUsage: null,
      UnknownExtKeyUsage: null,
      BasicConstraintsValid: true,
      IsCA: true,
      MaxPathLen: -1,
      MaxPathLenZero: false,
      SubjectKeyId: '6eUBJUP1+7dMCOm2Vb+ABcDiqX4=',
      AuthorityKeyId: null,
      DNSNames: null,
      CRLDistributionPoints: null,
      PolicyIdentifiers: null,
    });
    expect(decoded.PublicKey.E).toBe(65537);
    expect(decoded.PublicKey.N).toMatch(
      /^25626776194299809103943925293022478779550111351090439168995035251396620593900589237452364135475983088162735720467798166985191488213022186077349821145857402701723499012699772423162550319145896535355752944351742979794245171828792388153331005254201525593934122190716637483002316913539755904599370968007653484768793099970920881706651907943367212661888776583428009130496820305182341702970575924538413569026902195901329094514102681440057150490032724791460671006772434362132998853498175356133386237155854830546292463707783883111067332118558636600306550854546869660051077649500890548685566726464348535891964886136890236394619$/,
    );
    expect(decoded.Signature).toMatch(
      /^iKckYgocafe3Kyn0NuCbe8\/D\/gBqS397F\+Hi\/OxEmu0EaFSbVy5mrrdaVBKGC0K7ipof9GBbWRvVsVYGOorim1p7u2znjAfyK\/lf8q190fl72TrLl4iZxGyYgVupScy5XaFuH/,
    );
  });

  it("a CA with a 160-bit serial and a full name; base64_decode'd PEM reads the same", () => {
    const text = pem('kyverno-test-ca');
    const decoded = decode(text);
    const name = {
      Country: ['xx'],
      Organization: ['x'],
      OrganizationalUnit: ['x'],
      Locality: ['x'],
      Province: ['x'],
      StreetAddress: null,
      PostalCode: null,
      SerialNumber: '',
      CommonName: '',
      Names: [
        { Type: [2, 5, 4, 6], Value: 'xx' },
        { Type: [2, 5, 4, 8], Value: 'x' },
        { Type: [2, 5, 4, 7], Value: 'x' },
        { Type: [2, 5, 4, 10], Value: 'x' },
        { Type: [2, 5, 4, 11], Value: 'x' },
      ],
      ExtraNames: null,
    };
    expect(decoded).toMatchObject({
      // Go's big.Int in JSON, read back by Kyverno as a float64: the same number JavaScript makes of it.
      SerialNumber: Number(520089955419326249038486015063014459614455897759n),
      Issuer: name,
      Subject: name,
      NotBefore: '2018-02-02T12:38:00Z',
      NotAfter: '2023-02-01T12:38:00Z',
      KeyUsage: 96,
      Extensions: [
        { Id: [2, 5, 29, 15], Critical: true, Value: 'AwIBBg==' },
        { Id: [2, 5, 29, 19], Critical: true, Value: 'MAMBAf8=' },
        { Id: [2, 5, 29, 14], Critical: false, Value: 'BBSl3G+dm7+qKpw/g/X0zRR2S/CFsQ==' },
      ],
      SubjectKeyId: 'pdxvnZu/qiqcP4P19M0UdkvwhbE=',
    });
    const viaBase64 = searchJmesPath(
      `x509_decode(base64_decode('${Buffer.from(text).toString('base64')}'))`,
      {},
      {
        budget: new CostBudget(),
        now: new Date(),
      },
    );
    expect(viaBase64).toEqual(decoded);
  });

  it('a certificate request', () => {
    const decoded = decode(pem('kyverno-test-csr'));
    expect(decoded).toEqual({
      Attributes: null,
      DNSNames: null,
      EmailAddresses: null,
      Extensions: null,
      ExtraExtensions: null,
      IPAddresses: null,
      PublicKey: {
        E: 65537,
        N: '30788787775499084229626026724118719872973907471499649646184775670914346180312671906399223325409590948519743636184795333482381888453996128329396648505249062053283056069530767359210562374203250761551376585013181653210719557451154530514423713570995019036786795900989905655136970670786111875127185122973524433496741842862203002594125711406631836733656561027033024624302759714504708249269624951711291364305004897900464453081676928894280743798888738608709381777168414778329993619693869221517193116446955833233290395600921852333943656575398427367952052258926688943219100950267027328710138285403327192731641778165311310576291',
      },
      PublicKeyAlgorithm: 1,
      Raw: bodyOf(pem('kyverno-test-csr')),
      RawSubject:
        'MHcxCzAJBgNVBAYTAlVTMQ0wCwYDVQQIDARVdGFoMQ8wDQYDVQQHDAZMaW5kb24xFjAUBgNVBAoMDURpZ2lDZXJ0IEluYy4xETAPBgNVBAsMCERpZ2lDZXJ0MR0wGwYDVQQDDBRleGFtcGxlLmRpZ2ljZXJ0LmNvbQ==',
      RawSubjectPublicKeyInfo: expect.stringMatching(/^MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA8\+To7d\+2kPWeBv/),
      RawTBSCertificateRequest: expect.stringMatching(/^MIIBpAIBADB3MQswCQYDVQQGEwJVUzENMAsGA1UECAwEVXRhaDEP/),
      Signature: expect.stringMatching(/^HSRysVxxKYUObGjHQ17TVQipKwOoeAv5eYdNcnCt7oOElJnBu8S04rQbf52vgWzXVa5Q23mpwuzHlry6TgboAoczO6Eu/),
      SignatureAlgorithm: 3,
      Subject: {
        CommonName: 'example.digicert.com',
        Country: ['US'],
        ExtraNames: null,
        Locality: ['Lindon'],
        Names: [
          { Type: [2, 5, 4, 6], Value: 'US' },
          { Type: [2, 5, 4, 8], Value: 'Utah' },
          { Type: [2, 5, 4, 7], Value: 'Lindon' },
          { Type: [2, 5, 4, 10], Value: 'DigiCert Inc.' },
          { Type: [2, 5, 4, 11], Value: 'DigiCert' },
          { Type: [2, 5, 4, 3], Value: 'example.digicert.com' },
        ],
        Organization: ['DigiCert Inc.'],
        OrganizationalUnit: ['DigiCert'],
        PostalCode: null,
        Province: ['Utah'],
        SerialNumber: '',
        StreetAddress: null,
      },
      URIs: null,
      Version: 0,
    });
  });
});

describe('every extension Go parses (a certificate made by openssl)', () => {
  it('alternative names, key usages, access, CRLs, policies, path length and name constraints', () => {
    const decoded = decode(pem('rich-extensions'));
    expect(decoded).toMatchObject({
      SerialNumber: 4242,
      Subject: { Country: ['DE'], Organization: ['Portcullis Test'], OrganizationalUnit: ['Platform'], CommonName: 'webhook.example.test' },
      DNSNames: ['webhook.example.test', '*.svc.cluster.local'],
      EmailAddresses: ['ops@example.test'],
      IPAddresses: ['10.0.0.7', '2001:db8::1'],
      URIs: [expect.objectContaining({ Scheme: 'spiffe', Host: 'cluster.local', Path: '/ns/default/sa/web' })],
      ExtKeyUsage: [1, 2],
      UnknownExtKeyUsage: [[1, 2, 3, 4, 5]],
      OCSPServer: ['http://ocsp.example.test'],
      IssuingCertificateURL: ['http://ca.example.test/ca.crt'],
      CRLDistributionPoints: ['http://crl.example.test/ca.crl'],
      PolicyIdentifiers: [[2, 23, 140, 1, 2, 1]],
      BasicConstraintsValid: true,
      IsCA: true,
      MaxPathLen: 0,
      MaxPathLenZero: true,
      // digitalSignature (bit 0), keyEncipherment (2), keyCertSign (5)
      KeyUsage: 1 + 4 + 32,
      PermittedDNSDomains: ['.example.test'],
      ExcludedIPRanges: [{ IP: '192.168.0.0', Mask: '//8AAA==' }],
      UnhandledCriticalExtensions: null,
    });
    expect(decoded.AuthorityKeyId).toBe(decoded.SubjectKeyId);
  });

  it('what is not an RSA certificate or request is an error naming the function, as in Kyverno', () => {
    expect(() => decode('not a certificate')).toThrow(/'x509_decode': failed to decode PEM block/);
    expect(() => decode('-----BEGIN PUBLIC KEY-----\nMAo=\n-----END PUBLIC KEY-----')).toThrow(/neither contains a CERTIFICATE/);
    expect(() => decode('-----BEGIN CERTIFICATE-----\nMAo=\n-----END CERTIFICATE-----')).toThrow(/x509_decode.*malformed certificate/);
  });
});
