// The packaged CloudFormation templates the e2e tests read: `sls package`'s update-stack template of a folder
// the global setup packaged.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Template = {
  Resources: Record<string, { Type: string; Condition?: string; Properties: any }>;
  Conditions: Record<string, unknown>;
  Outputs: Record<string, any>;
};

export const packagedTemplate = (folder: string) =>
  JSON.parse(readFileSync(join(folder, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
