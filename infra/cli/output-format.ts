// `-o table|json|yaml`: tables are for people; json and yaml print the command's result as a document on
// stdout (nothing else goes there), for kubectl, jq or a file.
import { Option } from 'commander';
import { stringify } from 'yaml';

export type OutputFormat = 'table' | 'json' | 'yaml';

export function outputOption(formats: readonly OutputFormat[], defaultFormat: OutputFormat): Option {
  return new Option('-o, --output <format>', 'output format').choices(formats).default(defaultFormat);
}

/** The value as a JSON or YAML document, ending in a newline. */
export function formatDocument(value: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? `${JSON.stringify(value, null, 2)}\n` : stringify(value);
}
