/**
 * Parses the anchor's environment and quantum-state strings, which carry their units, into SI numbers.
 * The caller keeps the original strings to echo back; these numbers feed the stability simulation.
 * An empty string counts as not sent (proto3 cannot tell the two apart).
 */
import { invalidArgument } from '../domain/errors.ts';
import { FieldProblems } from '../domain/field-problems.ts';

export interface EnvironmentStrings {
  temperature?: string;
  humidity?: string;
  em_field_strength?: string;
}

export interface QuantumStateStrings {
  qubit_configuration?: string;
  superposition_stability?: string;
}

/** The parsed conditions; an absent value means "not stated" and the simulation uses its reference value. */
export interface AnchorConditions {
  temperatureKelvin?: number;
  humidityPercent?: number;
  fieldTesla?: number;
  qubitConfiguration?: string;
  superpositionStabilityPercent?: number;
}

export const MAX_TEMPERATURE_KELVIN = 10_000;
export const MAX_FIELD_TESLA = 100;
export const MAX_QUBITS = 64;

const NUMBER = /^([+\-\u2212]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(.*)$/u;

interface Quantity {
  value: number;
  unit: string;
}

function splitQuantity(text: string, field: string, example: string): Quantity {
  const match = NUMBER.exec(text.trim());
  if (!match) throw invalidArgument(field, `not a number with a unit in ${JSON.stringify(text)} (e.g. ${JSON.stringify(example)})`);
  const value = Number(match[1]!.replace('\u2212', '-'));
  if (!Number.isFinite(value)) throw invalidArgument(field, `number out of range in ${JSON.stringify(text)}`);
  return { value, unit: match[2]!.trim() };
}

function unitProblem(quantity: Quantity, text: string, expected: string): string {
  return quantity.unit === ''
    ? `missing unit in ${JSON.stringify(text)} (expected ${expected})`
    : `unknown unit ${JSON.stringify(quantity.unit)} in ${JSON.stringify(text)} (expected ${expected})`;
}

const TEMPERATURE_UNITS = '°C, C, K or °F';
const toKelvin: Record<string, (value: number) => number> = {
  '°C': (c) => c + 273.15,
  'ºC': (c) => c + 273.15,
  '\u2103': (c) => c + 273.15,
  C: (c) => c + 273.15,
  K: (k) => k,
  '°F': (f) => ((f - 32) * 5) / 9 + 273.15,
  'ºF': (f) => ((f - 32) * 5) / 9 + 273.15,
  '\u2109': (f) => ((f - 32) * 5) / 9 + 273.15,
};

/** "22°C", "22 C", "295.15 K", "-40 °F" → kelvin, 0..10 000 K. */
export function parseTemperature(text: string, field = 'environment.temperature'): number {
  const quantity = splitQuantity(text, field, '22°C');
  const convert = toKelvin[quantity.unit];
  if (!convert) throw invalidArgument(field, unitProblem(quantity, text, TEMPERATURE_UNITS));
  const kelvin = convert(quantity.value);
  // Conversions of exactly absolute zero land a rounding error below 0 K.
  const rounded = Math.abs(kelvin) < 1e-9 ? 0 : kelvin;
  if (rounded < 0) throw invalidArgument(field, `${JSON.stringify(text)} is below absolute zero`);
  if (rounded > MAX_TEMPERATURE_KELVIN) {
    throw invalidArgument(field, `${JSON.stringify(text)} is above ${MAX_TEMPERATURE_KELVIN} K, out of physical range for an anchor`);
  }
  return rounded;
}

function parsePercent(text: string, field: string, example: string): number {
  const quantity = splitQuantity(text, field, example);
  if (quantity.unit !== '%') throw invalidArgument(field, unitProblem(quantity, text, '%'));
  if (quantity.value < 0 || quantity.value > 100) throw invalidArgument(field, `${JSON.stringify(text)} is not between 0% and 100%`);
  return quantity.value;
}

/** Relative humidity "45%" → 45 (0..100). */
export function parseHumidity(text: string, field = 'environment.humidity'): number {
  return parsePercent(text, field, '45%');
}

const FIELD_UNITS = 'T, mT, µT, uT, nT or G';
const teslaPerUnit: Record<string, number> = {
  T: 1,
  mT: 1e-3,
  'µT': 1e-6,
  'μT': 1e-6,
  uT: 1e-6,
  nT: 1e-9,
  G: 1e-4,
};

/** Magnetic field "50µT", "0.5 G", "1.5 T" → tesla, 0..100 T. */
export function parseFieldStrength(text: string, field = 'environment.em_field_strength'): number {
  const quantity = splitQuantity(text, field, '50µT');
  const scale = teslaPerUnit[quantity.unit];
  if (scale === undefined) throw invalidArgument(field, unitProblem(quantity, text, FIELD_UNITS));
  const tesla = quantity.value * scale;
  if (tesla < 0) throw invalidArgument(field, `${JSON.stringify(text)} is negative (a field strength is a magnitude)`);
  if (tesla > MAX_FIELD_TESLA) throw invalidArgument(field, `${JSON.stringify(text)} is above ${MAX_FIELD_TESLA} T, out of physical range for an anchor`);
  return tesla;
}

/** "1011": 1 to 64 binary digits. */
export function parseQubitConfiguration(text: string, field = 'quantum_state.qubit_configuration'): string {
  const digits = text.trim();
  if (!/^[01]+$/.test(digits)) throw invalidArgument(field, `${JSON.stringify(text)} is not a string of binary digits (0 and 1 only)`);
  if (digits.length > MAX_QUBITS) throw invalidArgument(field, `${digits.length} qubits given; at most ${MAX_QUBITS}`);
  return digits;
}

/** "99.9%" → 99.9 (0..100). */
export function parseSuperpositionStability(text: string, field = 'quantum_state.superposition_stability'): number {
  return parsePercent(text, field, '99.9%');
}

const given = (text: string | undefined): text is string => text !== undefined && text.trim() !== '';

/**
 * Parses what was sent; field paths in errors start with the given prefixes (e.g. `new_environment` for
 * adjust-anchor), so the message names the field as the caller spelled it.
 */
export function parseAnchorConditions(
  environment: EnvironmentStrings | undefined,
  quantumState: QuantumStateStrings | undefined,
  prefixes: { environment?: string; quantumState?: string } = {},
): AnchorConditions {
  const env = prefixes.environment ?? 'environment';
  const quantum = prefixes.quantumState ?? 'quantum_state';
  const problems = new FieldProblems();
  const conditions: AnchorConditions = {};
  const set = <K extends keyof AnchorConditions>(key: K, text: string | undefined, parse: (text: string) => AnchorConditions[K]) => {
    if (!given(text)) return;
    const value = problems.read(() => parse(text));
    if (value !== undefined) conditions[key] = value;
  };
  set('temperatureKelvin', environment?.temperature, (text) => parseTemperature(text, `${env}.temperature`));
  set('humidityPercent', environment?.humidity, (text) => parseHumidity(text, `${env}.humidity`));
  set('fieldTesla', environment?.em_field_strength, (text) => parseFieldStrength(text, `${env}.em_field_strength`));
  set('qubitConfiguration', quantumState?.qubit_configuration, (text) => parseQubitConfiguration(text, `${quantum}.qubit_configuration`));
  set('superpositionStabilityPercent', quantumState?.superposition_stability, (text) =>
    parseSuperpositionStability(text, `${quantum}.superposition_stability`),
  );
  problems.throwIfAny();
  return conditions;
}
