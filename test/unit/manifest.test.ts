import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODULES, loadManifest, MANIFEST_MAX_BYTES, ManifestError } from '../../src/app/manifest.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'manifest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'xoxb-very-secret-token-value';
const ENV = {
  SLACK_BOT_TOKEN: SECRET,
  SLACK_SIGNING_SECRET: 'signing-secret-value',
  HOOK_SECRET: 'whsec_abc',
};
let n = 0;

function write(text: string, ext = 'yaml'): string {
  const file = path.join(dir, `m${n++}.${ext}`);
  writeFileSync(file, text);
  return file;
}

async function failure(text: string, env: Record<string, string | undefined> = ENV, ext = 'yaml') {
  const file = write(text, ext);
  const err = await loadManifest({ path: file, cwd: dir, env }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ManifestError);
  const message = (err as Error).message;
  expect(message).not.toContain('\n');
  expect(message.startsWith(`${file}: `)).toBe(true);
  for (const value of Object.values(env)) if (value) expect(message).not.toContain(value);
  return message;
}

const slack = (config: string) => `channels:\n  ops:\n    plugin: slack\n    config: ${config}\n`;
const GOOD_SLACK = '{ botTokenEnv: SLACK_BOT_TOKEN, signingSecretEnv: SLACK_SIGNING_SECRET }';

