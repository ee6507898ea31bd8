// `npm start`: read the settings once, start the server, stop cleanly on SIGINT/SIGTERM.
import type { DestinationStream } from 'pino';
import { VERSION } from '../domain/version.ts';
import {
  ConfigError,
  configWarnings,
  loadConfig,
  loadManifestSettings,
  type ManifestSettings,
} from './config.ts';
import { ManifestError } from './manifest.ts';
import { createLogger, createServer, StartupError } from './server.ts';
import { baseUrlNotices, holdStartWarnings } from './start-notices.ts';

/** In a terminal, log lines are made readable; anywhere else they stay JSON for the collector. */
async function logDestination(): Promise<DestinationStream | undefined> {
  if (!process.stdout.isTTY) return undefined;
  // Loaded only here: a deployment never pays for it.
  const { default: pretty } = await import('pino-pretty');
  return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}

/** Where a person opens the inbox: the public URL, else the listening one (a wildcard bind as loopback). */
function inboxUrl(publicBaseUrl: string | null, listening: string): string {
  if (publicBaseUrl) return `${publicBaseUrl.replace(/\/+$/, '')}/`;
  return `${listening.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, 'http://127.0.0.1')}/`;
}

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  let manifest: ManifestSettings;
  try {
    config = loadConfig(process.env);
    manifest = await loadManifestSettings(process.env, process.cwd());
  } catch (err) {
    if (err instanceof ConfigError || err instanceof ManifestError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  // `npm start -- --verbose` / `tai-interactions serve --verbose`: every start warning in full.
  const held = holdStartWarnings(
    createLogger(config.logLevel, await logDestination()),
    process.argv.includes('--verbose'),
  );
  const logger = held.logger;
  for (const warning of [...configWarnings(config), ...baseUrlNotices(config, manifest)])
    logger.warn(warning);
  let server: Awaited<ReturnType<typeof createServer>>;
  try {
    server = await createServer(config, logger, { manifest });
  } catch (err) {
    if (err instanceof StartupError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const url = await server.listen();
  held.release();
  logger.info({ url, store: server.store.kind, version: VERSION }, 'tai-interactions is listening');
  if (manifest.manifest.modules.inbox !== false) {
    logger.info(
      { url: inboxUrl(config.publicBaseUrl, url) },
      `the inbox is at ${inboxUrl(config.publicBaseUrl, url)}`,
    );
  }
  const metricsUrl = server.metricsUrl();
  if (metricsUrl) logger.info({ url: `${metricsUrl}/metrics` }, 'metrics are served on their own port');
  if (server.mintedAdminKey) {
    // Printed once, on purpose, and never logged: the key rides in the URL fragment.
    process.stdout.write(
      `\nNo API keys are configured: a one-off admin key was minted for this run.\n` +
        `  Inbox:   ${url}/#key=${server.mintedAdminKey}\n` +
        `  API key: ${server.mintedAdminKey}\n\n`,
    );
  }
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down');
    await server.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
