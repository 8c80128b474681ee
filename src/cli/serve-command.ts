import { constants as osConstants } from 'node:os';
import { Command, Option } from 'commander';
import { configEnv, configFlags, configSchema, loadConfig, type Config } from '../config.ts';
import { createLogger, type Logger } from '../observability/logger.ts';
import { startApp, type RunningApp } from '../app.ts';
import { explainStartupError } from './startup-errors.ts';

/** What each setting's flag is for; the flags themselves are `configFlags`. */
const flagHelp: [keyof Config, string][] = [
  ['port', 'port for every protocol'],
  ['host', 'address to listen on'],
  ['dataDir', 'LevelDB folder (the embedded store)'],
  ['databaseUrl', 'PostgreSQL instead of the LevelDB folder: postgres://user:password@host:port/database'],
  ['adminKey', 'API key for the admin account created on first start'],
  ['tlsCert', 'PEM certificate: serve TLS (h2 and HTTP/1.1 by ALPN)'],
  ['tlsKey', 'PEM private key for --tls-cert'],
  ['logLevel', 'fatal, error, warn, info, debug, trace or silent'],
  ['rateLimit', 'requests per second per credential; 0 turns it off'],
  ['sessionTtlMs', 'how long a login session token stays valid'],
  ['loginLockMs', 'first lockout after repeated failed logins (doubles per repeat)'],
  ['bodyLimitBytes', 'largest request body'],
  ['requestTimeoutMs', 'longest a request may take'],
  ['maxPageSize', 'largest page_size a client may ask for'],
  ['defaultPageSize', 'page size when none is given'],
  ['analysisThreads', 'worker threads for paradox and anchor analysis'],
  ['shutdownGraceMs', 'how long in-flight requests may take to finish on SIGTERM'],
  ['trustedProxies', 'proxies (addresses or subnets, comma-separated) whose X-Forwarded-For names the client'],
  ['shutdownDrainMs', 'on SIGTERM, keep serving this long while /readyz says NOT_SERVING, so load balancers move away first'],
];

/** Signals closer together than this are one (a Ctrl+C the terminal and npm both pass on). */
const SAME_SIGNAL_MS = 1000;

export function serveCommand(): Command {
  const command = new Command('serve').description('run the service (the default command)');
  // Defaults are said in the help only: an option's own default would hide the variable behind it.
  const defaults: Partial<Config> = configSchema.parse({});
  for (const [key, help] of flagHelp) {
    const preset = defaults[key];
    const shown = preset === undefined || preset === '' ? '' : `; default ${String(preset)}`;
    command.addOption(new Option(configFlags[key], `${help} (env ${configEnv[key]}${shown})`));
  }
  command.option(configFlags.seedCatalogue, `do not load the historical catalogue into an empty primary timeline (env ${configEnv.seedCatalogue}=false)`);
  command.action(async (options: Record<string, unknown>) => {
    let config: Config | undefined;
    let logger: Logger;
    let app: RunningApp;
    try {
      config = loadConfig({ ...options, seedCatalogue: options['seed'] === false ? false : undefined });
      logger = createLogger(config.logLevel);
      app = await startApp(config, logger);
    } catch (error) {
      const explained = explainStartupError(error, config);
      // Expected causes get one line naming the fix; anything else keeps its stack trace.
      process.stderr.write(`tms: ${explained ?? (error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
      process.exit(1);
    }
    // The start-up's log lines come before the banner, as they happened. The banner goes to stderr: stdout is the
    // JSON log, which collectors parse and keep, and the secrets below are for the person starting the service.
    logger.flush();
    if (app.bootstrap) {
      // Shown once, on the first start of an empty store; only hashes are kept.
      process.stderr.write(
        [
          '',
          'tms: first start, an admin account was created. These secrets are shown once:',
          `  username: ${app.bootstrap.username}`,
          `  password: ${app.bootstrap.password}`,
          `  API key:  ${config.adminKey ? '(the one you set with TMS_ADMIN_KEY / --admin-key)' : app.bootstrap.key}`,
          '',
        ].join('\n') + '\n',
      );
    }
    if (app.notice) process.stderr.write(`tms: ${app.notice}\n`);
    process.stderr.write(`tms: listening on ${app.url} (gRPC, gRPC-Web, Connect, REST)\n`);
    process.stderr.write(`tms: try-it console ${app.url}/console\n`);
    process.stderr.write(`tms: API description ${app.url}/openapi.json  ·  health ${app.url}/healthz\n`);
    let stoppingSince: number | undefined;
    const stop = (signal: NodeJS.Signals) => {
      if (stoppingSince !== undefined) {
        // One Ctrl+C can arrive twice (from the terminal and from npm, which passes it on): a second signal counts
        // once it comes a second later, from an operator who will not wait for the requests still in flight.
        if (performance.now() - stoppingSince < SAME_SIGNAL_MS) return;
        logger.warn({ signal }, 'second signal: exiting now, without waiting for requests in flight');
        logger.flush();
        process.exit(128 + osConstants.signals[signal]);
      }
      stoppingSince = performance.now();
      logger.info({ signal }, 'shutting down: finishing in-flight requests');
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
  return command;
}
