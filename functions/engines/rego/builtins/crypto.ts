// Hashes and HMACs (OPA's crypto category, without certificates), and OPA's random functions, which are
// the same for the same arguments throughout one evaluation: here derived from the evaluation's clock and
// the arguments, so an evaluation is repeatable from its clock.
import { createHash, createHmac } from 'node:crypto';
import { BuiltinError } from '../errors.js';
import { type Builtin, type BuiltinContext, builtin } from './builtin.js';
import { integer, string } from './operands.js';

const hash = (name: string, algorithm: string) =>
  builtin(name, 1, (args) => createHash(algorithm).update(string(args, 0), 'utf8').digest('hex'));

const hmac = (name: string, algorithm: string) =>
  builtin(name, 2, (args) => {
    const [text, key] = [string(args, 0), string(args, 1)];
    return createHmac(algorithm, key).update(text, 'utf8').digest('hex');
  });

const seeded = (context: BuiltinContext, ...parts: (string | number)[]) =>
  createHash('sha256')
    .update(`${context.now.getTime()}\u0000${parts.join('\u0000')}`)
    .digest();

export const CRYPTO: Builtin[] = [
  hash('crypto.md5', 'md5'),
  hash('crypto.sha1', 'sha1'),
  hash('crypto.sha256', 'sha256'),
  hmac('crypto.hmac.md5', 'md5'),
  hmac('crypto.hmac.sha1', 'sha1'),
  hmac('crypto.hmac.sha256', 'sha256'),
  hmac('crypto.hmac.sha512', 'sha512'),
  builtin('crypto.hmac.equal', 2, (args) => string(args, 0) === string(args, 1)),
  builtin('rand.intn', 2, (args, context) => {
    const [seed, bound] = [string(args, 0), integer(args, 1)];
    if (bound === 0) return 0;
    if (bound < 0) throw new BuiltinError('operand 2 must be a positive integer');
    return Number(seeded(context, 'intn', seed, bound).readBigUInt64BE() % BigInt(bound));
  }),
  builtin('uuid.rfc4122', 1, (args, context) => {
    const bytes = seeded(context, 'uuid', string(args, 0)).subarray(0, 16);
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }),
];
