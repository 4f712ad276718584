// The GraphQL built-ins' work and graphql-js (documents.ts), loaded when a policy that calls a GraphQL
// built-in is first read (the Rego engine's load), as RE2 is: a policy that calls none never loads them.
import { OnDemand } from '../../../runtime/on-demand.js';

const library = new OnDemand<typeof import('./documents.js')>(
  async () => import('./documents.js'),
  'the GraphQL library is not loaded (the Rego engine loads it before a policy that calls a graphql built-in runs)',
);

export const graphqlLibraryLoaded = () => library.loaded;
export const loadGraphqlLibrary = () => library.load();
export const graphqlLibrary = () => library.get();

/** Whether a policy calling these built-ins needs graphql-js. */
export const callsGraphql = (builtins: Iterable<string>): boolean => [...builtins].some((name) => name.startsWith('graphql.'));
