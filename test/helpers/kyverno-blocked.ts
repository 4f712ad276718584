// Reads Kyverno's denial message back: the failed rules' messages by policy, from the YAML block after
// "was blocked due to the following policies"; empty when the message has none.
import { parse } from 'yaml';

const HEADER = ' was blocked due to the following policies \n\n';

export function kyvernoFailuresIn(message: string): Record<string, Record<string, string>> {
  const at = message.indexOf(HEADER);
  if (at === -1) return {};
  return (parse(message.slice(at + HEADER.length)) ?? {}) as Record<string, Record<string, string>>;
}
