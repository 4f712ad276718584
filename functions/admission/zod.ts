// zod for the whole project, as zod/mini: the classic API bundles to ~440 KB minified against ~15 KB here,
// which is most of a cold start. Mini ships without messages; English ones are configured once, here.
// Import it as a namespace (`import * as z from './zod.js'`) and only touch its members, so the bundler
// can drop the rest (a namespace passed around as a value would pull in every locale).
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
