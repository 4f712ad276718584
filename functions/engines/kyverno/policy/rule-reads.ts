// What a rule's text reads that the data holds only for rules that read it (rule-data.ts) and the snapshot
// holds only for rules that need it (cluster-use.ts): each known once per rule of a rules version.

function readerOf(pattern: RegExp): (rule: object) => boolean {
  const known = new WeakMap<object, boolean>();
  return (rule) => {
    let reads = known.get(rule);
    if (reads === undefined) {
      reads = pattern.test(JSON.stringify(rule));
      known.set(rule, reads);
    }
    return reads;
  };
}

/** Whether the rule reads `images`. */
export const readsImages = readerOf(/\bimages\b/);

/** Whether the rule reads `request.roles` or `request.clusterRoles`: the user's bindings. */
export const readsUserRoles = readerOf(/\brequest\.(roles|clusterRoles)\b/);
