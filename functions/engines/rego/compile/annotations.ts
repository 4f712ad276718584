// OPA's METADATA annotations, read as OPA's parser reads them (v1/ast/parser.go, annotations.go), for
// rego.metadata.chain() and rego.metadata.rule(), which OPA's compiler turns into constants per rule
// (RewriteRegoMetadataCalls). A block is a comment starting `METADATA` and the comments on the following rows
// at column 1, one leading space dropped, read as YAML; it belongs to the first package or rule below it.
// Read only when a module calls one of the two, as OPA's compiler does (ParseMetadataBlocks).
import { parse as parseYaml } from 'yaml';
import type * as ast from '../syntax/ast.js';
import { fromJson, type Value } from '../values.js';
import { compileError } from './errors.js';

type Annotation = { scope: string; row: number; col: number; object: Record<string, unknown> };
type Target = { row: number; rule?: ast.Rule; isImport?: boolean };

export interface RuleMetadata {
  chain: Value;
  rule: Value;
}

const SCOPES = ['rule', 'document', 'package', 'subpackages'];

/** OPA's parseAuthorString: `Name <email>`, the email only when the last word is in angle brackets. */
function author(entry: unknown, loc: ast.Location): Record<string, string> {
  if (typeof entry !== 'string') {
    const { name, email } = (entry ?? {}) as Record<string, unknown>;
    if (!name && !email) throw compileError("'name' and/or 'email' values required in object", loc, 'rego_parse_error');
    return { ...(name ? { name: String(name) } : {}), ...(email ? { email: String(email) } : {}) };
  }
  const words = entry.split(/\s+/).filter(Boolean);
  if (words.length === 0) throw compileError('author is an empty string', loc, 'rego_parse_error');
  const last = words.at(-1)!;
  const hasEmail = last.length >= 2 && last.startsWith('<') && last.endsWith('>');
  const name = (hasEmail ? words.slice(0, -1) : words).join(' ');
  return { ...(name ? { name } : {}), ...(hasEmail ? { email: last.slice(1, -1) } : {}) };
}

function relatedResource(entry: unknown, loc: ast.Location): Record<string, string> {
  if (typeof entry === 'string') return { ref: entry };
  const { ref, description } = (entry ?? {}) as Record<string, unknown>;
  if (!ref) throw compileError("'ref' value required in object", loc, 'rego_parse_error');
  return { ref: String(ref), ...(description ? { description: String(description) } : {}) };
}

/** Annotations.toObject: the keys OPA keeps, each only when set. */
function annotationObject(raw: Record<string, unknown>, scope: string, loc: ast.Location): Record<string, unknown> {
  const object: Record<string, unknown> = { scope };
  for (const key of ['title', 'description'] as const) if (raw[key]) object[key] = String(raw[key]);
  if (raw.entrypoint === true) object.entrypoint = true;
  const list = (key: string) => (Array.isArray(raw[key]) ? (raw[key] as unknown[]) : []);
  if (list('organizations').length > 0) object.organizations = list('organizations').map(String);
  if (list('related_resources').length > 0)
    object.related_resources = list('related_resources').map((entry) => relatedResource(entry, loc));
  if (list('authors').length > 0) object.authors = list('authors').map((entry) => author(entry, loc));
  if (list('schemas').length > 0)
    object.schemas = list('schemas').flatMap((entry) =>
      Object.entries((entry ?? {}) as Record<string, unknown>).map(([path, schema]) => ({
        path: path.split('.'),
        ...(typeof schema === 'string' ? { schema: schema.split('.') } : { definition: schema }),
      })),
    );
  if (raw.custom && typeof raw.custom === 'object' && Object.keys(raw.custom).length > 0) object.custom = raw.custom;
  return object;
}

