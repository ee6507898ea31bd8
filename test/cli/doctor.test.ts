// `tai-interactions doctor` in process, from settings and a manifest like a deployment's: one
// line per finding, exit 1 on any FAIL, JSON with --json. (The packaging test runs the
// installed command against a missing and a reachable Redis.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { VERSION } from '../../src/domain/version.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { startFakeSmtp } from '../support/fakes/smtp.ts';
import { freePort } from '../support/fixtures.ts';
import { startServer, type TestServer } from '../support/server.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tai-doctor-'));
const manifest = path.join(dir, 'interactions.yaml');
writeFileSync(
  manifest,
  'channels:\n  ops-slack:\n    plugin: slack\n    config: { botTokenEnv: DOCTOR_SLACK_TOKEN, signingSecretEnv: DOCTOR_SLACK_SECRET, defaultRecipient: C0123456789 }\n',
);
const SLACK = { DOCTOR_SLACK_TOKEN: 'xoxb-secret-value', DOCTOR_SLACK_SECRET: 'signing-secret-value' };

let t: TestServer;
let base = '';
beforeAll(async () => {
  t = await startServer({ store: 'memory' });
  base = await t.listen();
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tai-interactions doctor', () => {
  it('says every check on its own line and exits 0 when nothing fails', async () => {
    const r = await runCliInProcess(['doctor', '--timeout', '3'], {
      env: { ...SLACK, INTERACTIONS_MANIFEST: manifest, INTERACTIONS_PUBLIC_BASE_URL: base },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok {4}settings: /m);
    expect(r.stdout).toMatch(/^warn {2}redis: INTERACTIONS_REDIS_URL is not set/m);
    // Loopback http: it answers, but no provider outside this machine can reach it.
    expect(r.stdout).toContain(`public URL: ${base} answers /health (version ${VERSION})`);
    expect(r.stdout).toMatch(
      /^ok {4}channel ops-slack: plugin slack; credentials set \(DOCTOR_SLACK_TOKEN, DOCTOR_SLACK_SECRET\)/m,
    );
    expect(r.stdout).toMatch(/^warn {2}keys: no INTERACTIONS_API_KEYS/m);
    expect(r.stdout).toMatch(/^warn {2}receipt keys: INTERACTIONS_RECEIPT_KEYS_FILE is not set/m);
    expect(r.stdout).toMatch(/^ok {4}mcp state key: generated at each start \(one instance/m);
    expect(r.stdout).toMatch(/no problems found\n$/);
    // Names of variables, never their values.
    expect(r.stdout).not.toContain('secret-value');
  });

  it('warns about an unset MCP state key once instances share a Redis, and never shows a set one', async () => {
    const shared = { INTERACTIONS_REDIS_URL: inject('redisUrl'), INTERACTIONS_PUBLIC_BASE_URL: base };
    const unset = await runCliInProcess(['doctor', '--timeout', '3'], { env: shared });
    expect(unset.stdout).toMatch(/^warn {2}mcp state key: INTERACTIONS_MCP_STATE_KEY is not set/m);
    const key = 'mcp-state-secret-value-0123456789';
    const set = await runCliInProcess(['doctor', '--timeout', '3'], {
      env: { ...shared, INTERACTIONS_MCP_STATE_KEY: key },
    });
    expect(set.stdout).toMatch(/^ok {4}mcp state key: INTERACTIONS_MCP_STATE_KEY is set/m);
    expect(set.stdout).not.toContain(key);
  });

  it('fails a channel whose credentials are missing, and one without a public URL off loopback', async () => {
    const missing = await runCliInProcess(['doctor'], {
      env: { DOCTOR_SLACK_TOKEN: 'x', INTERACTIONS_MANIFEST: manifest },
    });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^FAIL {2}manifest: .*DOCTOR_SLACK_SECRET/m);
    // On loopback the public URL defaults to the listener's; bound elsewhere it must be set.
    const noUrl = await runCliInProcess(['doctor'], {
      env: { ...SLACK, INTERACTIONS_MANIFEST: manifest, HOST: '0.0.0.0' },
    });
    expect(noUrl.code).toBe(1);
    expect(noUrl.stdout).toMatch(/^FAIL {2}public URL: INTERACTIONS_PUBLIC_BASE_URL is not set/m);
    expect(noUrl.stdout).toMatch(/^FAIL {2}channel ops-slack: .*not ready/m);
    expect(noUrl.stdout).toMatch(/2 problem\(s\) found\n$/);
  });

  it('fails an invalid setting, open access off loopback, and prints JSON with --json', async () => {
    const bad = await runCliInProcess(['doctor'], { env: { PORT: 'eighty' } });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^FAIL {2}settings: PORT: /m);
    const open = await runCliInProcess(['--json', 'doctor'], {
      env: { ACCESS_CONTROL_ENABLE: 'false', HOST: '0.0.0.0' },
    });
    expect(open.code).toBe(1);
    const report = JSON.parse(open.stdout) as { ok: boolean; findings: { level: string; check: string }[] };
    expect(report.ok).toBe(false);
    expect(report.findings).toContainEqual(expect.objectContaining({ level: 'fail', check: 'keys' }));
  });

  it('refuses a --timeout out of range, as a usage error', async () => {
    for (const timeout of ['0', '61', 'soon']) {
      const r = await runCliInProcess(['doctor', '--timeout', timeout]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--timeout must be a number of seconds from 1 to 60');
    }
    expect((await runCliInProcess(['doctor', '--timeout', '60'], { env: { PORT: 'x' } })).code).toBe(1);
  });
});

describe('doctor against a public URL that streams without end', () => {
  it('reads a few KiB of its /health, then says it is not this server', async () => {
    const { createServer } = await import('node:http');
    let sent = 0;
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (sent < 512 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
        if (sent < 512 * 1024 * 1024) res.once('drain', pump);
      };
      res.on('close', () => res.removeListener('drain', pump));
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    const address = endless.address() as { port: number };
    try {
      const r = await runCliInProcess(['doctor', '--timeout', '5'], {
        env: {
          ...SLACK,
          INTERACTIONS_MANIFEST: manifest,
          INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${address.port}`,
        },
      });
      expect(r.stdout).toMatch(/^warn {2}public URL: .*\/health answered 200, not this server's health/m);
      // The read stopped after a few KiB: far less than the 512 MiB the server offered.
      expect(sent).toBeLessThan(16 * 1024 * 1024);
    } finally {
      endless.closeAllConnections();
      await new Promise<void>((resolve) => endless.close(() => resolve()));
    }
  });
});

describe('doctor without a public URL, with --port, and with an e-mail channel', () => {
  it('says an unset public URL is unset, and whether a server answers on the port --port gives', async () => {
    const port = new URL(base).port;
    const r = await runCliInProcess(['doctor', '--timeout', '3', '--port', port]);
    expect(r.stdout).toMatch(/^ok {4}settings: listens on 127\.0\.0\.1:(\d+)/m);
    expect(r.stdout).toContain(`settings: listens on 127.0.0.1:${port}`);
    expect(r.stdout).toMatch(
      new RegExp(
        `^warn {2}public URL: INTERACTIONS_PUBLIC_BASE_URL is not set: links use http://127\\.0\\.0\\.1:${port}, which only this machine can open; a server answers there \\(version ${VERSION.replace(/\./g, '\\.')}\\)$`,
        'm',
      ),
    );
    expect(r.stdout).not.toMatch(/is set/);
    expect(r.code).toBe(0);
  });

  it('says nothing answers on a wrong port, and refuses a port that is not one', async () => {
    const closed = await freePort();
    const r = await runCliInProcess(['doctor', '--timeout', '3', '--port', String(closed)]);
    expect(r.stdout).toMatch(
      new RegExp(
        `^warn {2}public URL: INTERACTIONS_PUBLIC_BASE_URL is not set: .*; no server answers at http://127\\.0\\.0\\.1:${closed} \\(not started, or on another port: doctor --port <port>\\)$`,
        'm',
      ),
    );
    for (const port of ['0', '65536', 'http', '40 00']) {
      const bad = await runCliInProcess(['doctor', '--port', port]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--port must be a whole number from 1 to 65535');
      expect(bad.stdout).toBe('');
    }
    const edge = await runCliInProcess(['doctor', '--timeout', '1', '--port', '65535']);
    expect(edge.stdout).toContain('settings: listens on 127.0.0.1:65535');
  });

  it("connects to an e-mail channel's SMTP server: a closed port and a refused login fail, a good one passes", async () => {
    const mailManifest = path.join(dir, 'mail.yaml');
    writeFileSync(
      mailManifest,
      'channels:\n  ops-mail:\n    plugin: email\n    config: { smtpUrlEnv: DOCTOR_SMTP_URL, from: tai@example.com, defaultRecipient: oncall@example.com }\n',
    );
    const smtp = await startFakeSmtp('doctor', 'smtp-pass-value');
    try {
      const closed = await freePort();
      const doctor = (url: string) =>
        runCliInProcess(['doctor', '--timeout', '3'], {
          env: {
            INTERACTIONS_MANIFEST: mailManifest,
            INTERACTIONS_PUBLIC_BASE_URL: base,
            DOCTOR_SMTP_URL: url,
          },
        });
      const refused = await doctor(`smtp://doctor:smtp-pass-value@127.0.0.1:${closed}`);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(
        new RegExp(
          `^FAIL {2}channel ops-mail: .*SMTP at 127\\.0\\.0\\.1:${closed}: cannot connect \\(ECONNREFUSED\\)$`,
          'm',
        ),
      );
      const wrongLogin = await doctor(smtp.url.replace('smtp-pass-value', 'wrong-pass-value'));
      expect(wrongLogin.code).toBe(1);
      expect(wrongLogin.stdout).toMatch(
        /^FAIL {2}channel ops-mail: .*: the login was refused \(SMTP 535\)$/m,
      );
      const good = await doctor(smtp.url);
      expect(good.stdout).toMatch(
        /^ok {4}channel ops-mail: .*SMTP at 127\.0\.0\.1:\d+ answers and accepts the login$/m,
      );
      for (const out of [refused.stdout, wrongLogin.stdout, good.stdout])
        expect(out).not.toMatch(/pass-value/);
    } finally {
      await smtp.close();
    }
  });
});
