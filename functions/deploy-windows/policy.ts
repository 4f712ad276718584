// deploy-windows: change freezes. Inside a weekly freeze window or a frozen date range (in the rule's time
// zone) changes to the covered kinds are denied, and the message says when the freeze ends. Break-glass
// users and groups are exempt. The clock is handed in by the stack, so tests and `portcullis invoke --now` fix it.
import { matchesAnyGlob } from '../admission/kubernetes/glob.js';
import type { ValidatingPolicy } from '../admission/policy.js';
import { addDays, atClock, type LocalTime, localTime, minutesOf, weekdayBefore } from './local-time.js';
import { type DeployWindowsParameters, DeployWindowsParametersSchema } from './rules.js';

type Freeze = DeployWindowsParameters['freezes'][number];

/** When the weekly window covering `now` ends, as a local date and clock, or undefined when none does. */
function weeklyFreezeEnd(freeze: Freeze, now: LocalTime): { date: string; clock: string } | undefined {
  const from = minutesOf(freeze.from);
  const to = minutesOf(freeze.to);
  const crossesMidnight = to <= from;
  const startsOn = (weekday: LocalTime['weekday']) => !freeze.days || freeze.days.includes(weekday);
  if (startsOn(now.weekday) && now.minutes >= from && (crossesMidnight || now.minutes < to)) {
    return { date: crossesMidnight ? addDays(now.date, 1) : now.date, clock: freeze.to };
  }
  if (crossesMidnight && startsOn(weekdayBefore(now.weekday)) && now.minutes < to) return { date: now.date, clock: freeze.to };
  return undefined;
}

interface FreezeEnd {
  date: string;
  clock: string;
  what: string;
}

/** Every freeze covering `local`, each with the local date and clock it ends. */
function coveringFreezes(local: LocalTime, parameters: DeployWindowsParameters): FreezeEnd[] {
  return [
    ...parameters.freezes.flatMap((freeze) => {
      const end = weeklyFreezeEnd(freeze, local);
      return end ? [{ ...end, what: `weekly freeze ${freeze.days ? `${freeze.days.join(',')} ` : ''}${freeze.from}-${freeze.to}` }] : [];
    }),
    ...parameters.dates
      .filter(({ from, to }) => local.date >= from && local.date <= to)
      .map(({ from, to }) => ({ date: addDays(to, 1), clock: '00:00', what: `freeze ${from} to ${to}` })),
  ];
}

/** Follows a freeze through windows that start as it ends (Friday evening into the weekend). */
function realEnd(end: FreezeEnd, parameters: DeployWindowsParameters): FreezeEnd {
  let current = end;
  for (let step = 0; step < 400; step++) {
    const next = coveringFreezes(atClock(current.date, current.clock), parameters).reduce<FreezeEnd | undefined>(
      (latest, candidate) => (!latest || `${candidate.date} ${candidate.clock}` > `${latest.date} ${latest.clock}` ? candidate : latest),
      undefined,
    );
    if (!next || `${next.date} ${next.clock}` <= `${current.date} ${current.clock}`) return current;
    current = { ...next, what: end.what };
  }
  return current;
}

export const deployWindowsPolicy: ValidatingPolicy<DeployWindowsParameters> = {
  name: 'deploy-windows',
  kind: 'validating',
  defaultKinds: ['Deployment', 'StatefulSet', 'DaemonSet', 'CronJob', 'Job'],
  parametersSchema: DeployWindowsParametersSchema,
  evaluate(request, parameters, { now }) {
    const { username = '', groups = [] } = request.userInfo;
    if (matchesAnyGlob(username, parameters.exemptUsers) || groups.some((group) => matchesAnyGlob(group, parameters.exemptGroups)))
      return [];
    const what = `${request.operation} of ${request.kind.kind} "${request.name ?? '(unnamed)'}"`;
    return coveringFreezes(localTime(now, parameters.timezone), parameters).map((freeze) => {
      const { date, clock } = realEnd(freeze, parameters);
      return `${what} is not allowed during the ${freeze.what}; the freeze ends ${date} ${clock} ${parameters.timezone}`;
    });
  },
};
