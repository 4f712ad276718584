// semver.is_valid and semver.compare (OPA's semver category) on the runtime's one SemVer parser.
import { compareSemVer, parseSemVer } from '../../runtime/go/semver.js';
import { BuiltinError } from '../errors.js';
import { type Builtin, builtin } from './builtin.js';
import { string } from './operands.js';

function version(index: number, args: Parameters<Builtin['call']>[0]) {
  const text = string(args, index);
  const parsed = parseSemVer(text);
  if (!parsed) throw new BuiltinError(`operand ${index + 1}: string ${JSON.stringify(text)} is not a valid SemVer`);
  return parsed;
}

export const SEMVER: Builtin[] = [
  builtin('semver.is_valid', 1, (args) => typeof args[0] === 'string' && parseSemVer(args[0]) !== undefined),
  builtin('semver.compare', 2, (args) => compareSemVer(version(0, args), version(1, args))),
];
