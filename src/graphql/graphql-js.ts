// graphql-js, loaded exactly as Yoga and Pothos load it. graphql@16 ships a CommonJS build
// (`main`) and an ESM build (`module`). Node resolves every package to the CommonJS one, but
// Vite-based tools (vitest) resolve our own sources to the ESM one; two copies cannot share a
// schema (graphql-js refuses "from another module or realm") nor recognise each other's errors.
// Naming the CommonJS entry by path gives one copy everywhere. Everything from graphql-js,
// types included, is imported from this file (Biome's noRestrictedImports enforces it).
export type {
  ExecutionArgs,
  ExecutionResult,
  GraphQLErrorExtensions,
  GraphQLResolveInfo,
  IntrospectionQuery,
  ValueNode,
} from 'graphql/index.js';
export {
  buildSchema,
  execute,
  GraphQLError,
  GraphQLSchema,
  getIntrospectionQuery,
  introspectionFromSchema,
  Kind,
  lexicographicSortSchema,
  parse,
  printSchema,
  valueFromASTUntyped,
} from 'graphql/index.js';
