// Imported by every module an engine loads on demand (Kyverno's evaluator, Rego's, CEL's mutation), for the bundle's
// layout only, as admission/shared-chunk.ts is by the stack's lazy modules. esbuild puts the code a
// function's entry shares with its lazy modules into one chunk per set of importers: a lazy module that
// reached only its own engine split the engines' code on the cold path into a chunk per engine and one for
// the runtime they share. Reaching every engine's entry (through the registry), each lazy module has the
// same importers, and that code is one chunk. Costless at run time: the entry has evaluated these modules
// before any lazy one loads; no engine calls another through it. test/e2e/packaged-bundles.test.ts counts
// the chunks.
import '../admission/shared-chunk.js';
import './registry.js';
