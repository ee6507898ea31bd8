// A grant's id starts with this (API.md §20): the question a grant decides is answered by
// `policy:grant-<hex>`. A module of its own so the inbox's stats and the trace code can tell a
// grant's decision from a rule's without pulling in the grant rules (and node:crypto).
export const GRANT_ID_PREFIX = 'grant-';
