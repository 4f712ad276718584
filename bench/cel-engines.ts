// `npx tsx bench/cel-engines.ts`: the CEL evaluators the cel policy could run on, compared on what the issue
// on Kubernetes policies asks: how many of the upstream corpus's expressions each parses as written (optional
// types, macros) and accepts with its functions, what compiling and evaluating an expression costs, the
// code each adds to a bundle, and how many of the CEL specification's conformance tests each passes (those
// that need no protocol buffer messages: bench/cel-conformance.ts). Data: every expression of the Kyverno
// ValidatingPolicies in ../shared/corpora/kyverno-vpol and of Gatekeeper's CEL requiredlabels template.
import { readdirSync, readFileSync, statSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { celEnv, celUint, isCelError, isCelList, isCelMap, isCelUint, parse as bufParse, plan as bufPlan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { Environment } from '@marcbachmann/cel-js';
import { build } from 'esbuild';
import { parseAllDocuments } from 'yaml';
import { toCel } from '../functions/engines/cel/index.js';
import { CORPORA } from '../test/helpers/corpora.js';
import { sampleDeployment } from './sample-review.js';
import {
  type ConformanceRunner,
  type ConformanceValue,
  type Plain,
  plainDouble,
  runConformance,
  runnableConformanceTests,
  sortedMap,
} from './cel-conformance.js';

function yamlFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? yamlFiles(path) : name.endsWith('.yaml') ? [path] : [];
  });
}

/** Every CEL expression a ValidatingPolicy or a K8sNativeValidation template holds, once each. */
function corpusExpressions(): string[] {
  const found = new Set<string>();
  const add = (value: unknown) => typeof value === 'string' && value.trim() && found.add(value.trim());
  const collect = (spec: any) => {
    for (const v of spec?.validations ?? []) {
      add(v.expression);
      add(v.messageExpression);
    }
    for (const v of spec?.variables ?? []) add(v.expression);
    for (const v of spec?.matchConditions ?? []) add(v.expression);
    for (const v of spec?.auditAnnotations ?? []) add(v.valueExpression);
  };
  for (const file of [
    ...yamlFiles(join(CORPORA, 'kyverno-vpol')),
    join(CORPORA, 'gatekeeper-library', 'requiredlabels', 'template.yaml'),
  ]) {
    for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const manifest = document.toJS() as any;
      if (manifest?.kind === 'ValidatingPolicy') collect(manifest.spec);
      if (manifest?.kind === 'ConstraintTemplate')
        for (const target of manifest.spec?.targets ?? [])
          for (const code of target.code ?? []) if (code.engine === 'K8sNativeValidation') collect(code.source);
    }
  }
  return [...found];
}

interface Engine {
  name: string;
  /** Throws when the expression does not parse. */
  parse(source: string): unknown;
  /** Throws when the parsed expression calls something the engine lacks (or, where it checks, mistypes). */
  check(source: string): unknown;
  /** A reusable evaluation of the expression against the bindings of `evaluate`. */
  compile(source: string): (bindings: Record<string, unknown>) => unknown;
  bindings(object: unknown): Record<string, unknown>;
  bundleEntry: string;
  conformance: ConformanceRunner;
}

/** A conformance value as an evaluator takes it, given how it makes a uint and a map. */
function inputOf(value: ConformanceValue, uint: (value: bigint) => unknown): unknown {
  const { case: kind, value: inner } = value.kind;
  if (kind === 'uint64Value') return uint(inner as bigint);
  if (kind === 'nullValue') return null;
  if (kind === 'listValue') return (inner as { values: ConformanceValue[] }).values.map((item) => inputOf(item, uint));
  if (kind === 'mapValue')
    return new Map(
      (inner as { entries: { key: ConformanceValue; value: ConformanceValue }[] }).entries.map(({ key, value: item }) => [
        inputOf(key, uint),
        inputOf(item, uint),
      ]),
    );
  return inner;
}

