// The benchmarks package and build in folders of their own, so a bench run never empties the zips the
// tests read or the bundle a running `npm start` serves.
export const BENCH_PACKAGE = '.serverless-bench';
