/**
 * Outputs an operation hands out more than once (a cached search page's response) and promises never to
 * change: faces may keep their encoding (JSON text, protobuf message) with them. Marked explicitly, so
 * that freezing an object for other reasons never turns on reuse by accident.
 */
const reusable = new WeakSet<object>();

export function markReusable<T extends object>(output: T): T {
  reusable.add(output);
  return output;
}

export function isReusable(value: unknown): value is object {
  return typeof value === 'object' && value !== null && reusable.has(value);
}
