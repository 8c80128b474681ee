/** Output errors a command has already said something of its own about. */
const reported = new WeakSet<Error>();

/** The command reports this write's failure itself: the process-wide line is not added. */
export const reportedByCommand = (error: Error): void => void reported.add(error);

/** Output that cannot be written (a closed pipe, a full disk) fails the command in one line, without a stack trace. */
export function failOnUnwritableOutput(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (reported.has(error) || process.exitCode) return;
    process.exitCode = 1;
    process.stderr.write(`error: the command's output could not be written (${error.code ?? error.message}); it is incomplete\n`);
  });
}
