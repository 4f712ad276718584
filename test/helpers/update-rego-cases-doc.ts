// Writes the tables of docs/rego.md's "Cases that do not pass" from test/fixtures/rego-cases-not-passing.yaml:
// `npx tsx test/helpers/update-rego-cases-doc.ts` after changing the list (test/unit/docs.test.ts checks it).
import { readFileSync, writeFileSync } from 'node:fs';
import { regoCasesSection } from './rego-cases-not-passing.js';

const DOC = 'docs/rego.md';
const text = readFileSync(DOC, 'utf8');
writeFileSync(DOC, regoCasesSection(text));
