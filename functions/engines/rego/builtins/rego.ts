// OPA's rego category. rego.metadata.chain() and rego.metadata.rule() are constants the compiler puts in
// their place in a rule (compile/annotations.ts); what reaches evaluation was called outside any rule.
import { BuiltinError } from '../errors.js';
import { type Builtin, builtin } from './builtin.js';

const ruleScoped = (name: string) =>
  builtin(name, 0, () => {
    throw new BuiltinError(`the ${name} function must only be called within the scope of a rule`);
  });

export const REGO: Builtin[] = [ruleScoped('rego.metadata.chain'), ruleScoped('rego.metadata.rule')];