/** A module's METADATA blocks, each attached to the statement below it. */
function annotationsOf(module: ast.Module): { annotation: Annotation; target: Target }[] {
  const blocks: { loc: ast.Location; lines: string[] }[] = [];
  let current: (typeof blocks)[number] | undefined;
  let previousRow = -1;
  for (const comment of module.comments) {
    if (current && comment.row === previousRow + 1 && comment.col === 1) current.lines.push(comment.text.replace(/^ /, ''));
    else {
      current = comment.text.trim().startsWith('METADATA') ? { loc: { row: comment.row, col: comment.col }, lines: [] } : undefined;
      if (current) blocks.push(current);
    }
    previousRow = comment.row;
  }
  const targets: Target[] = [
    { row: module.packageLoc.row },
    ...module.imports.map((imported) => ({ row: imported.loc.row, isImport: true })),
    ...module.rules.map((rule) => ({ row: rule.loc.row, rule })),
  ].sort((a, b) => a.row - b.row);
  return blocks.map(({ loc, lines }) => {
    const text = lines.join('\n');
    if (text.trim() === '') throw compileError('expected METADATA block, found whitespace', loc, 'rego_parse_error');
    let raw: unknown;
    try {
      raw = parseYaml(text);
    } catch (error) {
      throw compileError(`yaml: ${(error as Error).message.split('\n')[0]}`, loc, 'rego_parse_error');
    }
    const fields = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const target = targets.find(({ row }) => row > loc.row) ?? { row: 0 };
    const kind = target.rule ? 'rule' : target.isImport ? 'import' : 'package';
    const scope =
      typeof fields.scope === 'string' ? fields.scope : kind === 'rule' ? (fields.entrypoint === true ? 'document' : 'rule') : kind;
    if (!SCOPES.includes(scope))
      throw compileError(
        `invalid annotation scope '${scope}'. Use one of 'rule', 'document', 'package', or 'subpackages'`,
        loc,
        'rego_parse_error',
      );
    const wanted = scope === 'rule' || scope === 'document' ? 'rule' : 'package';
    if (wanted !== kind)
      throw compileError(`annotation scope '${scope}' must be applied to ${wanted} (have ${kind})`, loc, 'rego_parse_error');
    return { annotation: { scope, row: loc.row, col: loc.col, object: annotationObject(fields, scope, loc) }, target };
  });
}

/** The ground prefix of a rule's path under data: `p`, `a.b` of `a.b[x]`. */
const rulePath = (module: ast.Module, rule: ast.Rule): string[] => {
  const path = [...module.package, rule.head.name];
  for (const part of rule.head.path) {
    if (part.type !== 'string') break;
    path.push(part.value);
  }
  return path;
};

/** rego.metadata.chain() and rule() for each rule of the modules (OPA's AnnotationSet.Chain). */
export function metadataIndex(modules: readonly ast.Module[]): (module: ast.Module, rule: ast.Rule) => RuleMetadata {
  const ofRule = new Map<ast.Rule, Annotation[]>();
  const byPath = {
    document: new Map<string, Annotation>(),
    package: new Map<string, Annotation>(),
    subpackages: new Map<string, Annotation>(),
  };
  for (const module of modules)
    for (const { annotation, target } of annotationsOf(module)) {
      if (annotation.scope === 'rule') ofRule.set(target.rule!, [...(ofRule.get(target.rule!) ?? []), annotation]);
      else {
        const path = target.rule ? rulePath(module, target.rule) : module.package;
        byPath[annotation.scope as keyof typeof byPath].set(path.join('.'), annotation);
      }
    }
  const entry = (path: string[], annotation: Annotation) => ({ path, annotations: annotation.object });
  return (module, rule) => {
    const path = rulePath(module, rule);
    const own = [...(ofRule.get(rule) ?? [])].sort((a, b) => b.row - a.row || b.col - a.col);
    const chain: unknown[] = own.length > 0 ? own.map((annotation) => entry(path, annotation)) : [{ path }];
    const document = byPath.document.get(path.join('.'));
    if (document) chain.push(entry(path, document));
    const pkg = byPath.package.get(module.package.join('.'));
    if (pkg) chain.push(entry(module.package, pkg));
    for (let length = module.package.length; length >= 0; length--) {
      const prefix = module.package.slice(0, length);
      const subpackages = byPath.subpackages.get(prefix.join('.'));
      if (subpackages) chain.push(entry(prefix, subpackages));
    }
    return { chain: fromJson(chain), rule: fromJson(own[0]?.object ?? {}) };
  };
}
