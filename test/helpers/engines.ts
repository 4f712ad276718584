// Every engine loaded before a test reads a rules document synchronously (parseRulesDocument), as the CLI
// does; the functions load them on demand. The first import of each test or helper that needs it: tests run
// without it, to start fast.
import { loadEngines } from '../../functions/engines/registry.js';

await loadEngines();
