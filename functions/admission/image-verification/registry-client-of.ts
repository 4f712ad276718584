// The one registry client of a function, whose authorizations are kept between requests, with the
// credentials last read (registry-access.ts). Imported only by the modules that read registries, which load
// on first use.
import { type RegistryClient, registryClient } from '../registry/registry-client.js';
import type { RegistryAccess } from './registry-access.js';
import type { CredentialsByRegistry } from './registry-credentials.js';

let client: RegistryClient | undefined;
let credentials: CredentialsByRegistry = new Map();

export function clientOf(access: RegistryAccess): RegistryClient {
  credentials = access.credentials;
  return (client ??= registryClient({ ...(access.ca ? { ca: access.ca } : {}), credentialsFor: (registry) => credentials.get(registry) }));
}
