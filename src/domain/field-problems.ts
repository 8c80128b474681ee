import { ApiError } from './errors.ts';

/**
 * Collects the bad fields of one request, so that a client fixes them all in one go: each check runs, and
 * `throwIfAny` refuses with one `invalid_argument` naming the first in its message and every one in its details.
 * Any other error passes through at once.
 */
export class FieldProblems {
  private readonly found: ApiError[] = [];

  /** The check's value, or undefined when it found a bad field (noted). */
  read<T>(check: () => T): T | undefined {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_argument') throw error;
      this.found.push(error);
      return undefined;
    }
  }

  throwIfAny(): void {
    const [first] = this.found;
    if (first) throw new ApiError('invalid_argument', first.message, this.found.flatMap((error) => error.errorDetails));
  }
}
