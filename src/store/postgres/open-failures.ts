import { StoreOpenError } from '../storage.ts';
import { isUnavailable } from './unavailable.ts';

/** What names a PostgreSQL store: a `postgres://` or `postgresql://` URL. */
export const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;
export const NOT_A_POSTGRES_URL = 'must be a postgres:// or postgresql:// URL';

/** The URL without its password, for messages and logs. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.username ? `${decodeURIComponent(parsed.username)}@` : ''}${parsed.hostname || 'localhost'}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    return 'the configured database';
  }
}

const SETTING = 'TMS_DATABASE_URL / --database-url';

/** A failure to open the database that an operator can fix, as one line naming the cause and the fix. */
export function explainOpenFailure(error: unknown, url: string): unknown {
  const { code, message = String(error) } = error as { code?: string; message?: string };
  const where = describeUrl(url);
  const explained = (text: string) => new StoreOpenError(text, { cause: error });
  if (code === '28P01' || code === '28000') return explained(`the database ${where} refused the login (${message}); check the user and password in ${SETTING}`);
  if (code === '3D000') return explained(`${message} at ${where}; create it, or name another in ${SETTING}`);
  if (code === '42501') {
    const schema = /permission denied for schema (\S+)/.exec(message)?.[1];
    const right = schema ? `CREATE on schema ${schema} (GRANT CREATE ON SCHEMA ${schema} TO <user>)` : 'CREATE on the database';
    return explained(`the database user may not create tms's tables in ${where} (${message}); grant it ${right}, or run "tms migrate" as a user who may`);
  }
  if (code === '42P07') {
    return explained(`the database ${where} holds a table of another program where tms keeps one (${message}); give tms a database of its own in ${SETTING}`);
  }
  if (code === '42P01') {
    return explained(
      `the database ${where} is missing one of tms's tables although its schema version says it has them (${message}): it was changed by hand or by another program; restore a backup into a new database (tms restore), or name another in ${SETTING}`,
    );
  }
  if (/does not support SSL/i.test(message)) {
    return explained(`the database at ${where} does not take SSL connections (${message}); leave sslmode out of ${SETTING}, or turn SSL on in PostgreSQL`);
  }
  if (message.includes('newer than this build')) return explained(`${message} (database ${where})`);
  if (code === 'ERR_INVALID_URL' || error instanceof TypeError) return explained(`${SETTING} is not a usable URL (${message}); use postgres://user:password@host:port/database`);
  if (isUnavailable(error)) return explained(`cannot reach the database at ${where} (${message}); check that PostgreSQL runs there and that ${SETTING} names it`);
  return error;
}
