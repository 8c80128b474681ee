import { readFileSync } from 'node:fs';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { createContextValues } from '@connectrpc/connect';
import type { Config } from './config.ts';
import type { Logger } from './observability/logger.ts';
import { watchProblem } from './observability/problem-watch.ts';
import { openStorage } from './store/storage.ts';
import { AccessControl } from './accounts/access.ts';
import { SavedRequests } from './saved-requests/saved-requests.ts';
import { assertCovered } from './accounts/authorization.ts';
import { RateLimiter } from './accounts/rate-limit.ts';
import { AnalysisPool } from './analysis/pool.ts';
import { AnchorStabilityChecker } from './analysis/anchor-stability-checker.ts';
import { loadCatalogueIfEmpty } from './catalogue/load.ts';
import { Metrics } from './observability/metrics.ts';
import { createOperations } from './api/operations/index.ts';
import { timelinesOwnedBy } from './accounts/owned-by-name.ts';
import { createGate } from './server/access-gate.ts';
import { answerUnknownRpc, createHttpHandler, logClientError } from './server/http-handler.ts';
import { createOnePortServer, type ClientErrorAnswer, type RequestHandler } from './server/one-port.ts';
import { RestRouter } from './server/rest/router.ts';
import { restRoutes } from './server/rest/routes.ts';
import { buildOpenApi } from './server/rest/openapi.ts';
import { plainRoutes } from './server/plain/plain-routes.ts';
import { BACKUP_PATH, backupRoute } from './server/plain/backup-route.ts';
import { Readiness } from './server/readiness.ts';
import { startingHandler } from './server/starting-handler.ts';
import { createGrpcUnary } from './server/grpc/unary.ts';
import { createConnectUnary } from './server/connect/unary.ts';
import { firstThatServes, unaryMethodsByPath } from './server/unary-rpc.ts';
import { RPC_JSON_OPTIONS, recordOutcome, registerRpcServices, requestStateKey } from './server/connect/rpc-services.ts';
import { rpcMethods, tmsServices } from './server/connect/services.ts';
import { HealthState, registerHealth } from './server/grpc-infra/health.ts';
import { registerReflection } from './server/grpc-infra/reflection.ts';
import { healthFile, tmsServiceFiles } from './server/grpc-infra/api-files.ts';
import { errorDetailFiles } from './server/error-details.ts';
import { requestStateOf } from './server/request-state.ts';
import { ClientAddresses } from './server/client-address.ts';
import { useNodeTextEncoding } from './server/protobuf-text.ts';
import { ensureConsoleBuild } from './server/console-host/console-build.ts';
import { loadConsoleAssets } from './server/console-host/console-assets.ts';
import { consoleRoutes } from './server/console-host/console-routes.ts';

export interface RunningApp {
  url: string;
  port: number;
  /** Set only on the first start of an empty store: print once, never again. */
  bootstrap?: { username: string; password: string; key: string };
  /** What the start did with TMS_ADMIN_KEY or found about the admin account, for the operator to read once. */
  notice?: string;
  close(): Promise<void>;
}

const VERSION = '0.1.0';
const COMPRESS_MIN_BYTES = 32 * 1024;

/**
 * Listens at once (answering 503 with the reason while it starts), opens the store, builds every face over
 * one set of operations, and then serves them on that port.
 */
