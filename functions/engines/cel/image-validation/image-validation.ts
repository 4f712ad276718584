// An ImageValidatingPolicy's part of the CEL engine, loaded before a document that has one is read (the
// engine's load): most bundles have none, and their cold start reads none of it, nor its attestors' reader.
export { type ImageValidationParameter, imageValidationSchema } from './image-validation-schema.js';
export { imageValidationFindings } from './validate-images.js';
export { pinnedDigests } from './pin-digests.js';
