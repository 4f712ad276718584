// Everything the GraphQL built-ins do, with graphql-js: the module library.ts loads when a policy that calls
// one is first read, so that no other policy loads graphql-js or this code.
export { parseQuery, parseSchema } from './gql-parse.js';
export { schemaOf, validationError } from './gql-validate.js';
export { queryDocumentIn, queryDocumentValue, schemaDocumentIn, schemaDocumentValue, UnreadableDocument } from './gql-values.js';
