// The deployment's registry credentials: a Docker config.json in the SSM SecureString that
// REGISTRY_CREDENTIALS_PARAMETER names, read when a rule first verifies an image (within that request's
// deadline) and again once it is REGISTRY_CREDENTIALS_MAX_AGE_SECONDS old; a failed re-read keeps the last
// good credentials. Without the parameter, registries are reached anonymously. The credentials reach only
// the registry they are for, and never a log: errors name the parameter, never its value.
import { ssmParameterReader } from '../aws/ssm-get-parameter.js';
import type { RegistryCredentials } from '../registry/registry-auth.js';
import { credentialsFromDockerConfig } from './docker-config.js';

// Read at import, as the functions read their configuration.
const PARAMETER = process.env.REGISTRY_CREDENTIALS_PARAMETER || undefined;
const SSM_ENDPOINT = process.env.SSM_ENDPOINT || undefined;
const MAX_AGE_MS = Number(process.env.REGISTRY_CREDENTIALS_MAX_AGE_SECONDS || 300) * 1000;

export type CredentialsByRegistry = ReadonlyMap<string, RegistryCredentials>;

const NONE: CredentialsByRegistry = new Map();
let held: { credentials: CredentialsByRegistry; readAt: number } | undefined;
let reading: Promise<CredentialsByRegistry> | undefined;

async function read(signal: AbortSignal): Promise<CredentialsByRegistry> {
  const text = await ssmParameterReader(SSM_ENDPOINT ? { endpoint: SSM_ENDPOINT } : {})(PARAMETER!, signal);
  const parsed = credentialsFromDockerConfig(text ?? '');
  if (typeof parsed === 'string') throw new Error(`registry credentials (SSM parameter ${PARAMETER}): ${parsed}`);
  held = { credentials: parsed, readAt: performance.now() };
  return parsed;
}

/** The credentials by registry host; throws when none were ever read and this read fails. */
export async function registryCredentials(signal: AbortSignal): Promise<CredentialsByRegistry> {
  if (!PARAMETER) return NONE;
  if (held && performance.now() - held.readAt < MAX_AGE_MS) return held.credentials;
  reading ??= read(signal).finally(() => (reading = undefined));
  try {
    return await reading;
  } catch (error) {
    if (held) return held.credentials;
    throw new Error(`registry credentials could not be read from SSM parameter ${PARAMETER}: ${(error as Error).message}`);
  }
}
