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

const encodings = new WeakMap<object, Map<unknown, unknown>>();

/**
 * An encoding of an output, made once per `form` (e.g. a method's protobuf bytes) when the output is reusable,
 * and kept with it: it goes when the output goes. Other outputs are encoded every time.
 */
export function encodedOnce<T>(output: object, form: object, encode: () => T): T {
  if (!isReusable(output)) return encode();
  let forms = encodings.get(output);
  if (!forms) encodings.set(output, (forms = new Map()));
  if (!forms.has(form)) forms.set(form, encode());
  return forms.get(form) as T;
}
