// What a compiled policy reads, in one walk of its rules: the rule documents each rule depends on, for OPA's
// recursion check, and the base documents under `data` that no rule defines (`data.inventory`), which the
// formats may refuse.
import { compileError } from './errors.js';
import type { CompiledRule, RuleGroup, RuleNode, CompiledTerm } from './ir.js';
import { visitRule } from './visit.js';

/** A constant selector under `data` as the name it reads: OPA indexes data with a number as its text. */
export function dataKey(part: CompiledTerm): string | undefined {
  if (part.t !== 'const') return undefined;
  if (typeof part.value === 'string') return part.value;
  return typeof part.value === 'number' ? String(part.value) : undefined;
}

function collectGroups(node: RuleNode, into: Set<RuleGroup>): void {
  if (node.group) into.add(node.group);
  for (const child of node.children.values()) collectGroups(child, into);
}

const rulesOf = (group: RuleGroup): CompiledRule[] => [...group.rules, ...(group.defaultRule ? [group.defaultRule] : [])];

/**
 * What a rule reads, in one walk: the groups its data references reach (a whole subtree past a selector
 * that is not constant) and its functions; and the base documents under data it reads where no rule or
 * package is, by the path to the first name no rule defines (`inventory`), `*` for a name computed at run
 * time (`data[x]`, `data`).
 */
function readsOf(rule: CompiledRule, root: RuleNode, groups: Set<RuleGroup>, base: Set<string>): void {
  visitRule(rule, (term) => {
    if (term.t === 'data') {
      collectGroups(root, groups);
      base.add('*');
    } else if (term.t === 'ref' && term.head.t === 'data') {
      let node: RuleNode = root;
      const walked: string[] = [];
      for (const part of term.path) {
        if (node.group) break;
        const name = dataKey(part);
        const child = name === undefined ? undefined : node.children.get(name);
        if (!child) {
          // Past a computed selector, any rule below may be read; a constant one no rule defines is base data.
          if (name === undefined) collectGroups(node, groups);
          base.add([...walked, name ?? '*'].join('.'));
          return;
        }
        walked.push(name!);
        node = child;
      }
      if (node.group) groups.add(node.group);
      else collectGroups(node, groups);
    } else if (term.t === 'call' && term.fn.rule) {
      let node: RuleNode | undefined = root;
      for (const part of term.fn.rule) node = node?.children.get(part);
      if (node?.group) groups.add(node.group);
    }
  });
}

/**
 * OPA refuses recursion: a rule that reads itself, directly or through others. Returns the base documents
 * the rules read (readsOf), found in the same walk.
 */
export function checkReads(groups: Iterable<RuleGroup>, root: RuleNode): Set<string> {
  const edges = new Map<RuleGroup, Set<RuleGroup>>();
  const base = new Set<string>();
  for (const group of groups) {
    const reads = new Set<RuleGroup>();
    for (const rule of rulesOf(group)) readsOf(rule, root, reads, base);
    edges.set(group, reads);
  }
  const state = new Map<RuleGroup, 'visiting' | 'done'>();
  const visit = (group: RuleGroup, trail: RuleGroup[]): void => {
    if (state.get(group) === 'done') return;
    if (state.get(group) === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(group)), group].map(({ path }) => `data.${path.join('.')}`);
      // OPA's wording, at the first definition of the rule the cycle starts from.
      const first = rulesOf(group)[0];
      const error = compileError(`rule ${cycle[0]} is recursive: ${cycle.join(' -> ')}`, first?.loc, 'rego_recursion_error');
      throw first ? error.inFile(first.file) : error;
    }
    state.set(group, 'visiting');
    for (const next of edges.get(group) ?? []) visit(next, [...trail, group]);
    state.set(group, 'done');
  };
  for (const group of edges.keys()) visit(group, []);
  return base;
}
