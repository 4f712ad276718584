// What the CLI's build and the registry's description (registered-policies.cjs) are made from, as one
// string: the newest modification time of the TypeScript, CommonJS and JSON files under functions/ and infra/ and of
// the package files, with the number of those files, so an edit, an added file or a removed one changes it.
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

function sourcesUnder(folder, found = { newest: 0, count: 0 }) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) sourcesUnder(path, found);
    else if (/\.(ts|cjs|json)$/.test(entry.name)) {
      found.newest = Math.max(found.newest, statSync(path).mtimeMs);
      found.count++;
    }
  }
  return found;
}

/** The stamp of the sources under the project `root`. */
function sourceStamp(root) {
  const functions = sourcesUnder(join(root, 'functions'));
  const infra = sourcesUnder(join(root, 'infra'));
  const packageFiles = ['package.json', 'package-lock.json'].filter((file) => existsSync(join(root, file)));
  const newest = Math.max(functions.newest, infra.newest, ...packageFiles.map((file) => statSync(join(root, file)).mtimeMs));
  return `${Math.floor(newest)}-${functions.count + infra.count}`;
}

module.exports = { sourceStamp };