describe('loadManifest', () => {
  it('without a manifest: every module but metrics, all verifiers, no channels or webhooks', async () => {
    const empty = mkdtempSync(path.join(dir, 'none-'));
    const m = await loadManifest({ cwd: empty, env: {} });
    expect(m).toMatchObject({ file: null, modules: DEFAULT_MODULES, channels: {}, webhooks: {} });
    expect(m.modules.metrics).toBe(false);
    expect(m.verifiers.sort()).toEqual(['github', 'hmac-sha256', 'stripe']);
  });

  it('reads interactions.yaml from the working directory when present', async () => {
    const cwd = mkdtempSync(path.join(dir, 'default-'));
    writeFileSync(path.join(cwd, 'interactions.yaml'), 'modules: { metrics: true, mcp: false }\n');
    const m = await loadManifest({ cwd, env: {} });
    expect(m.file).toBe(path.join(cwd, 'interactions.yaml'));
    expect(m.modules).toEqual({ ...DEFAULT_MODULES, metrics: true, mcp: false });
  });

  it.each(['graphql', 'rest', 'callbacks', 'inbox', 'mcp'])('switches module %s off', async (name) => {
    const m = await loadManifest({ path: write(`modules: { ${name}: false }\n`), cwd: dir, env: {} });
    expect(m.modules[name as keyof typeof m.modules]).toBe(false);
  });

  it('parses channels with their plugin configs, webhooks and verifiers (YAML and JSON)', async () => {
    const yaml = `${slack(GOOD_SLACK)}webhooks:\n  runs: { url: 'https://a.example/h', secretEnv: HOOK_SECRET }\nverifiers: [stripe]\n`;
    const m = await loadManifest({ path: write(yaml), cwd: dir, env: ENV });
    expect(m.channels.ops).toMatchObject({ plugin: 'slack', config: { botTokenEnv: 'SLACK_BOT_TOKEN' } });
    expect(m.channels.ops!.implementation.name).toBe('slack');
    expect(m.webhooks).toEqual({ runs: { url: 'https://a.example/h', secretEnv: 'HOOK_SECRET' } });
    expect(m.verifiers).toEqual(['stripe']);
    const json = JSON.stringify({
      channels: {
        hook: { plugin: 'webhook', config: { url: 'http://127.0.0.1:9/x', secretEnv: 'HOOK_SECRET' } },
      },
    });
    const j = await loadManifest({ path: write(json, 'json'), cwd: dir, env: ENV });
    expect(j.channels.hook!.plugin).toBe('webhook');
  });

  it('the committed example manifest is valid', async () => {
    const env = { ...ENV, BRIDGE_WEBHOOK_SECRET: 'x', RUNS_WEBHOOK_SECRET: 'y' };
    const m = await loadManifest({ path: 'interactions.example.yaml', cwd: process.cwd(), env });
    expect(Object.keys(m.channels).sort()).toEqual(['bridge', 'ops-slack']);
  });

  it('loads a plugin from a file path relative to the manifest', async () => {
    const sub = mkdtempSync(path.join(dir, 'rel-'));
    const example = path.relative(sub, path.resolve('examples/channels/ntfy-channel.ts'));
    const file = path.join(sub, 'interactions.yaml');
    writeFileSync(
      file,
      `channels:\n  phone:\n    plugin: ./${example}\n    config: { topicUrl: 'https://ntfy.example/t', tokenEnv: NTFY_TOKEN }\n`,
    );
    const m = await loadManifest({ path: file, cwd: dir, env: { NTFY_TOKEN: 't' } });
    expect(m.channels.phone!.implementation.name).toBe('ntfy');
  });

  it.each([
    [
      'an unknown top-level key, listing the known ones',
      'modulez: {}\n',
      'modulez: unknown key (known: modules, verifiers, channels, webhooks, escalationPolicies, policies, groups)',
    ],
    [
      'an unknown module, listing the modules',
      'modules: { pager: true }\n',
      'modules.pager: unknown key (known: graphql, rest, callbacks, inbox, mcp, metrics)',
    ],
    ['a module that is not a boolean', 'modules: { mcp: "yes" }\n', 'modules.mcp:'],
    [
      'a group whose rotation names a non-member',
      'groups:\n  - { id: sre, members: [erin], rotation: { every: 1d, startsAt: "2026-03-02T09:00:00Z", order: [gus] } }\n',
      'groups[0].rotation.order[0]: must be one of the members',
    ],
    ['an unknown verifier', 'verifiers: [stripe, md5]\n', 'verifiers.1: unknown verifier'],
    [
      'an unknown key in a channel',
      `channels:\n  ops: { plugin: slack, confg: {} }\n`,
      'channels.ops.confg: unknown key (known: plugin, config)',
    ],
    [
      'a bad channel name',
      `channels:\n  "Ops Slack": { plugin: webhook }\n`,
      'channels.Ops Slack: invalid name',
    ],
    [
      'an unknown plugin',
      `channels:\n  ops: { plugin: carrier-pigeon }\n`,
      'channels.ops.plugin: plugin "carrier-pigeon"',
    ],
    [
      'a plugin name that is no built-in, package or path, listing the built-ins',
      `channels:\n  ops: { plugin: "Slack Bot" }\n`,
      'channels.ops.plugin: plugin "Slack Bot" is not a built-in plugin (slack, telegram, twilio, discord, teams, webhook, email), a package name or a ./path',
    ],
    [
      'a plugin path that does not exist',
      `channels:\n  ops: { plugin: ./nope.js }\n`,
      'channels.ops.plugin:',
    ],
    [
      'a config key its plugin refuses',
      slack('{ botTokenEnv: SLACK_BOT_TOKEN, signingSecretEnv: SLACK_SIGNING_SECRET, token: x }'),
      'channels.ops.config.token: unknown key (known: botTokenEnv, signingSecretEnv, ',
    ],
    [
      'a config missing a required key',
      slack('{ botTokenEnv: SLACK_BOT_TOKEN }'),
      'channels.ops.config.signingSecretEnv:',
    ],
    [
      'a bad recipient',
      slack(
        '{ botTokenEnv: SLACK_BOT_TOKEN, signingSecretEnv: SLACK_SIGNING_SECRET, defaultRecipient: "#general" }',
      ),
      'channels.ops.config.defaultRecipient:',
    ],
    [
      'a non-https apiUrl',
      slack(
        `{ botTokenEnv: SLACK_BOT_TOKEN, signingSecretEnv: SLACK_SIGNING_SECRET, apiUrl: 'http://slack.example/api/' }`,
      ),
      'channels.ops.config.apiUrl: must be an https URL',
    ],
    [
      'a non-https webhook url',
      `webhooks:\n  runs: { url: 'http://10.0.0.1/h', secretEnv: HOOK_SECRET }\n`,
      'webhooks.runs.url: must be an https URL',
    ],
    [
      'a URL with credentials',
      `webhooks:\n  runs: { url: 'https://u:p@a.example/h', secretEnv: HOOK_SECRET }\n`,
      'webhooks.runs.url:',
    ],
    [
      'a channel env var that is unset',
      slack('{ botTokenEnv: SLACK_BOT_TOKEN, signingSecretEnv: UNSET_SECRET }'),
      'channels.ops.config.signingSecretEnv: environment variable UNSET_SECRET is not set',
    ],
    [
      'a webhook env var that is unset',
      `webhooks:\n  runs: { url: 'https://a.example/h', secretEnv: NOPE }\n`,
      'webhooks.runs.secretEnv: environment variable NOPE is not set',
    ],
    ['invalid YAML', `modules: { mcp: true\nchannels: ${SECRET}\n`, 'not valid YAML'],
    ['a duplicate key', 'modules: {}\nmodules: {}\n', 'not valid YAML'],
    ['not a mapping', '- a\n- b\n', '(top level):'],
  ])('refuses %s', async (_what, text, expected) => {
    expect(await failure(text)).toContain(expected);
  });

  it('http on a loopback host is allowed for apiUrl', async () => {
    const text = slack(
      `{ botTokenEnv: SLACK_BOT_TOKEN, signingSecretEnv: SLACK_SIGNING_SECRET, apiUrl: 'http://127.0.0.1:1/api/' }`,
    );
    const m = await loadManifest({ path: write(text), cwd: dir, env: ENV });
    expect(m.channels.ops!.config).toMatchObject({ apiUrl: 'http://127.0.0.1:1/api/' });
  });

  it('refuses invalid JSON without quoting it', async () => {
    expect(await failure(`{"channels": "${SECRET}"`, ENV, 'json')).toContain('not valid JSON');
  });

  it('refuses a secret pasted where an env name belongs, without echoing it', async () => {
    const message = await failure(
      slack(`{ botTokenEnv: "${SECRET}", signingSecretEnv: SLACK_SIGNING_SECRET }`),
    );
    expect(message).toContain('channels.ops.config.botTokenEnv: must be an environment variable name');
    expect(message).not.toContain(SECRET);
  });

  it('refuses a missing named file and a file over the size cap (at the cap it is read)', async () => {
    const missing = await loadManifest({ path: 'nope.yaml', cwd: dir, env: {} }).catch((e: unknown) => e);
    expect((missing as Error).message).toContain('does not exist');
    const atCap = write(`#${' '.repeat(MANIFEST_MAX_BYTES - 2)}\n`);
    await expect(loadManifest({ path: atCap, cwd: dir, env: {} })).resolves.toMatchObject({ file: atCap });
    expect(await failure(`#${' '.repeat(MANIFEST_MAX_BYTES - 1)}\n`)).toContain('over');
  });
});
