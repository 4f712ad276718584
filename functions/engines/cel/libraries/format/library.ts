// Kubernetes' format library for CEL (k8s.io/apiserver/pkg/cel/library/format.go): named string formats,
// `format.dns1123Label().validate(name)` is optional.none() when valid, else optional.of(list of errors).
import { Optional } from '@marcbachmann/cel-js';
import type { CelLibrary } from '../cel-library.js';

type Check = (value: string) => string[];

const tooLong = (value: string, max: number) => (value.length > max ? [`must be no more than ${max} characters`] : []);
const pattern =
  (regex: RegExp, what: string, example: string): Check =>
  (value) =>
    regex.test(value) ? [] : [`a ${what} must consist of ${example}`];

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const label: Check = (value) => [
  ...tooLong(value, 63),
  ...pattern(
    DNS1123_LABEL,
    'lowercase RFC 1123 label',
    "lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  )(value),
];
const subdomain: Check = (value) => [
  ...tooLong(value, 253),
  ...pattern(
    DNS1123_SUBDOMAIN,
    'lowercase RFC 1123 subdomain',
    "lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  )(value),
];
const label1035: Check = (value) => [
  ...tooLong(value, 63),
  ...pattern(
    DNS1035_LABEL,
    'DNS-1035 label',
    "lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
  )(value),
];
// A prefix is valid when adding a generated suffix could make it valid: a trailing '-' is allowed.
const prefixOf =
  (check: Check): Check =>
  (value) =>
    check(value.endsWith('-') ? `${value}a` : value);

const qualifiedName: Check = (value) => {
  const parts = value.split('/');
  if (parts.length > 2)
    return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS subdomain prefix and '/'"];
  const name = parts.at(-1)!;
  const errors =
    name.length === 0
      ? ['name part must be non-empty']
      : [
          ...tooLong(name, 63).map((error) => `name part ${error}`),
          ...(QUALIFIED_NAME_PART.test(name)
            ? []
            : [
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
              ]),
        ];
  if (parts.length === 2)
    errors.push(...(parts[0] === '' ? ['prefix part must be non-empty'] : subdomain(parts[0]!).map((error) => `prefix part ${error}`)));
  return errors;
};

const dateOk = (value: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) &&
  !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
  new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);

const FORMATS: Record<string, Check> = {
  dns1123Label: label,
  dns1123Subdomain: subdomain,
  dns1035Label: label1035,
  qualifiedName,
  dns1123LabelPrefix: prefixOf(label),
  dns1123SubdomainPrefix: prefixOf(subdomain),
  dns1035LabelPrefix: prefixOf(label1035),
  labelValue: (value) => [
    ...tooLong(value, 63),
    ...(LABEL_VALUE.test(value)
      ? []
      : [
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        ]),
  ],
  uri: (value) => (/^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/.test(value) || /^\/[^\s]*$/.test(value) ? [] : ['invalid URI']),
  uuid: (value) => (UUID.test(value) ? [] : ['does not match the UUID format']),
  byte: (value) => (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value) ? [] : ['invalid base64']),
  date: (value) => (dateOk(value) ? [] : ['invalid date']),
  datetime: (value) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value))
      ? []
      : ['invalid datetime'],
};

export class Format {
  constructor(
    readonly name: string,
    readonly check: Check,
  ) {}
}

export const formatLibrary: CelLibrary = {
  name: 'kubernetes.format',
  namespaces: [{ constant: 'format' }],
  types: {
    Format: Format,
  },
  functions: {
    ...Object.fromEntries(Object.entries(FORMATS).map(([name, check]) => [`format.${name}(): Format`, () => new Format(name, check)])),
    'format.named(string): optional<Format>': (_namespace: unknown, name: string) =>
      Object.hasOwn(FORMATS, name) ? Optional.of(new Format(name, FORMATS[name]!)) : Optional.none(),
    'Format.validate(string): optional<list<string>>': (format: Format, value: string) => {
      const errors = format.check(value);
      return errors.length === 0 ? Optional.none() : Optional.of(errors);
    },
  },
};
