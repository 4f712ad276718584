// TLS for the local stack: a CA and a serving certificate for 127.0.0.1, localhost and this host's name,
// made on first run and kept in <LOCAL_DIR>/tls/. The apiserver trusts the CA through `caBundle`.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface LocalTls {
  directory: string;
  caPem: string;
}

export async function ensureLocalTls(localDirectory: string): Promise<LocalTls> {
  const directory = join(localDirectory, 'tls');
  const caFile = join(directory, 'ca.pem');
  if (!existsSync(caFile) || !existsSync(join(directory, 'cert.pem')) || !existsSync(join(directory, 'key.pem'))) {
    mkdirSync(directory, { recursive: true });
    const ca = await generate([{ name: 'commonName', value: 'Portcullis local CA' }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      ],
    });
    // Extra names or IPs (LOCAL_TLS_SANS, comma-separated) let a cluster reach this host by another address.
    const extras = (process.env.LOCAL_TLS_SANS ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const ips = ['127.0.0.1', ...extras.filter((name) => /^[\d.]+$|:/.test(name))];
    const names = [
      ...new Set([
        'localhost',
        hostname(),
        'host.minikube.internal',
        'host.docker.internal',
        ...extras.filter((name) => !ips.includes(name)),
      ]),
    ];
    const server = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keySize: 2048,
      algorithm: 'sha256',
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [...ips.map((ip) => ({ type: 7 as const, ip })), ...names.map((value) => ({ type: 2 as const, value }))],
        },
      ],
    });
    writeFileSync(caFile, ca.cert);
    writeFileSync(join(directory, 'cert.pem'), server.cert);
    writeFileSync(join(directory, 'key.pem'), server.private, { mode: 0o600 });
  }
  return { directory, caPem: readFileSync(caFile, 'utf8') };
}
