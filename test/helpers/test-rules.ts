// The tests' own rules documents (test/fixtures/rules/<policy>.yaml): what the fixtures under events/ are
// judged against. The samples in policies/ are for people to edit; no test depends on what they say.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const TEST_RULES = resolve('test/fixtures/rules');

export const testRules = (policy: string): string => readFileSync(join(TEST_RULES, `${policy}.yaml`), 'utf8');
