// Setup of the packaged files that share a worker's modules: the modules in-process CLI commands run are
// loaded here, under the setup's timeout and once per worker, not in the first test of whichever file comes
// first (on a busy machine that import alone outlasted a test's timeout). Files with a module graph of their
// own import the sources after setting what the sources read at import, so they are not loaded for those.
import { loadInProcessCli } from './portcullis-cli.js';

await loadInProcessCli();
