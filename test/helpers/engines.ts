// Vitest setup: every engine loaded before any test reads a rules document synchronously
// (parseRulesDocument), as the CLI does; the functions load them on demand.
import { loadEngines } from '../../functions/engines/registry.js';

await loadEngines();