export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  useNodeTextEncoding();
  const health = new HealthState();
  const readiness = new Readiness(health, tmsServices.map((service) => service.typeName), 'opening the store');
  let serve: RequestHandler = startingHandler(readiness);
  const tls = config.tlsCert && config.tlsKey ? { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) } : undefined;
  // Counted as well as logged once the metrics exist.
  let clientError = (answer: ClientErrorAnswer) => logClientError(logger, undefined, answer);
  const server = createOnePortServer((req, res) => serve(req, res), {
    ...(tls && { tls }),
    requestTimeoutMs: config.requestTimeoutMs,
    onClientError: (answer) => clientError(answer),
  });
  const { port } = await server.listen(config.port, config.host);
  // What was opened, closed in reverse order once in-flight requests are done.
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    health.endWatches();
    const cut = await server.close(config.shutdownGraceMs);
    if (cut > 0) logger.warn({ requests: cut, grace_ms: config.shutdownGraceMs }, 'shutdown grace ended: requests still in flight were cut');
    for (const close of closers.reverse()) await close();
  };

  try {
    // primary belongs to no account: everyone may read it, only admins may change it.
    const storage = await openStorage({
      dataDir: config.dataDir,
      ...(config.databaseUrl && { databaseUrl: config.databaseUrl }),
      primaryOwner: '',
      timelineOptions: { indexPrimaryAtOpen: true },
    });
    closers.push(() => storage.close());
    readiness.addCheck(() => storage.problem());
    const stopWatching = watchProblem(logger, 'the store', () => storage.problem());
    closers.push(async () => stopWatching());
    const store = storage.timelines;
    if (config.seedCatalogue) {
      readiness.starting('loading the catalogue');
      const loaded = await loadCatalogueIfEmpty(store);
      if (loaded) logger.info({ events: loaded }, 'catalogue loaded into primary');
    }
    readiness.starting('opening accounts');
    const access = await AccessControl.open(storage.accounts, {
      sessionTtlMs: config.sessionTtlMs,
      throttle: { lockMs: config.loginLockMs },
      ownedByName: timelinesOwnedBy(store),
    });
    closers.push(() => access.close());
    const bootstrap = await access.ensureAdmin(config.adminKey ? { adminKey: config.adminKey } : {});
    const pool = new AnalysisPool(config.analysisThreads ? { threads: config.analysisThreads } : {});
    closers.push(() => pool.close());
    readiness.addCheck(() => pool.problem());
    const anchorStability = new AnchorStabilityChecker(pool);
    const metrics = new Metrics(pool, { cacheCounts: () => [...store.cacheCounts(), anchorStability.counts()] });
    clientError = (answer) => logClientError(logger, metrics, answer);
    const savedRequests = new SavedRequests(storage.savedRequests);
    const operations = createOperations({ store, pool, anchorStability, access, savedRequests, config });
    // A new RPC without a row in the authorization table must fail at start, not serve unguarded.
    assertCovered(rpcMethods.keys());
    const gate = createGate(access, new RateLimiter({ ratePerSecond: config.rateLimit }));

    const unaryOptions = {
      methods: unaryMethodsByPath(tmsServices),
      operations,
      gate,
      requestTimeoutMs: config.requestTimeoutMs,
      readMaxBytes: config.bodyLimitBytes,
      compressMinBytes: COMPRESS_MIN_BYTES,
    };
    const rpcRoutes = new Map<string, string>();
    const rpcHandler = connectNodeAdapter({
      jsonOptions: RPC_JSON_OPTIONS,
      interceptors: [recordOutcome],
      // The same body limit as REST (an oversized message is refused with resource_exhausted).
      readMaxBytes: config.bodyLimitBytes,
      // Pages of a few dozen events are cheaper to send than to gzip; big pages are still compressed.
      compressMinBytes: COMPRESS_MIN_BYTES,
      routes(router) {
        registerRpcServices(router, tmsServices, { operations, gate, requestTimeoutMs: config.requestTimeoutMs });
        registerHealth(router, health);
        // Error detail types too, so reflection clients can decode them.
        registerReflection(router, [...tmsServiceFiles, ...errorDetailFiles, healthFile]);
        for (const handler of router.handlers) rpcRoutes.set(handler.requestPath, `${handler.service.typeName}.${handler.method.name}`);
      },
      fallback: answerUnknownRpc,
      contextValues: (req) => createContextValues().set(requestStateKey, requestStateOf(req)),
    });
    const openapi = () => buildOpenApi(restRoutes, operations, VERSION);
    // Built once per change of its sources (npm install builds it ahead); requests wait for a build in progress.
    const consoleSite = consoleRoutes(ensureConsoleBuild().then(loadConsoleAssets), logger);
    serve = createHttpHandler({
      restRouter: new RestRouter(restRoutes),
      operations,
      gate,
      bodyLimitBytes: config.bodyLimitBytes,
      requestTimeoutMs: config.requestTimeoutMs,
      rpcHandler,
      rpcRoutes,
      unaryRpc: firstThatServes(createGrpcUnary(unaryOptions), createConnectUnary(unaryOptions)),
      plainRoutes: new Map([
        ...plainRoutes(readiness, metrics, openapi),
        ...consoleSite.exact,
        [BACKUP_PATH, backupRoute(storage, access, config.databaseUrl ? 'postgresql' : 'leveldb', logger)],
      ]),
      prefixRoutes: [consoleSite.prefix],
      clientAddresses: new ClientAddresses(config.trustedProxies),
      logger,
      metrics,
    });
    readiness.starting(undefined);
    readiness.watch();

    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    return {
      url: `${tls ? 'https' : 'http'}://${host}:${port}`,
      port,
      ...(bootstrap.created ? { bootstrap: { username: bootstrap.username, password: bootstrap.password, key: bootstrap.key } } : {}),
      ...(!bootstrap.created && bootstrap.notice ? { notice: bootstrap.notice } : {}),
      async close() {
        // Not ready from the first moment; still serving for the drain time, so that load balancers move away first.
        readiness.drain();
        if (config.shutdownDrainMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
        await closeAll();
      },
    };
  } catch (error) {
    readiness.drain();
    await closeAll().catch(() => undefined);
    throw error;
  }
}
