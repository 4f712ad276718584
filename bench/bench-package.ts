// The benchmarks package and build in folders of their own, so a bench run never empties the zips the
// tests read or the bundle a running `npm start` serves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const BENCH_PACKAGE = '.serverless-bench';

/** The memory an admission function is given, as the packaged template says (serverless.yml's memorySize). */
export const lambdaMemoryMb = (): number =>
  JSON.parse(readFileSync(join(BENCH_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8')).Resources
    .TrustedDashregistryLambdaFunction.Properties.MemorySize;
