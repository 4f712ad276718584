// A loopback SSM endpoint answering GetParameter with the tokens a test sets, after checking every request's
// signature with the AWS SDK's signer; `failuresLeft` calls are answered ParameterNotFound first.
import { createServer, type Server } from 'node:http';
import { sigV4Problem } from './sigv4-verifier.js';

export interface FakeSsm {
  /** Every GetParameter call, with its parsed body (`Name`, `WithDecryption`). */
  calls: { target?: string; body: any }[];
  tokens: string;
  failuresLeft: number;
  endpoint(): string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function fakeSsm(tokens = 'ssm-token-abcdef,ssm-token-ghijkl'): FakeSsm {
  let server: Server | undefined;
  const ssm: FakeSsm = {
    calls: [],
    tokens,
    failuresLeft: 0,
    endpoint: () => `http://127.0.0.1:${(server!.address() as { port: number }).port}`,
    async start() {
      server = createServer((req, res) => {
        let text = '';
        req.on('data', (chunk) => (text += chunk));
        req.on('end', async () => {
          const body = JSON.parse(text);
          ssm.calls.push({ target: req.headers['x-amz-target'] as string, body });
          const secretOf = (key: string) => (key === process.env.AWS_ACCESS_KEY_ID ? process.env.AWS_SECRET_ACCESS_KEY : undefined);
          const signatureProblem = await sigV4Problem(
            { method: req.method ?? '', url: req.url ?? '', headers: req.headers },
            secretOf,
            text,
          );
          const json = (status: number, value: unknown) =>
            res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(value));
          if (signatureProblem) return json(400, { __type: 'InvalidSignatureException', message: signatureProblem });
          if (ssm.failuresLeft > 0) {
            ssm.failuresLeft -= 1;
            return json(400, { __type: 'ParameterNotFound', message: 'no such parameter' });
          }
          return json(200, { Parameter: { Name: body.Name, Type: 'SecureString', Value: ssm.tokens, Version: 3 } });
        });
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
    },
    stop: () => new Promise((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
  return ssm;
}
