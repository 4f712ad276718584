// The resource name a kind is served as, guessed without the cluster's discovery: English plurals, as
// custom resources name theirs (`Ingress` → `ingresses`, `NetworkPolicy` → `networkpolicies`, `Gateway` →
// `gateways`), where apimachinery's UnsafeGuessKindToResource would make `gatewaies`. A kind whose resource
// breaks the rule is listed; callers that know the built-in kinds look them up first.

// Kinds whose resource name is not the rule's.
const IRREGULAR_RESOURCES: Record<string, string> = { Endpoints: 'endpoints' };

export function resourceOfKind(kind: string): string {
  if (Object.hasOwn(IRREGULAR_RESOURCES, kind)) return IRREGULAR_RESOURCES[kind]!;
  const lower = kind.toLowerCase();
  if (/(s|x|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
