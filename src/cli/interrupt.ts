/**
 * Runs `work`. A SIGINT or SIGTERM meanwhile runs `undo`, says in one line what was left as it was, and exits
 * (130 or 143, as a shell reports such a stop). A second signal stops the process at once.
 */
export async function undoneOnInterrupt<T>(undo: () => Promise<void>, left: string | (() => string), work: () => Promise<T>): Promise<T> {
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`\ninterrupted (${signal}): ${typeof left === 'string' ? left : left()}\n`);
    void undo()
      .catch(() => undefined)
      .finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await work();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
