// Imported by the stack's entry and by every lazily loaded module (the worker through rules-yaml), for the
// bundle's layout only. esbuild puts the code that the entry shares with lazy modules into one chunk per
// set of importers: that was four chunks, four more files for a cold start to resolve, read and link. With
// every lazy module importing the modules below, they all have the same importers and share one chunk: the
// cold path is the entry and that chunk. The entry imports this file too, or the file would make an empty
// chunk of its own. Costless at
// run time: the entry has evaluated these modules before any lazy one loads.
// test/e2e/packaged-bundles.test.ts fails when a module missing here splits the chunk again. (The functions
// that run engines also share the engines' code with the engines' lazy modules: one more chunk, laid out by
// the build: infra/esbuild-plugins.cjs.)
import './cluster/cluster-view.js';
import './config.js';
import './decide/deadline.js';
import './decide/match-rule.js';
import './kubernetes/go-duration.js';
import './kubernetes/json-object.js';
import './kubernetes/json-patch-operations.js';
import './kubernetes/kind-resource.js';
import './observe/logger.js';
import './review/admission-response.js';
import './rules/json-duplicate-key.js';
import './rules/rules-source-from-config.js';
import './rules/rules-document-text.js';
import './rules/rules-source.js';
import './schema-issues.js';
import './schema.js';
