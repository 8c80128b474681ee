/** Waits until `check` holds, asking again every `everyMs`; fails naming `what` after `withinMs`. */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, withinMs = 30_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what} (${withinMs} ms)`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
