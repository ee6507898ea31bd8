// Groups at the doors (API.md §22): one directory for the process, from INTERACTIONS_GROUPS_FILE
// and the manifest's `groups:`, and every principal a door authenticates carries its groups (the
// configured ones that list its id, added to a signed-in person's claim), so the engine's
// visibility rules see them whatever the credential.
import type { Authenticator, AuthResult } from '../auth/authenticate.ts';
import type { SessionAuth } from '../auth/session-cookie.ts';
import { type Group, mergeGroups } from '../domain/groups.ts';
import { createDirectory, type Directory } from '../engine/people/directory.ts';
import { ConfigError } from './settings/fields.ts';

/** The groups of the file and of the manifest; one named by both stops the server. */
export function directoryOf(fromFile: readonly Group[], fromManifest: readonly Group[] = []): Directory {
  try {
    return createDirectory(mergeGroups(fromFile, fromManifest, 'manifest groups'));
  } catch (err) {
    const why = err instanceof Error ? err.message : 'invalid groups';
    throw new ConfigError('INTERACTIONS_GROUPS_FILE', `with the manifest's groups: ${why}`);
  }
}

function withGroups(directory: Directory, r: AuthResult): AuthResult {
  return r.ok ? { ...r, principal: directory.withGroups(r.principal) } : r;
}

export function authenticatorWithGroups(auth: Authenticator, directory: Directory): Authenticator {
  if (directory.groups.size === 0) return auth;
  return {
    authenticate: (door, headers) => withGroups(directory, auth.authenticate(door, headers)),
    keyless: (door) => withGroups(directory, auth.keyless(door)),
  };
}

export function sessionsWithGroups(sessions: SessionAuth, directory: Directory): SessionAuth {
  if (directory.groups.size === 0) return sessions;
  return async (req) => {
    const r = await sessions(req);
    return r?.ok ? { ...r, principal: directory.withGroups(r.principal) } : r;
  };
}
