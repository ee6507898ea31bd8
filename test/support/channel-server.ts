// The set-up the channel end-to-end tests share: a manifest written to a fresh folder and loaded
// as the server loads it, the real server on the test Redis with that manifest's channels (the
// outbox polled quickly so edits after resolution arrive within a test), and GraphQL over HTTP.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifestSettings, type ManifestSettings } from '../../src/app/config.ts';
import { auth, startServer, type TestServer, type Who } from './server.ts';

/** A fresh folder holding `interactions.yaml` with this text. */
export function manifestDir(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tai-manifest-'));
  writeFileSync(join(dir, 'interactions.yaml'), yaml);
  return dir;
}

/** `ops-slack`: a slack channel on the fake Web API at `apiUrl`, secrets in SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET. */
export function slackChannelLines(apiUrl: string): string[] {
  return [
    'channels:',
    '  ops-slack:',
    '    plugin: slack',
    '    config:',
    '      botTokenEnv: SLACK_BOT_TOKEN',
    '      signingSecretEnv: SLACK_SIGNING_SECRET',
    '      defaultRecipient: C0123456789',
    `      apiUrl: ${apiUrl}`,
  ];
}

/** The manifest with these lines, its `*Env` settings read from `secrets`. */
export function manifestOf(lines: string[], secrets: Record<string, string>): Promise<ManifestSettings> {
  return loadManifestSettings(secrets, manifestDir(lines.join('\n')));
}

/** The secrets of `linkableManifest`'s channels: the Slack bot token, signing secret and webhook secret. */
export const LINK_SECRETS = {
  token: 'xoxb-links-token-0001',
  signing: 'links-signing-secret-0001',
  hook: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
};

/**
 * The channel-link tests' manifest (API.md §22): `ops-slack` on the fake Web API at `apiUrl`, which
 * can be linked, and `bridge`, a webhook channel, which cannot (no recipient, no inbound door).
 */
export function linkableManifest(apiUrl: string): Promise<ManifestSettings> {
  return manifestOf(
    [
      ...slackChannelLines(apiUrl),
      '  bridge:',
      '    plugin: webhook',
      '    config: { url: "http://127.0.0.1:9/hook", secretEnv: HOOK_SECRET }',
    ],
    {
      SLACK_BOT_TOKEN: LINK_SECRETS.token,
      SLACK_SIGNING_SECRET: LINK_SECRETS.signing,
      HOOK_SECRET: LINK_SECRETS.hook,
    },
  );
}

/**
 * The real server on Redis with the manifest's channels, not yet listening. The rate limit is
 * lifted: these tests post many inbound requests, and the limit has tests of its own.
 */
export function startChannelServer(
  manifest: ManifestSettings,
  env: Record<string, string> = {},
): Promise<TestServer> {
  return startServer({
    store: 'redis',
    env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000', ...env },
    plugins: { manifest, outbox: { pollMs: 50 } },
  });
}

export interface GraphqlResponse {
  // biome-ignore lint/suspicious/noExplicitAny: responses are read field by field in assertions
  data?: Record<string, any>;
  errors?: { message: string; extensions: { code: string; field?: string } }[];
}

/** POST /graphql on `base` as `who` (the agent unless told). */
export function graphqlAt(base: () => string) {
  return async (query: string, variables: Record<string, unknown> = {}, who: Who = 'agent') => {
    const res = await fetch(`${base()}/graphql`, {
      method: 'POST',
      headers: { ...auth(who), 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as GraphqlResponse;
  };
}
