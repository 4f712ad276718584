// A rule for the Rego engine as a rules document writes it (a format makes it from Gatekeeper's template and
// constraint): the modules, the document whose members are the violations, the input's fixed fields, base
// documents under data, and whether data.inventory is the cluster's objects (and which kinds it must hold).
// The modules compile as the document is validated, once per rules version; a module that does not compile
// makes the document invalid, with OPA's error and where.
import { ClusterReadSchema } from '../../../admission/cluster/cluster-reads.js';
import * as v from '../../../admission/schema.js';
import type { RegoValidation } from './admission-target.js';
import type { Evaluator } from '../evaluator.js';

const ModuleSchema = v.strictObject({
  file: v.pipe(v.string(), v.minLength(1)),
  source: v.string(),
  v1: v.optional(v.boolean(), false),
});

// The built-ins that match with RE2 (a JSON schema's pattern and patternProperties too).
const REGEX_BUILTINS = /^(regex\.|re_match$|glob\.match$|json\.(match|verify)_schema$)/;

/** The schema, given how to reach the evaluator (loaded before rules that hold Rego are read). */
export function regoRuleSchemaOf(evaluator: () => Evaluator) {
  return v.pipe(
    v.strictObject({
      modules: v.pipe(v.array(ModuleSchema), v.minLength(1, 'expected at least one Rego module')),
      violations: v.pipe(v.string(), v.regex(/^data(\.[A-Za-z_][A-Za-z0-9_]*)+$/, 'expected a rule path, data.<package>.<rule>')),
      input: v.optional(v.record(v.string(), v.unknown()), () => ({})),
      data: v.optional(v.record(v.string(), v.unknown()), () => ({})),
      // data.inventory is the cluster's objects (a referential template's), which the snapshot must hold these of.
      inventory: v.optional(v.array(ClusterReadSchema)),
    }),
    v.rawTransform(({ dataset, addIssue, NEVER }): RegoValidation => {
      const written = dataset.value;
      let policy: ReturnType<Evaluator['compileSources']>;
      try {
        policy = evaluator().compileSources(written.modules);
      } catch (error) {
        addIssue({ path: v.issuePath('modules'), message: (error as Error).message });
        return NEVER;
      }
      const violations = written.violations.split('.').slice(1);
      const group = policy.groups.get(violations.join('.'));
      if (group && group.kind !== 'set') {
        addIssue({ path: v.issuePath('violations'), message: `${written.violations} is not a set (write it as a partial set rule)` });
        return NEVER;
      }
      if (!group) {
        addIssue({ path: v.issuePath('violations'), message: `no rule defines ${written.violations}` });
        return NEVER;
      }
      const usesRegex = [...policy.builtinsCalled].some((name) => REGEX_BUILTINS.test(name));
      return {
        policy,
        violations,
        input: written.input,
        data: written.data,
        usesRegex,
        usesGraphql: evaluator().graphqlLibrary.callsGraphql(policy.builtinsCalled),
        ...(written.inventory ? { inventory: written.inventory } : {}),
      };
    }),
  );
}
