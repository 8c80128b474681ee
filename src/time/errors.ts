/**
 * A value that is not a valid timestamp, duration or interval. The message never names the field:
 * callers prefix it (`time_range: start: ...`) and usually turn it into an `invalid_argument` ApiError.
 */
export class TimeFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeFormatError';
  }
}

const QUOTED_INPUT_LIMIT = 80;

/** Quotes user input for an error message, cut short so a huge value cannot flood a log line. */
export function quoteInput(text: string): string {
  const shown = text.length > QUOTED_INPUT_LIMIT ? `${text.slice(0, QUOTED_INPUT_LIMIT)}…` : text;
  return JSON.stringify(shown);
}
