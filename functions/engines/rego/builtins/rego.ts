// OPA's rego category. rego.metadata.chain() and rego.metadata.rule() are constants the compiler puts in
// their place in a rule (compile/annotations.ts); what reaches evaluation was called outside any rule.
// rego.parse_module parses Rego v1 and answers its AST as OPA marshals it (syntax/module-json.ts).
import { units } from '../../runtime/size-units.js';
import { BuiltinError, RegoError } from '../errors.js';
import { moduleJson } from '../syntax/module-json.js';
import { parseModule } from '../syntax/parser.js';
import { fromJson } from '../values.js';
import { type Builtin, builtin } from './builtin.js';
import { string } from './operands.js';

const ruleScoped = (name: string) =>
  builtin(name, 0, () => {
    throw new BuiltinError(`the ${name} function must only be called within the scope of a rule`);
  });

export const REGO: Builtin[] = [
  ruleScoped('rego.metadata.chain'),
  ruleScoped('rego.metadata.rule'),
  builtin('rego.parse_module', 2, (args, context) => {
    const [file, source] = [string(args, 0), string(args, 1)];
    context.charge(units(source));
    try {
      return fromJson(moduleJson(parseModule(source, file, { v1: true })));
    } catch (error) {
      if (error instanceof RegoError) throw new BuiltinError(`1 error occurred: ${error.message}`);
      throw error;
    }
  }),
];
