// Types for fast-json-patch's ESM entry, which json-patch.ts imports by path: the same API as the package.
declare module 'fast-json-patch/index.mjs' {
  export * from 'fast-json-patch';
}
