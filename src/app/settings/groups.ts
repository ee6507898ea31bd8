// Groups and on-call rotations (API.md §22): INTERACTIONS_GROUPS_FILE (JSON or YAML: a list of
// {id, members, rotation?}) and the ID token claim a signed-in person's groups come from. The
// manifest's `groups:` are merged with the file's at start (app/server.ts); a group named twice,
// in one source or across both, stops the server.
import { parse as parseYaml } from 'yaml';
import { isDomainError } from '../../domain/errors.ts';
import { type Group, parseGroups } from '../../domain/groups.ts';
import { ConfigError, optionalPath, optionalText, readSettingFile, settingsArea, shown } from './fields.ts';

export interface GroupSettings {
  /** The groups file's groups (the manifest's are added at start); empty without the file. */
  readonly groups: readonly Group[];
  /** The ID token claim holding a signed-in person's groups (INTERACTIONS_OIDC_GROUPS_CLAIM). */
  readonly oidcGroupsClaim: string;
}

const CLAIM_NAME = /^[A-Za-z0-9_:./-]{1,128}$/;
const GROUPS_FILE = 'INTERACTIONS_GROUPS_FILE';

function readGroups(path: string, readFile: (path: string) => string): Group[] {
  const text = readSettingFile(GROUPS_FILE, path, readFile);
  let doc: unknown;
  try {
    // YAML is a superset of JSON: one parser reads both.
    doc = parseYaml(text);
  } catch {
    throw new ConfigError(GROUPS_FILE, 'the file is neither valid JSON nor valid YAML');
  }
  try {
    return parseGroups(doc ?? [], 'groups');
  } catch (err) {
    if (!isDomainError(err)) throw err;
    throw new ConfigError(GROUPS_FILE, `${err.field ?? 'groups'}: ${err.message}`);
  }
}

export const groupSettings = settingsArea({
  env: {
    [GROUPS_FILE]: optionalPath,
    INTERACTIONS_OIDC_GROUPS_CLAIM: optionalText,
  },
  read: (e, io): GroupSettings => {
    const claim = e.INTERACTIONS_OIDC_GROUPS_CLAIM ?? 'groups';
    if (!CLAIM_NAME.test(claim)) {
      throw new ConfigError('INTERACTIONS_OIDC_GROUPS_CLAIM', `expected a claim name, got ${shown(claim)}`);
    }
    const file = e[GROUPS_FILE];
    return {
      groups: Object.freeze(file ? readGroups(file, io.readFile) : []),
      oidcGroupsClaim: claim,
    };
  },
});
