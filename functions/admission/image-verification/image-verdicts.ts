// What the functions call to have a rule's images verified before the rule runs: the verification code
// (registry client, sigstore-js) loads here on first use, in a chunk of its own, never at cold start.
import { deadlineSignal, type WorkDeadline } from '../decide/deadline.js';
import type { ImageCheck, ImageVerdict } from './image-check.js';
import { ecrCredentials } from './ecr-credentials.js';
import { registryCredentials } from './registry-credentials.js';

// Read at import, as the functions read their configuration: certificate authorities trusted beside the system's.
const REGISTRY_CA_PEM = process.env.REGISTRY_CA_PEM || undefined;

export async function imageVerdicts(checks: readonly ImageCheck[], deadline: WorkDeadline | undefined): Promise<Map<string, ImageVerdict>> {
  const signal = deadlineSignal(deadline);
  const [{ verifiedImages }, configured, ecr] = await Promise.all([
    import('./verified-images.js'),
    registryCredentials(signal),
    ecrCredentials(registriesOf(checks), signal),
  ]);
  // The deployment's config.json, where it names a registry, wins over an ECR token.
  const credentials = ecr.size > 0 ? new Map([...ecr, ...configured]) : configured;
  return verifiedImages(checks, signal, { ca: REGISTRY_CA_PEM, credentials });
}

/** Every registry the checks read: the images', and those their signatures are kept in. */
function* registriesOf(checks: readonly ImageCheck[]): Generator<string> {
  for (const check of checks) {
    yield check.reference.registry;
    if (check.repository) yield check.repository.registry;
    for (const set of [...check.attestors, ...check.attestations.flatMap(({ attestors }) => attestors)])
      for (const entry of set.entries) if (entry.repository) yield entry.repository.registry;
  }
}
