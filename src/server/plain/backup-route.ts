import type { AccessControl } from '../../accounts/access.ts';
import type { Logger } from '../../observability/logger.ts';
import type { Storage } from '../../store/storage.ts';
import type { PlainRoute } from '../http-handler.ts';
import { hasScope, sortScopes } from '../../accounts/principal.ts';
import { ApiError } from '../../domain/errors.ts';
import { writeBackup } from '../../store/backup.ts';
import { authorizationHeader, sendError } from '../http-io.ts';
import { failedCall } from '../invoke.ts';

export const BACKUP_PATH = '/v1/admin/backup';

/**
 * `GET /v1/admin/backup`: a consistent snapshot of the whole store, streamed as a `tms backup` file while the
 * service keeps serving (`tms backup --url` saves it). Admin scope only. Not an RPC (a file of any size, not
 * one message), so it is a plain route that admits its caller itself: the same credentials, 401 and 403 in
 * the same error JSON, no rate limit. No request deadline applies: a big store takes as long as it takes.
 * A failure after the answer began cuts the connection, which the reader sees as a truncated file.
 */
export function backupRoute(storage: Storage, access: AccessControl, source: string, logger: Logger): PlainRoute {
  return async (req, res, state) => {
    const headers = { 'x-request-id': state.requestId };
    try {
      const principal = await access.identify(authorizationHeader(req), state.client);
      state.credentialId = principal.credentialId;
      state.account = principal.account;
      if (!hasScope(principal, 'admin')) {
        const held = sortScopes(principal.scopes).join(', ') || 'no scopes';
        throw new ApiError('permission_denied', `GET ${BACKUP_PATH} needs the "admin" scope; this credential has: ${held}`);
      }
    } catch (thrown) {
      sendError(res, failedCall(state, thrown), headers);
      return;
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    res.writeHead(200, {
      ...headers,
      'content-type': 'application/vnd.tms.backup',
      'content-disposition': `attachment; filename="tms-${stamp}.tmsbackup"`,
      'cache-control': 'no-store',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const started = performance.now();
    try {
      const trailer = await writeBackup(storage, source, res);
      logger.info({ req_id: state.requestId, entries: trailer.entries, timelines: trailer.timelines.length, ms: Math.round(performance.now() - started) }, 'backup streamed');
    } catch (error) {
      // The client may simply have gone away; either way the stream is cut, never ended as if complete.
      const code = (error as { code?: string }).code ?? '';
      const clientLeft = ['ERR_STREAM_PREMATURE_CLOSE', 'EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED'].includes(code);
      const ms = Math.round(performance.now() - started);
      if (clientLeft) {
        // Not a fault of the store: the client went away, or shutdown closed the connection.
        state.code = 'canceled';
        logger.warn({ req_id: state.requestId, reason: code, ms }, 'backup stream cut: its connection closed before the end');
      } else {
        state.code = 'internal';
        state.failure = error;
        logger.warn({ req_id: state.requestId, err: error, ms }, 'backup stream failed');
      }
      res.destroy();
    }
  };
}
