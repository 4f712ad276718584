// Vitest setup: the temporary directories a test file made (infra/temporary-directory.ts) are removed when it
// ends. Vitest stops its workers without their exit event, so each run left a few hundred behind.
import { afterAll } from 'vitest';
import { removeTemporaryDirectories } from '../../infra/temporary-directory.js';

afterAll(removeTemporaryDirectories);
