/** Never settles: once a signal has come, the process ends in the signal's handler. */
const ending = new Promise<never>(() => undefined);

/**
 * Runs `work`. A SIGINT or SIGTERM meanwhile runs `undo`, says in one line what was left as it was, and exits
 * (130 or 143, as a shell reports such a stop). How the work itself ends after the signal (often failing because
 * the undo took its files or streams away) is not reported. A second signal stops the process at once.
 */
export async function undoneOnInterrupt<T>(undo: () => Promise<void>, left: string | (() => string), work: () => Promise<T>): Promise<T> {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    signalled = true;
    // Either signal again takes Node's own way: the process stops at once.
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.stderr.write(`\ninterrupted (${signal}): ${typeof left === 'string' ? left : left()}\n`);
    void undo()
      .catch(() => undefined)
      .finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const result = await work();
    return signalled ? await ending : result;
  } catch (error) {
    if (signalled) return await ending;
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
