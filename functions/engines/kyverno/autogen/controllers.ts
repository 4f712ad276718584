// Which autogen rules Kyverno makes for a policy's rules (pkg/autogen/v1): CanAutoGen decides whether the
// policy gets any, the `pod-policies.kyverno.io/autogen-controllers` annotation narrows the controllers, and a
// rule that names Pods gets autogen-<rule> (Deployment, DaemonSet, Job, StatefulSet, ReplicaSet,
// ReplicationController) and autogen-cronjob-<rule> (CronJob). The rules themselves are made once the rule is
// validated (expand.ts).
import { DEFAULT_POD_CONTROLLERS, isPodController, type PodController } from '../../../admission/kubernetes/pod-controllers.js';
import { filtersOf } from '../match/resource-filter.js';
import type { WrittenRule } from '../policy/rule-schema.js';

/** Kyverno's default autogen controllers: every pod controller. */
const AUTOGEN_CONTROLLERS: PodController[] = [...DEFAULT_POD_CONTROLLERS, 'ReplicationController'];
const AUTOGEN_ANNOTATION = 'pod-policies.kyverno.io/autogen-controllers';

/** Kyverno's CanAutoGen: every filter names kinds without a name, selector or annotations, and some rule names Pods. */
function canAutogen(rules: readonly WrittenRule[]): boolean {
  let needed = false;
  for (const rule of rules) {
    for (const filter of [...filtersOf(rule.match), ...filtersOf(rule.exclude)]) {
      const resources = filter.resources;
      if (!resources) continue;
      const kinds = resources.kinds ?? [];
      if (resources.name || resources.names?.length || resources.selector || resources.annotations) return false;
      if (kinds.length > 1 && kinds.includes('Pod')) return false;
      if (kinds.some((kind) => kind === 'Pod' || isPodController(kind))) needed = true;
    }
  }
  return needed;
}

/** The controllers autogen makes rules for, given the policy's annotations: the annotation's list, `none`, or every pod controller. */
export function autogenControllers(annotations: Readonly<Record<string, string>>, rules: readonly WrittenRule[]): PodController[] {
  if (!canAutogen(rules)) return [];
  const requested = annotations[AUTOGEN_ANNOTATION];
  if (requested === undefined || requested === '') return AUTOGEN_CONTROLLERS;
  if (requested === 'none') return [];
  return requested
    .split(',')
    .map((kind) => kind.trim())
    .filter(isPodController);
}

/**
 * The autogen rules Kyverno makes for a rule that names Pods, with the exceptions that name each
 * (`exceptionsNaming`: the bundle's PolicyExceptions, as the format reads them).
 */
export function autogenRulesOf<E>(
  rule: WrittenRule,
  ruleName: string,
  controllers: readonly PodController[],
  exceptionsNaming: (autogenName: string) => E[],
): { rule: string; controllers: string[]; exceptions?: E[] }[] {
  if (!filtersOf(rule.match).some((filter) => filter.resources?.kinds?.includes('Pod'))) return [];
  const others = controllers.filter((controller) => controller !== 'CronJob');
  const autogenFor = (autogenName: string, kinds: string[]) => {
    const exceptions = exceptionsNaming(autogenName);
    return { rule: autogenName, controllers: kinds, ...(exceptions.length > 0 ? { exceptions } : {}) };
  };
  return [
    ...(others.length > 0 ? [autogenFor(`autogen-${ruleName}`, others)] : []),
    ...(controllers.includes('CronJob') ? [autogenFor(`autogen-cronjob-${ruleName}`, ['CronJob'])] : []),
  ];
}
