// `portcullis rego eval` as an OPA user runs `opa eval`: policies and data from files and folders, an input, a
// query; the result printed as opa eval prints it (`{"result": [...]}`, `{}` when undefined), errors as OPA's
// error objects, with their code and where.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portcullisInProcess as portcullis } from '../helpers/portcullis-cli.js';

const work = mkdtempSync(join(tmpdir(), 'portcullis-rego-eval-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(() => {
  mkdirSync(join(work, 'policy', 'lib'), { recursive: true });
  writeFileSync(
    join(work, 'policy', 'images.rego'),
    'package k8s\n\nviolation contains msg if {\n  some c in input.review.object.spec.containers\n  not startswith(c.image, data.lib.allowed)\n  msg := $"{c.name} uses {c.image}"\n}\n',
  );
  writeFileSync(join(work, 'policy', 'lib', 'data.json'), JSON.stringify({ allowed: 'registry.example.com/' }));
  writeFileSync(
    join(work, 'input.yaml'),
    'review:\n  object:\n    spec:\n      containers:\n        - {name: a, image: nginx}\n        - {name: b, image: registry.example.com/b}\n',
  );
  writeFileSync(join(work, 'v0.rego'), 'package old\n\nallow { input.x == 1 }\n');
});

describe('portcullis rego eval', () => {
  it('prints the result as opa eval does: each expression with its value, text and location', async () => {
    const result = await portcullis(['rego', 'eval', '-d', join(work, 'policy'), '-i', join(work, 'input.yaml'), 'data.k8s.violation']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      result: [{ expressions: [{ value: ['a uses nginx'], text: 'data.k8s.violation', location: { row: 1, col: 1 } }] }],
    });
  });

  it('reports bindings, prints {} when undefined, and raw values one per line', async () => {
    const bound = await portcullis(['rego', 'eval', '-d', join(work, 'policy'), 'x := data.lib.allowed']);
    expect(JSON.parse(bound.stdout).result[0].bindings).toEqual({ x: 'registry.example.com/' });
    const undefinedResult = await portcullis(['rego', 'eval', '-d', join(work, 'policy'), 'data.k8s.nothing']);
    expect(JSON.parse(undefinedResult.stdout)).toEqual({});
    const raw = await portcullis(['rego', 'eval', '-f', 'raw', '-d', join(work, 'policy'), 'data.lib.allowed']);
    expect(raw.stdout).toBe('registry.example.com/\n');
  });

  it('reads v0 sources with --v0-compatible, and refuses them otherwise with OPA’s parse error and where', async () => {
    const v0 = await portcullis(['rego', 'eval', '--v0-compatible', '-d', join(work, 'v0.rego'), 'data.old.allow with input as {"x": 1}']);
    expect(JSON.parse(v0.stdout).result[0].expressions[0].value).toBe(true);
    const v1 = await portcullis(['rego', 'eval', '-d', join(work, 'v0.rego'), 'data.old.allow']);
    expect(v1.code).toBe(2);
    expect(JSON.parse(v1.stdout).errors[0]).toMatchObject({
      code: 'rego_parse_error',
      location: { file: expect.stringMatching(/v0\.rego$/), row: 3 },
    });
  });

  it('--strict-builtin-errors makes a built-in’s error an error, as OPA’s strict mode does', async () => {
    const lenient = await portcullis(['rego', 'eval', 'x := to_number("nope")']);
    expect(JSON.parse(lenient.stdout)).toEqual({});
    const strict = await portcullis(['rego', 'eval', '--strict-builtin-errors', 'x := to_number("nope")']);
    expect(JSON.parse(strict.stdout).errors[0]).toMatchObject({
      code: 'eval_builtin_error',
      message: expect.stringMatching(/^to_number: /),
    });
  });
});
