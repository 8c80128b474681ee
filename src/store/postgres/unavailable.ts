import { StoreUnavailableError } from '../storage.ts';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Shutting down, crashed, not accepting connections yet, too many connections, statement or lock timeout. */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '55P03']);
const DRIVER_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|Connection ended/i;

/** Whether `error` says the database cannot be reached or did not answer in time (not that the request was wrong). */
export function isUnavailable(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  if (code && (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))) return true;
  return DRIVER_MESSAGES.test(message ?? '');
}

export const unavailable = (error: unknown): StoreUnavailableError =>
  new StoreUnavailableError(`the database is unavailable (${(error as Error).message || String(error)})`, { cause: error });

/**
 * The same store, whose asynchronous methods fail with `StoreUnavailableError` when the database cannot be
 * reached, so that every face answers `unavailable` (HTTP 503) rather than `internal`.
 */
export function reportingUnavailable<T extends object>(store: T, onUnavailable: (error: unknown) => void): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          if (!isUnavailable(error)) throw error;
          onUnavailable(error);
          throw unavailable(error);
        });
      };
    },
  });
}
