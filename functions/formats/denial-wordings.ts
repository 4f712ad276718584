// The denial wordings of the formats whose webhooks word denials their own way, by the name a rule's origin
// gives (`origin.wording`): Gatekeeper's `[<constraint>] <message>` lines, and Kyverno's blocked-resource
// message (its YAML rendering loaded only when a ClusterPolicy denies), and policy-controller's field errors.
import type { DenialWording } from '../admission/decide/denial-wording.js';

const gatekeeper: DenialWording = {
  position: 'first',
  wordsErrors: false,
  warning: (origin, message) => `[${origin.name}] ${message}`,
  // One line per violation, joined by newlines as Gatekeeper's webhook joins them, each once.
  denial: (_request, denials) => [...new Set(denials.map(({ origin, message }) => `[${origin.name}] ${message}`))].join('\n'),
};

const kyverno: DenialWording = {
  position: 'last',
  wordsErrors: true,
  warning: (origin, message) => `policy ${origin.name}.${origin.rule}: ${message}`,
  denial: async (request, denials) =>
    (await import('./kyverno-denial.js')).kyvernoBlockedMessage(
      request,
      denials.map(({ origin, message }) => ({ policy: origin.name, rule: origin.rule ?? '', message })),
    ),
};

// policy-controller's webhook (knative's FieldErrors): `validation failed: ` and one error per line.
const sigstore: DenialWording = {
  position: 'first',
  wordsErrors: false,
  warning: (_origin, message) => message,
  denial: (_request, denials) => `validation failed: ${[...new Set(denials.map(({ message }) => message))].join('\n')}`,
};

export const DENIAL_WORDINGS: Readonly<Record<string, DenialWording>> = { gatekeeper, kyverno, sigstore };
