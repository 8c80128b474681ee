// `npm test` runs the whole suite, the PostgreSQL suites included: with no TMS_TEST_DATABASE_URL, the runner runs
// itself again inside a throw-away cluster (scripts/with-postgres.sh, Debian's pg_virtualenv).
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

const WITH_POSTGRES = new URL('../scripts/with-postgres.sh', import.meta.url).pathname;
/** pg_virtualenv's own progress lines, sent to stderr so that the suite's count stays stdout's last line. */
const CLUSTER_LINE = /^(Creating new PostgreSQL cluster|Dropping cluster) \S+ \.\.\.$/;

const hasPgVirtualenv = (): boolean => spawnSync('sh', ['-c', 'command -v pg_virtualenv'], { stdio: 'ignore' }).status === 0;

/**
 * Undefined where the suite can run here as it is (a database is named); otherwise the exit code of the run made
 * inside a throw-away cluster, or 1 with a message where no cluster can be made.
 */
export async function runInsideThrowAwayPostgres(): Promise<number | undefined> {
  if (process.env.TMS_TEST_DATABASE_URL) return undefined;
  if (!hasPgVirtualenv()) {
    console.error(
      'The PostgreSQL suites need a server: install Debian\'s postgresql (apt-get install postgresql, for pg_virtualenv),\n' +
        'or set TMS_TEST_DATABASE_URL to a database the tests may create schemas in.',
    );
    console.log('0 passed, 1 failed');
    return 1;
  }
  const child = spawn(WITH_POSTGRES, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const closed = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  for await (const line of createInterface({ input: child.stdout })) {
    if (CLUSTER_LINE.test(line)) console.error(line);
    else console.log(line);
  }
  return closed;
}
