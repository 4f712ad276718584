// What @middy/core imports from node:stream/web and node:stream/promises, loaded when first used. middy
// uses them only for streamed responses (streamifyResponse), which Portcullis never asks for, yet importing
// them cost every cold start. infra/esbuild-plugins.cjs resolves middy's imports of the two modules to this file.
export const ReadableStream = {
  [Symbol.hasInstance]: (value: unknown) => value instanceof process.getBuiltinModule('node:stream/web').ReadableStream,
};

export const pipeline = (...streams: unknown[]): Promise<void> =>
  (process.getBuiltinModule('node:stream/promises').pipeline as (...args: unknown[]) => Promise<void>)(...streams);
