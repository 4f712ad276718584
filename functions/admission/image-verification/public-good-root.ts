// Sigstore's public-good trust root (Rekor's logs, Fulcio's CAs, the CT logs, the timestamp authority), as
// the @sigstore/tuf release this package was built with carries it in its TUF seeds: never fetched on the
// request path. A deployment that trusts a private Sigstore, or a newer root, replaces it (issue 53).
import seeds from '@sigstore/tuf/seeds.json' with { type: 'json' };
import type { TrustedRoot } from '@sigstore/protobuf-specs';
import { trustedRootOf } from './trusted-root.js';

const SEED = 'https://tuf-repo-cdn.sigstore.dev';

let root: TrustedRoot | undefined;

/** The public-good trusted root; its seed not parsing is a defect of the build, not of a request. */
export function publicGoodRoot(): TrustedRoot {
  if (root) return root;
  const encoded = (seeds as Record<string, { targets?: Record<string, string> }>)[SEED]?.targets?.['trusted_root.json'];
  if (!encoded) throw new Error(`@sigstore/tuf's seeds hold no trusted_root.json for ${SEED}`);
  const read = trustedRootOf(JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')));
  if (typeof read === 'string') throw new Error(`@sigstore/tuf's trusted_root.json: ${read}`);
  root = read;
  return root;
}
