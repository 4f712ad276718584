// What a compiled policy reads: the rule documents each rule depends on, for OPA's recursion check, and the
// base documents under `data` that no rule defines (`data.inventory`), which the formats may refuse.
import { RegoCompileError } from './errors.js';
import type { CompiledRule, RuleGroup, RuleNode, Term } from './ir.js';
import { visitRule } from './visit.js';

/** A constant selector under `data` as the name it reads: OPA indexes data with a number as its text. */
export function dataKey(part: Term): string | undefined {
  if (part.t !== 'const') return undefined;
  if (typeof part.value === 'string') return part.value;
  return typeof part.value === 'number' ? String(part.value) : undefined;
}

function collectGroups(node: RuleNode, into: Set<RuleGroup>): void {
  if (node.group) into.add(node.group);
  for (const child of node.children.values()) collectGroups(child, into);
}

const rulesOf = (group: RuleGroup): CompiledRule[] => [...group.rules, ...(group.defaultRule ? [group.defaultRule] : [])];

/** The groups a rule reads: the groups its data references reach (a whole subtree past a selector that is not constant) and its functions. */
function groupsRead(rule: CompiledRule, root: RuleNode): Set<RuleGroup> {
  const into = new Set<RuleGroup>();
  visitRule(rule, (term) => {
    if (term.t === 'data') collectGroups(root, into);
    else if (term.t === 'ref' && term.head.t === 'data') {
      let node: RuleNode | undefined = root;
      for (const part of term.path) {
        if (node.group) break;
        const name = dataKey(part);
        if (name === undefined) break;
        node = node.children.get(name);
        if (!node) return;
      }
      if (node.group) into.add(node.group);
      else collectGroups(node, into);
    } else if (term.t === 'call' && term.fn.rule) {
      let node: RuleNode | undefined = root;
      for (const part of term.fn.rule) node = node?.children.get(part);
      if (node?.group) into.add(node.group);
    }
  });
  return into;
}

/** OPA refuses recursion: a rule that reads itself, directly or through others. */
export function checkRecursion(groups: Iterable<RuleGroup>, root: RuleNode): void {
  const edges = new Map<RuleGroup, Set<RuleGroup>>();
  for (const group of groups) edges.set(group, new Set(rulesOf(group).flatMap((rule) => [...groupsRead(rule, root)])));
  const state = new Map<RuleGroup, 'visiting' | 'done'>();
  const visit = (group: RuleGroup, trail: RuleGroup[]): void => {
    if (state.get(group) === 'done') return;
    if (state.get(group) === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(group)), group].map(({ path }) => `data.${path.join('.')}`);
      throw new RegoCompileError(`recursion detected: ${cycle.join(' -> ')}`);
    }
    state.set(group, 'visiting');
    for (const next of edges.get(group) ?? []) visit(next, [...trail, group]);
    state.set(group, 'done');
  };
  for (const group of edges.keys()) visit(group, []);
}

/**
 * The base documents the rules read under `data` (where no rule or package is), by the path to the first
 * name no rule defines (`inventory`, `lib.settings`); a name computed at run time is `*` (`data[x]`, `data`).
 */
export function baseDocumentsRead(groups: Iterable<RuleGroup>, root: RuleNode): Set<string> {
  const names = new Set<string>();
  for (const group of groups)
    for (const rule of rulesOf(group))
      visitRule(rule, (term) => {
        if (term.t === 'data') names.add('*');
        if (term.t !== 'ref' || term.head.t !== 'data') return;
        let node: RuleNode = root;
        const walked: string[] = [];
        for (const part of term.path) {
          if (node.group) return;
          const name = dataKey(part);
          const child = name === undefined ? undefined : node.children.get(name);
          if (!child) {
            names.add([...walked, name ?? '*'].join('.'));
            return;
          }
          walked.push(name!);
          node = child;
        }
      });
  return names;
}
