// The performance targets a bench measures, each as tms next to its baseline in the same run, written as a
// table into the bench's report and as JSON that `bench/run.ts` gathers into one table per Node version.
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { reportsDir, table } from './report.ts';
import { medianSample, pairedRatio, type Sample } from './load.ts';
import { groupedBarChartSvg } from './chart.ts';

export interface Target {
  /** What is measured, as the target states it. */
  path: string;
  /** The row the target is met against, e.g. "≥ 0.3× bare node:http". */
  goal: string;
  /** tms req/s ÷ the baseline's req/s, when the target is a ratio. */
  minRatio?: number;
  maxP99Ms?: number;
}

export interface TargetResult {
  path: string;
  goal: string;
  node: string;
  ratio?: number;
  /** The least ratio the target asks for. */
  minRatio?: number;
  /** tms req/s, and its baseline's req/s and p99 (ms) in the same run, where the target has them. */
  rps?: number;
  baselineRps?: number;
  baselineP99?: number;
  p50?: number;
  p99?: number;
  cpuMicros?: number;
  /** For targets that are not a ratio (a time, a memory figure): the measured value as text. */
  value?: string;
  met: boolean;
  /** Which parts of a target with several were not met. */
  missed?: ('ratio' | 'p99')[];
}

/** tms next to its baseline, from the rounds of each: the ratio is `pairedRatio`, the figures shown the rounds' medians. */
export function measuredTarget(target: Target, node: string, tmsRounds: Sample[], baselineRounds?: Sample[]): TargetResult {
  const tms = medianSample(tmsRounds);
  const baseline = baselineRounds && medianSample(baselineRounds);
  const ratio = baselineRounds ? pairedRatio(tmsRounds, baselineRounds) : undefined;
  const ratioMet = target.minRatio === undefined || (ratio !== undefined && ratio >= target.minRatio);
  const p99Met = target.maxP99Ms === undefined || tms.p99 <= target.maxP99Ms;
  return {
    path: target.path,
    goal: target.goal,
    node,
    ratio,
    minRatio: target.minRatio,
    rps: tms.rps,
    baselineRps: baseline?.rps,
    baselineP99: baseline?.p99,
    p50: tms.p50,
    p99: tms.p99,
    cpuMicros: tms.cpuMicros,
    met: ratioMet && p99Met,
    missed: [...(ratioMet ? [] : (['ratio'] as const)), ...(p99Met ? [] : (['p99'] as const))],
  };
}

const fixed = (value: number | undefined, digits: number) => (value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits));

/** Two decimals, unless they would round a missed ratio up onto its target: then three, rounded down (0.297× for ≥ 0.3×). */
export function ratioText(ratio: number | undefined, minRatio?: number): string {
  if (ratio === undefined || Number.isNaN(ratio)) return '—';
  const roundedOntoTarget = minRatio !== undefined && ratio < minRatio && Number(ratio.toFixed(2)) >= minRatio;
  return roundedOntoTarget ? `${(Math.floor(ratio * 1000) / 1000).toFixed(3)}×` : `${ratio.toFixed(2)}×`;
}

/** Two decimals, unless they would round a value over its limit down onto it: then three, rounded up (10.004 for ≤ 10). */
export function limitText(value: number, limit: number): string {
  const roundedOntoLimit = value > limit && Number(value.toFixed(2)) <= limit;
  return roundedOntoLimit ? (Math.ceil(value * 1000) / 1000).toFixed(3) : value.toFixed(2);
}

/** "met", or "not met" with the parts missed where a target has several (older results do not say). */
function verdict(result: TargetResult): string {
  if (result.met) return 'met';
  return result.missed?.length ? `**not met** (${result.missed.join(', ')})` : '**not met**';
}

export function targetTable(results: TargetResult[]): string {
  return table(
    ['path', 'target', 'Node', 'measured', 'p50 ms', 'p99 ms', "the baseline's p99 ms", 'server CPU µs/req', 'verdict'],
    results.map((r) => [
      r.path,
      r.goal,
      r.node,
      r.value ?? ratioText(r.ratio, r.minRatio),
      fixed(r.p50, 2),
      fixed(r.p99, 2),
      fixed(r.baselineP99, 2),
      fixed(r.cpuMicros, 0),
      verdict(r),
    ]),
  );
}

export function writeTargets(name: string, results: TargetResult[]): void {
  mkdirSync(reportsDir, { recursive: true });
  writeFileSync(join(reportsDir, `${name}.targets.json`), JSON.stringify(results, null, 2) + '\n');
}

export function readTargets(name: string): TargetResult[] {
  const path = join(reportsDir, `${name}.targets.json`);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as TargetResult[]) : [];
}

/**
 * "req/s and p99 per path, bare next to tms": one row per measured target (and Node version), tms and its
 * baseline side by side, as an SVG. Targets without a req/s (a time, a memory figure) are left out.
 */
export function targetsChartSvg(results: TargetResult[]): Promise<string> {
  const measured = results.filter((r) => r.rps !== undefined && Number.isFinite(r.rps));
  const row = (r: TargetResult) => `${r.path} (Node ${r.node.replace(/^v/, '')})`;
  const bars = (tms: (r: TargetResult) => number | undefined, bare: (r: TargetResult) => number | undefined) =>
    measured.flatMap((r) => [
      { category: row(r), group: 'tms', value: tms(r) ?? NaN },
      { category: row(r), group: 'bare baseline', value: bare(r) ?? NaN },
    ]);
  return groupedBarChartSvg({
    title: 'req/s and p99 per path, bare next to tms',
    categories: [...new Set(measured.map(row))],
    groups: ['tms', 'bare baseline'],
    panels: [
      { title: 'req/s (more is better)', bars: bars((r) => r.rps, (r) => r.baselineRps) },
      { title: 'p99 ms (less is better)', bars: bars((r) => r.p99, (r) => r.baselineP99) },
    ],
  });
}