/** The values both evaluators give alike: int, double, string, bool, bytes, null. */
function plainScalar(value: unknown): Plain | undefined {
  if (typeof value === 'bigint') return ['int', String(value)];
  if (typeof value === 'number') return plainDouble(value);
  if (typeof value === 'string') return ['string', value];
  if (typeof value === 'boolean') return ['bool', value];
  if (value === null || value === undefined) return ['null', null];
  if (value instanceof Uint8Array) return ['bytes', Buffer.from(value).toString('base64')];
  return undefined;
}

/** A value of cel-js: uints are its own class, maps are Maps or plain objects (whose keys are strings). */
function plainOfCelJs(value: unknown, UnsignedInt: abstract new (...args: never[]) => unknown): Plain | undefined {
  const scalar = plainScalar(value);
  if (scalar) return scalar;
  if (value instanceof UnsignedInt) return ['uint', String((value as { value: bigint }).value)];
  const plain = (item: unknown) => plainOfCelJs(item, UnsignedInt) ?? ['unreadable', null];
  if (Array.isArray(value)) return ['list', value.map(plain)];
  if (value instanceof Map) return sortedMap([...value].map(([key, item]) => [plain(key), plain(item)]));
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype)
    return sortedMap(Object.entries(value).map(([key, item]) => [['string', key], plain(item)]));
  return undefined;
}

function plainOfBufbuild(value: unknown): Plain | undefined {
  const scalar = plainScalar(value);
  if (scalar) return scalar;
  if (isCelUint(value)) return ['uint', String(value.value)];
  const plain = (item: unknown) => plainOfBufbuild(item) ?? ['unreadable', null];
  if (isCelList(value)) return ['list', [...value.values()].map(plain)];
  if (isCelMap(value)) return sortedMap([...value.entries()].map(([key, item]) => [plain(key), plain(item)]));
  return undefined;
}

const bufEnv = celEnv({ funcs: strings });
const VARIABLES = ['object', 'oldObject', 'request', 'params', 'variables', 'namespaceObject', 'authorizer'];
const marcEnv = new Environment({ enableOptionalTypes: true, unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false });
for (const name of VARIABLES) marcEnv.registerVariable(name, 'dyn');

// For the conformance tests: every variable dyn, as the cel policy declares its own.
const bufConformanceEnv = celEnv({ funcs: strings });
const marcConformanceEnv = new Environment({
  enableOptionalTypes: true,
  unlistedVariablesAreDyn: true,
  homogeneousAggregateLiterals: false,
});
// cel-js does not export its uint class; its own `1u` is one.
const MarcUnsignedInt = (marcConformanceEnv.evaluate('1u') as object).constructor as new (value: bigint) => unknown;

const ENGINES: Engine[] = [
  {
    name: '@bufbuild/cel 0.6.1 (today)',
    parse: (source) => bufParse(source),
    check: (source) => bufPlan(bufEnv, bufParse(source)),
    compile: (source) => {
      const program = bufPlan(bufEnv, bufParse(source));
      return (bindings) => program(bindings as never);
    },
    bindings: (object) => ({ object: toCel(object), oldObject: null, variables: new Map(), params: new Map() }),
    bundleEntry:
      "import { celEnv, parse, plan } from '@bufbuild/cel'; import { strings } from '@bufbuild/cel/ext'; const env = celEnv({ funcs: strings }); console.log(plan(env, parse('1 + 1'))({}));",
    conformance: {
      evaluate: (expression, bindings) => {
        const result = bufPlan(bufConformanceEnv, bufParse(expression))(bindings as never);
        if (isCelError(result)) throw result;
        return result;
      },
      input: (value) => inputOf(value, (uint) => celUint(uint)),
      plain: plainOfBufbuild,
    },
  },
  {
    name: '@marcbachmann/cel-js 8.0.0',
    parse: (source) => marcEnv.parse(source),
    check: (source) => {
      const result = marcEnv.check(source) as { valid?: boolean; error?: { message?: string } };
      if (result && result.valid === false) throw new Error(result.error?.message ?? 'does not check');
      return result;
    },
    compile: (source) => {
      const program = marcEnv.parse(source);
      return (bindings) => program(bindings);
    },
    bindings: (object) => ({ object, oldObject: null, variables: {}, params: {} }),
    bundleEntry: "import { Environment } from '@marcbachmann/cel-js'; console.log(new Environment().evaluate('1 + 1'));",
    conformance: {
      evaluate: (expression, bindings) => marcConformanceEnv.evaluate(expression, bindings),
      input: (value) => inputOf(value, (uint) => new MarcUnsignedInt(uint)),
      plain: (value) => plainOfCelJs(value, MarcUnsignedInt),
    },
  },
];

