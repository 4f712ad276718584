// Every engine loaded before a test reads a rules document synchronously (parseRulesDocument), as the CLI
// does; the functions load them on demand. The packaged project's setup, and the first import of each unit
// test that needs it (unit tests run without it, to start fast).
import { loadEngines } from '../../functions/engines/registry.js';

await loadEngines();
