// serverless-esbuild stages every zip in `<tmpdir>/<function>-<pid>-<ms>-<hex>` and never removes it: its
// release is a non-recursive remove of a full directory, whose error it swallows (floydspace/serverless-
// esbuild#589, not merged): every `sls package` of this service left its zips' staging behind, which
// filled /tmp by gigabytes. Loaded with the esbuild settings, in the `sls` process itself: when it exits, its own staging
// directories (named with its pid) are removed. Nothing else in the temporary folder is touched.
const { readdirSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const stagingName = new RegExp(`^.+-${process.pid}-\\d+-[0-9a-f]{8}$`);

function removeZipStaging() {
  for (const name of readdirSync(tmpdir())) {
    if (stagingName.test(name)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

let registered = false;
function removeZipStagingAtExit() {
  if (registered) return;
  registered = true;
  process.once('exit', removeZipStaging);
}

module.exports = { removeZipStagingAtExit };
