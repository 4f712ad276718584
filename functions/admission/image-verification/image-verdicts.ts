// What the functions call to have a rule's images verified before the rule runs: the verification code
// (registry client, sigstore-js) loads here on first use, in a chunk of its own, never at cold start.
import { deadlineSignal, type WorkDeadline } from '../decide/deadline.js';
import type { ImageCheck, ImageVerdict } from './image-check.js';
import { registryAccess } from './registry-access.js';

// Read at import, as the functions read their configuration: certificate authorities trusted beside the system's.
export const REGISTRY_CA_PEM = process.env.REGISTRY_CA_PEM || undefined;

export async function imageVerdicts(checks: readonly ImageCheck[], deadline: WorkDeadline | undefined): Promise<Map<string, ImageVerdict>> {
  const signal = deadlineSignal(deadline);
  const [{ verifiedImages }, access] = await Promise.all([
    import('./verified-images.js'),
    registryAccess(registriesOf(checks), REGISTRY_CA_PEM, signal),
  ]);
  return verifiedImages(checks, signal, access);
}

/** Every registry the checks read: the images', and those their signatures are kept in. */
export function* registriesOf(checks: readonly ImageCheck[]): Generator<string> {
  for (const check of checks) {
    yield check.reference.registry;
    if (check.repository) yield check.repository.registry;
    for (const set of [...check.attestors, ...check.attestations.flatMap(({ attestors }) => attestors)])
      for (const entry of set.entries) if (entry.repository) yield entry.repository.registry;
  }
}
