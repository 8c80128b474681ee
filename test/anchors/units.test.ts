import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/domain/errors.ts';
import {
  parseAnchorConditions,
  parseFieldStrength,
  parseHumidity,
  parseQubitConfiguration,
  parseSuperpositionStability,
  parseTemperature,
} from '../../src/anchors/units.ts';

const close = (actual: number, expected: number, label: string): void =>
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${label}: ${actual} ≠ ${expected}`);

function rejects(run: () => unknown, message: string): void {
  try {
    run();
    assert.unreachable(`accepted; expected "${message}"`);
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, 'invalid_argument');
    assert.is((error as ApiError).message, message);
  }
}

test('temperatures in °C, C, K and °F become kelvin', () => {
  const cases: [string, number][] = [
    ['22°C', 295.15],
    ['22 °C', 295.15],
    ['20C', 293.15],
    [' 293.15K ', 293.15],
    ['295.15 K', 295.15],
    ['-40 °F', 233.15],
    ['68°F', 293.15],
    ['-273.15°C', 0],
    ['\u221240°C', 233.15],
    ['1e3 K', 1000],
    ['.5C', 273.65],
  ];
  for (const [text, kelvin] of cases) close(parseTemperature(text), kelvin, text);
});

test('temperature errors name the field, the text and what was expected', () => {
  rejects(() => parseTemperature('22Q'), 'environment.temperature: unknown unit "Q" in "22Q" (expected °C, C, K or °F)');
  rejects(() => parseTemperature('22'), 'environment.temperature: missing unit in "22" (expected °C, C, K or °F)');
  rejects(() => parseTemperature('warm'), 'environment.temperature: not a number with a unit in "warm" (e.g. "22°C")');
  rejects(() => parseTemperature('-300°C'), 'environment.temperature: "-300°C" is below absolute zero');
  rejects(() => parseTemperature('-1 K'), 'environment.temperature: "-1 K" is below absolute zero');
  rejects(() => parseTemperature('20000 K'), 'environment.temperature: "20000 K" is above 10000 K, out of physical range for an anchor');
  rejects(() => parseTemperature('22Q', 'new_environment.temperature'), 'new_environment.temperature: unknown unit "Q" in "22Q" (expected °C, C, K or °F)');
});

test('humidity is a percentage from 0 to 100', () => {
  assert.is(parseHumidity('45%'), 45);
  assert.is(parseHumidity('0 %'), 0);
  assert.is(parseHumidity('100%'), 100);
  rejects(() => parseHumidity('45'), 'environment.humidity: missing unit in "45" (expected %)');
  rejects(() => parseHumidity('101%'), 'environment.humidity: "101%" is not between 0% and 100%');
  rejects(() => parseHumidity('-1%'), 'environment.humidity: "-1%" is not between 0% and 100%');
});

test('field strength in T, mT, µT/μT/uT, nT and G becomes tesla', () => {
  const cases: [string, number][] = [
    ['1.5 T', 1.5],
    ['3mT', 3e-3],
    ['50µT', 50e-6],
    ['50μT', 50e-6],
    ['50 uT', 50e-6],
    ['48000nT', 48e-6],
    ['0.5 G', 0.5e-4],
    ['100T', 100],
  ];
  for (const [text, tesla] of cases) close(parseFieldStrength(text), tesla, text);
  rejects(() => parseFieldStrength('5 A/m'), 'environment.em_field_strength: unknown unit "A/m" in "5 A/m" (expected T, mT, µT, uT, nT or G)');
  rejects(() => parseFieldStrength('-1 T'), 'environment.em_field_strength: "-1 T" is negative (a field strength is a magnitude)');
  rejects(() => parseFieldStrength('101 T'), 'environment.em_field_strength: "101 T" is above 100 T, out of physical range for an anchor');
});

test('qubit configuration is 1 to 64 binary digits; superposition stability a percentage', () => {
  assert.is(parseQubitConfiguration('1011'), '1011');
  assert.is(parseQubitConfiguration('0'.repeat(64)), '0'.repeat(64));
  rejects(() => parseQubitConfiguration('10a1'), 'quantum_state.qubit_configuration: "10a1" is not a string of binary digits (0 and 1 only)');
  rejects(() => parseQubitConfiguration('1'.repeat(65)), 'quantum_state.qubit_configuration: 65 qubits given; at most 64');
  assert.is(parseSuperpositionStability('99.9%'), 99.9);
  rejects(() => parseSuperpositionStability('high'), 'quantum_state.superposition_stability: not a number with a unit in "high" (e.g. "99.9%")');
});

test('parseAnchorConditions parses what was sent, skips empty strings and prefixes field paths', () => {
  assert.equal(parseAnchorConditions(undefined, undefined), {});
  const conditions = parseAnchorConditions(
    { temperature: '22°C', humidity: '', em_field_strength: '50µT' },
    { qubit_configuration: '1010', superposition_stability: '99.9%' },
  );
  close(conditions.temperatureKelvin!, 295.15, 'temperature');
  assert.is(conditions.humidityPercent, undefined);
  close(conditions.fieldTesla!, 50e-6, 'field');
  assert.is(conditions.qubitConfiguration, '1010');
  assert.is(conditions.superpositionStabilityPercent, 99.9);
  rejects(
    () => parseAnchorConditions({ humidity: '120%' }, undefined, { environment: 'new_environment' }),
    'new_environment.humidity: "120%" is not between 0% and 100%',
  );
});

test.run();
