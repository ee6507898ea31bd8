// What one GraphQL document may cost (API.md §4, "Limits"), enforced by GraphQL Armor before
// anything executes. The token cap is checked while parsing, so a document nested thousands
// deep is refused long before graphql-js's recursive parser could overflow the stack (it does
// near 1,500 levels); the others are validation rules. Every refusal is BAD_USER_INPUT.
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import type { Plugin } from 'graphql-yoga';

export const GRAPHQL_LIMITS = {
  /** Lexical tokens in one document; large values (schemas, media) belong in variables. */
  tokens: 1_000,
  /** Aliased fields in one operation (fragments counted where spread). */
  aliases: 15,
  /** Nested selection sets in one operation; the deepest the schema needs is 5. */
  depth: 10,
  /** Directives in one operation. */
  directives: 50,
  /**
   * Armor's cost: a scalar field 1, an object field 2, each level ×1.5, a literal `first`
   * multiplying its field. A full page of 200 questions with every field costs about 48,600.
   */
  cost: 70_000,
} as const;

export function useGraphQLLimits(): Plugin[] {
  // Armor's messages start "Syntax Error: … limit of N exceeded, found M." and name the limit.
  return [
    maxTokensPlugin({ n: GRAPHQL_LIMITS.tokens }),
    maxAliasesPlugin({ n: GRAPHQL_LIMITS.aliases }),
    maxDepthPlugin({ n: GRAPHQL_LIMITS.depth }),
    maxDirectivesPlugin({ n: GRAPHQL_LIMITS.directives }),
    costLimitPlugin({ maxCost: GRAPHQL_LIMITS.cost }),
  ] as Plugin[];
}
