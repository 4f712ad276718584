// A Kyverno rule as rules of the model, made once the rule is validated: its native match (the resources its
// kind selectors name, for registration and the stack's matching), then the autogen rules named in it
// (controllers.ts), each the rule with Pod replaced by the controllers in its match and exclude, judging the
// controllers' pod templates. Made from the validated rule, not validated again, so the Kyverno match is the
// one source of each and a bundle's cold start validates most of its rules once, not three times.
import type { Rule } from '../../../admission/rules/rules-document-schema.js';
import type { EngineRule } from '../../engine.js';
import type { KyvernoRule } from '../policy/rule-schema.js';
import { resourceOfKind } from '../../../admission/kubernetes/kind-resource.js';
import { internResourceRule } from '../../../admission/kubernetes/resource-rules.js';
import { filtersOf, type MatchBlock, parseKindSelector, type ResourceFilter } from '../match/resource-filter.js';

type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
const ALL_OPERATIONS: Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** The block with Pod replaced by `kinds` wherever it is named. */
export function withKinds<Block extends MatchBlock | undefined>(block: Block, kinds: string[]): Block {
  if (!block) return block;
  const swap = (filter: ResourceFilter): ResourceFilter =>
    filter.resources?.kinds
      ? {
          ...filter,
          resources: { ...filter.resources, kinds: filter.resources.kinds.flatMap((kind) => (kind === 'Pod' ? kinds : [kind])) },
        }
      : filter;
  return {
    ...swap(block),
    ...(block.any ? { any: block.any.map(swap) } : {}),
    ...(block.all ? { all: block.all.map(swap) } : {}),
  } as Block;
}

const wildcard = (text: string) => text.includes('*') || text.includes('?');

type SelectedResource = { apiGroups: string[]; apiVersions: string[]; resources: string[] };

// Per kind selector as written: a bundle's rules name the same few kinds, and autogen names the same
// controllers for every rule. The arrays are shared, read-only, by every rule that names the kind.
const resourcesOfSelector = new Map<string, SelectedResource>();
const MAX_SELECTORS = 1024;

/** The resource a kind selector names (the group as written, any group when none is; the subresource). */
function selectedResource(selector: string): SelectedResource {
  let selected = resourcesOfSelector.get(selector);
  if (!selected) {
    const { group, version, kind, subresource } = parseKindSelector(selector);
    const resource = wildcard(kind) ? '*' : resourceOfKind(kind);
    selected = {
      apiGroups: [wildcard(group) ? '*' : group],
      apiVersions: [wildcard(version) ? '*' : version],
      resources: [subresource ? `${resource}/${wildcard(subresource) ? '*' : subresource}` : resource],
    };
    if (resourcesOfSelector.size >= MAX_SELECTORS) resourcesOfSelector.clear();
    resourcesOfSelector.set(selector, selected);
  }
  return selected;
}

/**
 * The resources Kyverno's kind selectors name, as the native match's resource rules, with each filter's
 * operations. A superset: Kyverno's own match narrows it. Registration resolves a wildcard group of a
 * built-in resource.
 */
function resourceRulesOf(block: MatchBlock) {
  return filtersOf(block)
    .filter((filter) => filter.resources)
    .flatMap((filter) => {
      const operations = (filter.resources?.operations?.length ? filter.resources.operations : ALL_OPERATIONS) as Operation[];
      const kinds = filter.resources?.kinds?.length ? filter.resources.kinds : ['*'];
      return kinds.map((kind) => internResourceRule({ ...selectedResource(kind), operations, scope: '*' as const }));
    });
}

type ExpandedParameters = { run: EngineRule; podControllers: string[] };

/** The rule with its native match, then its autogen rules: named, matched and excepted as Kyverno's. */
export function expandKyvernoRule<P extends ExpandedParameters>(rule: Rule<P>): Rule<P>[] {
  // The engine expands only its own rules.
  const run = rule.parameters.run;
  const kyverno = run.rule as KyvernoRule;
  const { autogen = [], ...base } = kyverno;
  const expanded: Rule<P> = {
    ...rule,
    match: { ...rule.match, resourceRules: resourceRulesOf(base.match) },
    parameters: { ...rule.parameters, run: { ...run, rule: base } },
  };
  // `<policy>/<rule>`, and after it what the format added (`/override-0`).
  const suffix = rule.name.slice(`${kyverno.policy}/${kyverno.rule}`.length);
  const { exceptions: _excepted, ...unexcepted } = base;
  const made = autogen.map(({ rule: name, controllers, exceptions }): Rule<P> => {
    const match = withKinds(base.match, controllers);
    return {
      ...rule,
      name: `${kyverno.policy}/${name}${suffix}`,
      ...(rule.origin ? { origin: { ...rule.origin, rule: name } } : {}),
      match: { ...rule.match, resourceRules: resourceRulesOf(match) },
      parameters: {
        ...rule.parameters,
        podControllers: controllers,
        run: {
          ...run,
          rule: {
            ...unexcepted,
            rule: name,
            match,
            ...(base.exclude ? { exclude: withKinds(base.exclude, controllers) } : {}),
            ...(exceptions?.length ? { exceptions } : {}),
          },
        },
      },
    };
  });
  return [expanded, ...made];
}
