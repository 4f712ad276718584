// How the functions reach registries, for verifying images and for reading their data alike: the
// deployment's credentials for each registry (its config.json in SSM, ECR's own tokens), the system's
// certificate authorities and the deployment's REGISTRY_CA_PEM. The client itself is registry-client-of.ts's,
// loaded with the code that reads registries, never at cold start.
import { ecrCredentials } from './ecr-credentials.js';
import { type CredentialsByRegistry, registryCredentials } from './registry-credentials.js';

export interface RegistryAccess {
  /** The deployment's REGISTRY_CA_PEM, read when the function was. */
  ca: string | undefined;
  /** The deployment's registry credentials, as last read (registry-credentials.ts). */
  credentials: CredentialsByRegistry;
}

/** The access for reading `registries`: the deployment's config.json, where it names a registry, wins over an ECR token. */
export async function registryAccess(registries: Iterable<string>, ca: string | undefined, signal: AbortSignal): Promise<RegistryAccess> {
  const [configured, ecr] = await Promise.all([registryCredentials(signal), ecrCredentials(registries, signal)]);
  return { ca, credentials: ecr.size > 0 ? new Map([...ecr, ...configured]) : configured };
}
