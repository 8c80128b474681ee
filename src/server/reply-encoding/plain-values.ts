import { ScalarType, type DescField } from '@bufbuild/protobuf';

/**
 * What the reply encoders and the Connect JSON request reader take as they are: the plain proto-JSON values
 * protobuf-es's `fromJson` would take without conversion. Anything else (a number as a string, NaN's string form,
 * an unpaired surrogate) is declined and left to protobuf-es, which reads it or says what is wrong with it.
 */

/** A string protobuf-es takes: it refuses one with an unpaired surrogate (not UTF-8 once encoded). */
export const isText = (value: unknown): value is string => typeof value === 'string' && value.isWellFormed();

/** A map key as protobuf-es keeps it: its maps are plain objects, where `__proto__` is no entry. */
export const isMapKey = (key: string): boolean => isText(key) && key !== '__proto__';

export const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** google.protobuf.FeatureSet.FieldPresence.IMPLICIT: a proto3 field without `optional`. */
export const hasImplicitPresence = (field: DescField): boolean => field.presence === 2;

/** The only map the API has: string to string. */
export const isStringMap = (field: DescField & { fieldKind: 'map' }): boolean =>
  field.mapKey === ScalarType.STRING && field.mapKind === 'scalar' && field.scalar === ScalarType.STRING;

/** The check of a scalar type's plain values; undefined for a type the API does not use. */
export function plainScalar(type: ScalarType): ((value: unknown) => boolean) | undefined {
  switch (type) {
    case ScalarType.STRING:
      return isText;
    case ScalarType.BOOL:
      return (value) => typeof value === 'boolean';
    case ScalarType.INT32:
      return (value) => Number.isInteger(value) && (value as number) >= -0x80000000 && (value as number) <= 0x7fffffff;
    case ScalarType.UINT32:
      return (value) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0xffffffff;
    case ScalarType.DOUBLE:
      // Finite only: NaN and the infinities are strings in proto-JSON.
      return Number.isFinite;
    default:
      return undefined;
  }
}

/** What a value conversion answers for a value not in its plain form. */
export const DECLINE = Symbol('decline');

/** A value in its plain form converted, or `DECLINE`. */
export type PlainConversion = (value: unknown) => unknown;

/** A list, each item converted; `DECLINE` if the value is no list or an item declines. */
export const plainList =
  (item: PlainConversion): PlainConversion =>
  (value) => {
    if (!Array.isArray(value)) return DECLINE;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) if ((out[i] = item(value[i])) === DECLINE) return DECLINE;
    return out;
  };

/** A string-to-string map as protobuf-es keeps it; `DECLINE` for anything else. */
export const plainStringMap: PlainConversion = (value) => {
  if (!isObject(value)) return DECLINE;
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!isText(item) || !isMapKey(key)) return DECLINE;
    out[key] = item;
  }
  return out;
};

/** A scalar of `type` as it is; `DECLINE` for anything else; undefined for a type the API does not use. */
export function plainScalarValue(type: ScalarType): PlainConversion | undefined {
  const fits = plainScalar(type);
  return fits && ((value) => (fits(value) ? value : DECLINE));
}