const firstLine = (error: unknown) =>
  String((error as Error)?.message ?? error)
    .split('\n')[0]!
    .replace(/^<input>:\d+:\d+: /, '')
    .slice(0, 70);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

const expressions = corpusExpressions();
const conformance = runnableConformanceTests();
console.log(
  `${expressions.length} distinct expressions in the corpus; ${conformance.tests.length} of the ${conformance.total} CEL conformance tests need no protocol buffer messages\n`,
);
const work = mkdtempSync(join(tmpdir(), 'cel-engines-'));
const TEN = [
  'object.spec.replicas <= 50',
  'has(object.metadata.labels) && "app" in object.metadata.labels',
  "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))",
  'size(object.metadata.name) < 64',
  'object.spec.template.spec.containers.all(c, has(c.resources) && has(c.resources.limits))',
  "object.metadata.namespace != 'default'",
  "object.spec.template.spec.containers.exists(c, c.name == 'checkout')",
  'object.spec.template.spec.containers.all(c, c.securityContext.runAsNonRoot == true)',
  "object.spec.template.spec.containers.all(c, c.image.startsWith('192.168.64.1:5000/'))",
  'object.spec.replicas >= 1',
];

for (const engine of ENGINES) {
  const parseFailures = new Map<string, number>();
  const checkFailures = new Map<string, number>();
  let parsed = 0;
  let checked = 0;
  const compileNs: number[] = [];
  for (const source of expressions) {
    try {
      const started = process.hrtime.bigint();
      engine.parse(source);
      compileNs.push(Number(process.hrtime.bigint() - started));
      parsed++;
    } catch (error) {
      parseFailures.set(firstLine(error), (parseFailures.get(firstLine(error)) ?? 0) + 1);
      continue;
    }
    try {
      engine.check(source);
      checked++;
    } catch (error) {
      checkFailures.set(firstLine(error), (checkFailures.get(firstLine(error)) ?? 0) + 1);
    }
  }
  const bindings = engine.bindings(sampleDeployment());
  const programs = TEN.map((source) => engine.compile(source));
  for (let i = 0; i < 500; i++) for (const program of programs) program(bindings);
  const evalNs: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const started = process.hrtime.bigint();
    for (const program of programs) program(bindings);
    evalNs.push(Number(process.hrtime.bigint() - started) / TEN.length);
  }
  const entry = join(work, `${engine.name.replace(/\W+/g, '-')}.ts`);
  writeFileSync(entry, engine.bundleEntry);
  const outfile = `${entry}.js`;
  await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    outfile,
    logLevel: 'silent',
    nodePaths: [join(process.cwd(), 'node_modules')],
  });
  const conformed = runConformance(engine.conformance, conformance.tests);
  const top = (failures: Map<string, number>) =>
    [...failures.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([why, count]) => `      ${count}× ${why}`)
      .join('\n');
  console.log(`${engine.name}
  parses ${parsed}/${expressions.length} (${((100 * parsed) / expressions.length).toFixed(1)}%)${parseFailures.size ? `, failing on:\n${top(parseFailures)}` : ''}
  accepts with its functions ${checked}/${expressions.length}${checkFailures.size ? `, refusing:\n${top(checkFailures)}` : ''}
  parse per expression, median ${(median(compileNs) / 1000).toFixed(1)} µs; evaluation per expression (10 on a 10 KB Deployment) ${(median(evalNs) / 1000).toFixed(2)} µs
  bundle (minified, its own) ${(statSync(outfile).size / 1024).toFixed(1)} KB
  CEL conformance tests passed ${conformed.passed}/${conformance.tests.length} (${((100 * conformed.passed) / conformance.tests.length).toFixed(1)}%), by suite:
      ${[...conformed.bySuite].map(([suite, [passed, all]]) => `${suite} ${passed}/${all}`).join(', ')}
`);
}
