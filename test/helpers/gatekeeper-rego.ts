// The Gatekeeper library's templates in ../shared/corpora/gatekeeper-rego: each template with its gator
// suite's tests and cases, read as written. `regoOnly` removes a template's K8sNativeValidation code (so its
// Rego runs) and `denying` forces a constraint's enforcementAction to deny: the two changes the tests may make.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CORPORA, corpusDocuments, corpusYaml, type GatekeeperAssertion } from './corpora.js';

const LIBRARY = join('gatekeeper-rego', 'library');

export interface GatorCase {
  name: string;
  object: any;
  assertions: GatekeeperAssertion[];
  inventory: any[];
}

export interface GatorTest {
  /** `<group>/<template>: <test>`. */
  name: string;
  template: any;
  constraint: any;
  cases: GatorCase[];
}

/** Every template folder of the library with a suite: `general/allowedrepos`, … */
export function libraryTemplates(): string[] {
  return readdirSync(join(CORPORA, LIBRARY)).flatMap((group) =>
    readdirSync(join(CORPORA, LIBRARY, group))
      .filter((name) => existsSync(join(CORPORA, LIBRARY, group, name, 'suite.yaml')))
      .map((name) => `${group}/${name}`),
  );
}

export function gatorTests(folder: string): GatorTest[] {
  const at = (...path: string[]) => join(LIBRARY, folder, ...path);
  const suite = corpusYaml<{ tests: { name: string; template: string; constraint: string; cases: any[] }[] }>(at('suite.yaml'));
  return suite.tests.map((test) => ({
    name: `${folder}: ${test.name}`,
    template: corpusDocuments(at(test.template))[0],
    constraint: corpusDocuments(at(test.constraint))[0],
    cases: (test.cases ?? []).map((entry) => ({
      name: entry.name,
      object: corpusYaml(at(entry.object)),
      assertions: entry.assertions ?? [{}],
      inventory: ((entry.inventory ?? []) as string[]).flatMap((file) => corpusDocuments(at(file))),
    })),
  }));
}

/** The template without its K8sNativeValidation code, so that its Rego runs. */
export function regoOnly(template: any): any {
  const copy = structuredClone(template);
  for (const target of copy.spec.targets ?? []) {
    if (!target.code) continue;
    target.code = target.code.filter((code: { engine?: string }) => code.engine !== 'K8sNativeValidation');
    if (target.code.length === 0) delete target.code;
  }
  return copy;
}

export const denying = (constraint: any): any => ({ ...constraint, spec: { ...constraint.spec, enforcementAction: 'deny' } });
