// Which doors are public (API.md §6). Publicness is configuration, not route code.
import { isPlainObject } from '../domain/values.ts';

export const DOORS = [
  'graphql',
  'stream',
  'answer',
  'callback',
  'channels',
  'inbox',
  'health',
  'mcp',
  'metrics',
  'audit',
  'hooks',
] as const;
export type Door = (typeof DOORS)[number];

/**
 * Doors no policy changes, always open: the sign-in doors must be reachable by a person who is
 * not signed in yet (`signin`: the login and the identity provider's return; `session`: who is
 * signed in, and logout), and `public` serves files anyone may fetch (GraphiQL's scripts). The
 * door hook still resolves who calls them: a signed-in person is that person there too.
 */
export const OPEN_DOORS = ['signin', 'session', 'public'] as const;
export type OpenDoor = (typeof OPEN_DOORS)[number];

/** Every door a caller is resolved at: one of the policy's, or one that is always open. */
export type PrincipalDoor = Door | OpenDoor;

export const DOOR_ACCESS = ['public', 'authenticated'] as const;
export type DoorAccess = (typeof DOOR_ACCESS)[number];

export type DoorPolicy = Readonly<Record<Door, DoorAccess>>;

/**
 * The default: the callback doors, the channel inbound doors, the inbox's static page and
 * `/health`/`/ready` are public;
 * GraphQL, the stream and the answer door need a key.
 */
export const DEFAULT_DOOR_POLICY: DoorPolicy = Object.freeze({
  graphql: 'authenticated',
  stream: 'authenticated',
  answer: 'authenticated',
  callback: 'public',
  channels: 'public',
  inbox: 'public',
  health: 'public',
  mcp: 'authenticated',
  metrics: 'authenticated',
  audit: 'authenticated',
  hooks: 'authenticated',
});

function isDoor(name: string): name is Door {
  return (DOORS as readonly string[]).includes(name);
}

function isAccess(value: unknown): value is DoorAccess {
  return typeof value === 'string' && (DOOR_ACCESS as readonly string[]).includes(value);
}

/**
 * Parses `{"doors": {"graphql": "authenticated", ...}}` (any subset of doors) over the default
 * policy. Unknown doors, unknown values and unknown top-level fields are errors naming them;
 * `health` may only be `public` (health and readiness are always open).
 */
export function parseDoorPolicy(obj: unknown): DoorPolicy {
  if (!isPlainObject(obj)) throw new Error('the policy must be an object with a "doors" object');
  for (const key of Object.keys(obj)) {
    if (key !== 'doors') throw new Error(`unknown field ${JSON.stringify(key)} (expected only "doors")`);
  }
  const doors = obj.doors;
  if (!isPlainObject(doors)) throw new Error('"doors" must be an object of door: public|authenticated');
  const policy: Record<Door, DoorAccess> = { ...DEFAULT_DOOR_POLICY };
  for (const [name, value] of Object.entries(doors)) {
    if (!isDoor(name)) {
      throw new Error(`unknown door ${JSON.stringify(name)} (expected one of ${DOORS.join(', ')})`);
    }
    if (!isAccess(value)) {
      const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
      throw new Error(`door "${name}": expected public or authenticated, got ${shown}`);
    }
    if (name === 'health' && value !== 'public') throw new Error('door "health": is always public');
    // The audit export is every question's history: never open to callers without a key.
    if (name === 'audit' && value !== 'authenticated')
      throw new Error('door "audit": is always authenticated');
    policy[name] = value;
  }
  return Object.freeze(policy);
}

export function isPublic(policy: DoorPolicy, door: PrincipalDoor): boolean {
  if (door === 'health' || door === 'signin' || door === 'session' || door === 'public') return true;
  return policy[door] === 'public';
}
