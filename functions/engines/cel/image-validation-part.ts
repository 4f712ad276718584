// The CEL engine's ImageValidatingPolicy part (image-validation/), loaded by the engine's load() before a
// document is read, so that only a function given such a policy loads it.
import type * as v from '../../admission/schema.js';
import { OnDemand } from '../runtime/on-demand.js';
import type { ImageValidationParameter } from './image-validation/image-validation.js';

export const imageValidationPart = new OnDemand<typeof import('./image-validation/image-validation.js')>(
  () => import('./image-validation/image-validation.js'),
  "ImageValidatingPolicy's part of the CEL engine is not loaded (the engine's load() runs before a document is read)",
);

let schema: v.GenericSchema<unknown, ImageValidationParameter> | undefined;
/** The imageValidation and imageDigests parameters' schema, made once the part is loaded. */
export const imageValidationSchema = () =>
  (schema ??= imageValidationPart.get().imageValidationSchema() as v.GenericSchema<unknown, ImageValidationParameter>);
