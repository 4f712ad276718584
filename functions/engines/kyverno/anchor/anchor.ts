// Kyverno's anchors (pkg/engine/anchor): a pattern key written `(key)`, `<(key)`, `X(key)`, `+(key)`,
// `=(key)` or `^(key)` names the field `key` and says how its pattern applies: as a condition of the rest
// of the map, of the whole rule, as a field that must be absent, added if absent (mutation), checked only if
// present, or satisfied by at least one element of a list.
export type AnchorKind = 'condition' | 'global' | 'negation' | 'addIfNotPresent' | 'equality' | 'existence';

export interface Anchor {
  kind: AnchorKind;
  key: string;
}

const MODIFIERS: Record<string, AnchorKind> = { '<': 'global', X: 'negation', '+': 'addIfNotPresent', '=': 'equality', '^': 'existence' };

/** The anchor a pattern key is, or undefined for a plain key. */
export function parseAnchor(text: string): Anchor | undefined {
  if (text.length < 2 || !text.endsWith(')')) return undefined;
  if (text.startsWith('(')) return text.length > 2 ? { kind: 'condition', key: text.slice(1, -1) } : undefined;
  const kind = MODIFIERS[text[0]!];
  if (kind === undefined || text[1] !== '(' || text.length < 4) return undefined;
  return { kind, key: text.slice(2, -1) };
}

/** The key with its anchor written back: `=(app.*)` after the wildcard in `app.*` was expanded. */
export function anchorText(anchor: Anchor, key: string): string {
  const modifier = Object.entries(MODIFIERS).find(([, kind]) => kind === anchor.kind)?.[0] ?? '';
  return `${modifier}(${key})`;
}
