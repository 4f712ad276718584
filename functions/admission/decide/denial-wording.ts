// How a family of policies words its denials and warnings, as its own webhook words them, so that alerts
// written on those messages still match. The formats own their wordings (formats/denial-wordings.ts), named
// by a rule's origin; a rule without one is worded as Kubernetes words a ValidatingAdmissionPolicy's.
import type { AdmissionRequest } from '../review/admission-review-schema.js';
import type { Rule } from '../rules/rules-document-schema.js';

export type RuleOrigin = NonNullable<Rule<unknown>['origin']>;

export interface WordedDenial {
  origin: RuleOrigin;
  /** A violation's message, or why the rule could not be evaluated (its failure policy Fail). */
  message: string;
}

export interface DenialWording {
  /** Where its part of a denial message goes: before the Kubernetes-worded part, or after it. */
  position: 'first' | 'last';
  /** Whether a rule that could not be evaluated (failure policy Fail) is worded so too, or as Kubernetes words it. */
  wordsErrors: boolean;
  /** The warning one violation of a Warn rule gives. */
  warning(origin: RuleOrigin, message: string): string;
  /** Its part of a denial message, from its rules' denials in order. */
  denial(request: AdmissionRequest, denials: readonly WordedDenial[]): string | Promise<string>;
}
