import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

/** `BENCH_REPORTS_DIR` moves them elsewhere (`npm run bench -- --quick` leaves the committed reports alone). */
export const reportsDir = process.env['BENCH_REPORTS_DIR'] ?? join(import.meta.dirname, '..', 'reports');

export function machineLine(): string {
  const cpu = cpus();
  return `Node ${process.version}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${new Date().toISOString().slice(0, 10)}`;
}

/** Each benchmark writes its own section; `bench/run.ts` joins them into bench/REPORT.md. */
export function writeReport(name: string, markdown: string): string {
  mkdirSync(reportsDir, { recursive: true });
  const path = join(reportsDir, `${name}.md`);
  writeFileSync(path, markdown.trimEnd() + '\n');
  return path;
}

export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The slope of the least-squares line through the points, per unit of x; undefined for fewer than two distinct xs. */
export function slope(points: { x: number; y: number }[]): number | undefined {
  if (points.length < 2) return undefined;
  const meanX = points.reduce((n, p) => n + p.x, 0) / points.length;
  const meanY = points.reduce((n, p) => n + p.y, 0) / points.length;
  let covariance = 0;
  let variance = 0;
  for (const { x, y } of points) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  return variance > 0 ? covariance / variance : undefined;
}
