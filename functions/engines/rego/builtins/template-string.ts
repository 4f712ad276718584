// `$"…{x}…"` as OPA runs it (topdown/template_string.go): the compiler makes each expression the set of its
// values; an empty set reads `<undefined>`, a string as it is, any other value as Rego writes it. An
// expression with two values has no one answer: a conflict that stops the evaluation, never undefined.
import { textUnits } from '../../runtime/size-units.js';
import { RegoError } from '../errors.js';
import { RegoSet } from '../values.js';
import { type Builtin, builtin } from './builtin.js';
import { regoText } from './format.js';
import { array } from './operands.js';

export const TEMPLATE_STRINGS: Builtin[] = [
  builtin('internal.template_string', 1, (args, context) => {
    let text = '';
    for (const part of array(args, 0)) {
      let value = part;
      if (part instanceof RegoSet) {
        if (part.size > 1) throw new RegoError('eval_conflict_error', 'template-strings must not produce multiple outputs');
        const [only] = part.values();
        if (only === undefined) {
          text += '<undefined>';
          continue;
        }
        value = only;
      }
      text += typeof value === 'string' ? value : regoText(value);
    }
    context.charge(textUnits(text.length));
    return text;
  }),
];
