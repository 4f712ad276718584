// The AWS code the stack loads lazily (the S3 rules source and the SSM token reader, with the signer), as
// one module, so the bundle has one chunk for it: importing the three separately made four chunks, three
// more files for a cold start with rules from S3 to read and link (~0.4 ms each). A function with tokens in
// SSM and rules in a folder loads the S3 code too: ~3 KB.
import '../shared-chunk.js'; // the bundle's layout: see that file
export { s3ObjectReader } from './s3-get-object.js';
export { ssmParameterReader } from './ssm-get-parameter.js';
export { s3RulesSource } from '../rules/s3-rules-source.js';
