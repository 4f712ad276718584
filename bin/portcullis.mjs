#!/usr/bin/env node
// `npx portcullis <command>`: runs the CLI from its TypeScript source (infra/cli/portcullis.ts) through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../infra/cli/portcullis.ts');
