// Groups and on-call rotations (API.md §22): who a `group:<id>` or `oncall:<id>` audience or
// voters entry stands for. Pure: the groups are parsed here from what the groups file and the
// manifest give, and the one member on duty is computed from a rotation and an instant passed in.
import { badInput } from './errors.ts';
import { exceedsChars, isBlank, LABEL_MAX_CHARS } from './limits.ts';
import { checkRotation, type Rotation } from './rotation.ts';
import { isPlainObject, listChoices, own } from './values.ts';

export const GROUP_PREFIX = 'group:';
export const ONCALL_PREFIX = 'oncall:';
/** Most groups one deployment defines, and most members (or rotation entries) one group lists. */
export const GROUPS_MAX = 1000;
export const GROUP_MEMBERS_MAX = 1000;

/**
 * Identities the server mints itself (API.md §2): no API key id and no channel name may be or
 * begin with one of these, so nobody can pass for a rule, a group, a rotation, a signed-in
 * person, an MCP client's user, a callback holder or the open server.
 */
export const RESERVED_IDENTITY_PREFIXES = [
  'policy',
  'group',
  'oncall',
  'oidc',
  'mcp',
  'callback',
  'anonymous',
] as const;

/** The reserved prefix `name` is or begins with (case-insensitively), or null. */
export function reservedPrefixOf(name: string): string | null {
  const lower = name.toLowerCase();
  return RESERVED_IDENTITY_PREFIXES.find((p) => lower.startsWith(p)) ?? null;
}

const GROUP_ID = /^[A-Za-z0-9_.-]{1,64}$/;

export interface Group {
  id: string;
  /** Identities: principal ids, `oidc:<sub>`, `<channel>:<provider user id>`. */
  members: readonly string[];
  rotation: Rotation | null;
}

/** The group an audience or voters entry names (`group:<id>`), or null. */
export function groupOf(entry: string | null | undefined): string | null {
  return entry?.startsWith(GROUP_PREFIX) ? entry.slice(GROUP_PREFIX.length) : null;
}

/** The rotation's group an audience names (`oncall:<id>`), or null. */
export function oncallOf(entry: string | null | undefined): string | null {
  return entry?.startsWith(ONCALL_PREFIX) ? entry.slice(ONCALL_PREFIX.length) : null;
}

/** The group an audience addresses, whether as `group:<id>` or as `oncall:<id>`; null otherwise. */
export function addressedGroup(audience: string | null | undefined): string | null {
  return groupOf(audience) ?? oncallOf(audience);
}

function checkIdentity(value: unknown, field: string): string {
  if (typeof value !== 'string' || isBlank(value)) throw badInput('must be a non-blank identity', field);
  if (exceedsChars(value, LABEL_MAX_CHARS)) {
    throw badInput(`must be at most ${LABEL_MAX_CHARS} characters`, field);
  }
  if (groupOf(value) !== null || oncallOf(value) !== null) {
    throw badInput('must be a person, not a group or a rotation (groups do not nest)', field);
  }
  return value;
}

/** A list of distinct identities, 1 to GROUP_MEMBERS_MAX. */
export function checkIdentities(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > GROUP_MEMBERS_MAX) {
    throw badInput(`must be a list of 1 to ${GROUP_MEMBERS_MAX} identities`, field);
  }
  const seen = new Set<string>();
  value.forEach((v, i) => {
    const id = checkIdentity(v, `${field}[${i}]`);
    if (seen.has(id)) throw badInput('must not repeat', `${field}[${i}]`);
    seen.add(id);
  });
  return [...seen];
}

const GROUP_KEYS = new Set(['id', 'members', 'rotation']);

function checkGroup(raw: unknown, field: string): Group {
  if (!isPlainObject(raw)) throw badInput('a group must be an object {id, members, rotation?}', field);
  for (const key of Object.keys(raw)) {
    if (!GROUP_KEYS.has(key)) {
      throw badInput(`unknown field (expected: ${listChoices(GROUP_KEYS)})`, `${field}.${key.slice(0, 64)}`);
    }
  }
  const id = own(raw, 'id');
  if (typeof id !== 'string' || !GROUP_ID.test(id)) {
    throw badInput('id must be 1 to 64 of A-Z a-z 0-9 _ . -', `${field}.id`);
  }
  const members = checkIdentities(own(raw, 'members'), `${field}.members`);
  const given = own(raw, 'rotation');
  const rotation = given === undefined || given === null ? null : checkRotation(given, `${field}.rotation`);
  // Whoever is on duty must be a member: the on-call person sees the question as a member does.
  rotation?.order.forEach((who, i) => {
    if (!members.includes(who)) throw badInput('must be one of the members', `${field}.rotation.order[${i}]`);
  });
  return { id, members, rotation };
}

/**
 * The groups of one source (the groups file, the manifest's `groups:`): a list of groups, each
 * named once. `field` prefixes the path of an error (`groups[2].members[0]`).
 */
export function parseGroups(raw: unknown, field = 'groups'): Group[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw badInput('must be a list of groups', field);
  if (raw.length > GROUPS_MAX) throw badInput(`must list at most ${GROUPS_MAX} groups`, field);
  const seen = new Set<string>();
  return raw.map((g, i) => {
    const group = checkGroup(g, `${field}[${i}]`);
    if (seen.has(group.id)) throw badInput(`names group "${group.id}" twice`, `${field}[${i}].id`);
    seen.add(group.id);
    return group;
  });
}

/** Both sources together; a group named by both is refused, as within one. */
export function mergeGroups(first: readonly Group[], second: readonly Group[], field: string): Group[] {
  const ids = new Set(first.map((g) => g.id));
  second.forEach((g, i) => {
    if (ids.has(g.id)) throw badInput(`names group "${g.id}" twice`, `${field}[${i}].id`);
  });
  return [...first, ...second];
}
