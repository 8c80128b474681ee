import { randomBytes } from 'node:crypto';
import type { PlainRoute } from '../http-handler.ts';
import type { AnyRequest, AnyResponse } from '../one-port.ts';
import type { RequestState } from '../request-state.ts';
import type { Logger } from '../../observability/logger.ts';
import { PAGE_CONTENT_TYPE, type Asset, type ConsoleAssets } from './console-assets.ts';
import { ApiError } from '../../domain/errors.ts';
import { sendError } from '../http-io.ts';

/**
 * The page may load scripts, styles and data only from this origin, run no inline or eval'd code, and be
 * framed by nobody. The one inline thing allowed is a `<style>` element carrying the response's nonce: the
 * JSON editor (CodeMirror) writes its styles that way.
 */
export function contentSecurityPolicy(styleNonce?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    styleNonce ? `style-src 'self' 'nonce-${styleNonce}'` : "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Every console response carries these. */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': contentSecurityPolicy(),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const PAGE_CACHE = 'no-cache';
const ASSET_CACHE = 'public, max-age=31536000, immutable';
const ASSETS = '/console/assets/';

export interface ConsoleRoutes {
  /** `/console` and `/console/`. */
  exact: Map<string, PlainRoute>;
  /** `/console/…`: the hashed assets. */
  prefix: [string, PlainRoute];
}

/**
 * The console's routes. `assets` settles when the build is loaded (a first start may still be building it);
 * until then requests wait for it, and a failed build answers 503 naming the cause.
 */
export function consoleRoutes(assets: Promise<ConsoleAssets>, logger: Logger): ConsoleRoutes {
  let failure: Error | undefined;
  assets.catch((error: unknown) => {
    failure = error as Error;
    logger.error({ err: error }, 'the try-it console could not be built; /console answers 503');
  });
  const withAssets = (serve: (loaded: ConsoleAssets, req: AnyRequest, res: AnyResponse, state: RequestState) => void): PlainRoute => async (req, res, state) => {
    let loaded: ConsoleAssets;
    try {
      loaded = await assets;
    } catch {
      refuse(res, state, new ApiError('unavailable', `the try-it console is not available: ${failure?.message ?? 'build failed'}`));
      return;
    }
    serve(loaded, req, res, state);
  };
  const page = withAssets((loaded, req, res) => {
    // A fresh nonce per response, so the page is never answered from a validator (no ETag).
    const nonce = randomBytes(16).toString('base64');
    const body = Buffer.from(loaded.pageTemplate.replaceAll('{{nonce}}', nonce));
    res.writeHead(200, {
      ...CONSOLE_SECURITY_HEADERS,
      'content-security-policy': contentSecurityPolicy(nonce),
      'content-type': PAGE_CONTENT_TYPE,
      'cache-control': PAGE_CACHE,
      'content-length': String(body.length),
    });
    if (req.method === 'HEAD') res.end();
    else res.end(body);
  });
  return {
    exact: new Map([
      ['/console', page],
      ['/console/', page],
    ]),
    prefix: [
      '/console/',
      withAssets((loaded, req, res, state) => {
        const path = (req.url ?? '').split('?')[0]!;
        const file = path.startsWith(ASSETS) ? loaded.files.get(path.slice(ASSETS.length)) : undefined;
        if (!file) {
          refuse(res, state, new ApiError('not_found', `no console file ${path}`));
          return;
        }
        send(req, res, file, ASSET_CACHE);
      }),
    ],
  };
}

/** An error answer, counted and logged by its code. */
function refuse(res: AnyResponse, state: RequestState, error: ApiError): void {
  state.code = error.code;
  sendError(res, error, { ...CONSOLE_SECURITY_HEADERS });
}

function send(req: AnyRequest, res: AnyResponse, file: Asset, cacheControl: string): void {
  const headers: Record<string, string> = {
    ...CONSOLE_SECURITY_HEADERS,
    'content-type': file.contentType,
    'cache-control': cacheControl,
    etag: file.etag,
    vary: 'accept-encoding',
  };
  if (req.headers['if-none-match'] === file.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const acceptsGzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = acceptsGzip && file.gzip ? file.gzip : file.body;
  if (body === file.gzip) headers['content-encoding'] = 'gzip';
  headers['content-length'] = String(body.length);
  res.writeHead(200, headers);
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}
