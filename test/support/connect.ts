// Connect clients in tests: the admin's credentials, and failures uvu can report.
import { suite, type Callback, type Test } from 'uvu';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { ADMIN_KEY } from './admin-key.ts';

/** Calls as the test server's admin. */
export const asAdmin: Interceptor = (next) => (req) => {
  req.header.set('authorization', `Bearer ${ADMIN_KEY}`);
  return next(req);
};

/**
 * A uvu suite for tests that call through Connect clients. uvu prints a failure's `details` as text, and a
 * ConnectError's `details` is an array: a ConnectError escaping a test would make uvu's own report throw,
 * hiding the failure and skipping the file's remaining tests. Here it fails the test as an Error that says
 * the code and message, the ConnectError kept as its cause.
 */
export function connectSuite<T>(title: string): Test<T> {
  const inner = suite<T>(title);
  const reported = (handler: Callback<T>): Callback<T> => async (context) => {
    try {
      await handler(context);
    } catch (error) {
      throw reportable(error);
    }
  };
  const test = ((name: string, handler: Callback<T>) => inner(name, reported(handler))) as Test<T>;
  return Object.assign(test, inner, { only: (name: string, handler: Callback<T>) => inner.only(name, reported(handler)) });
}

function reportable(error: unknown): unknown {
  if (!(error instanceof ConnectError)) return error;
  const readable = new Error(`ConnectError [${Code[error.code]}]: ${error.rawMessage}`, { cause: error });
  readable.stack = `${readable.message}\n${error.stack?.split('\n').slice(1).join('\n') ?? ''}`;
  return readable;
}
