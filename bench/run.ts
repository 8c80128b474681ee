// Runs every benchmark in turn and joins their sections into bench/REPORT.md, after one table of every
// performance target they measured.
//   npm run bench                    every bench, full size (about half an hour)
//   npm run bench -- http analysis   only these
//   npm run bench -- --quick         every bench small and brief, into a temporary folder: a smoke test
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { RUN_TYPESCRIPT } from '../src/typescript/node-options.ts';

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
if (quick) {
  process.env['BENCH_QUICK'] = '1';
  process.env['BENCH_REPORTS_DIR'] ??= mkdtempSync(join(tmpdir(), 'tms-bench-quick-'));
}
// Imported after BENCH_REPORTS_DIR is settled: the reports folder is read once, when the module loads.
const { machineLine, reportsDir } = await import('./lib/report.ts');
const { readTargets, targetTable, targetsChartSvg } = await import('./lib/targets.ts');

const ALL = ['http', 'http-node24', 'engine-store', 'postgres-store', 'analysis', 'anchors', 'search-under-load', 'search-under-load-node24', 'cache-memory'];
/** Benches run a second time with the server on Node 24 (the load generator stays on this Node). */
const ON_NODE24: Record<string, string> = { 'http-node24': 'http.ts', 'search-under-load-node24': 'search-under-load.ts' };
/** A quick run leaves out what needs a download (Node 24) or a database cluster of its own. */
const QUICK = ['http', 'engine-store', 'analysis', 'anchors', 'search-under-load', 'cache-memory'];
const only = args.filter((arg) => !arg.startsWith('--'));
const benches = (quick ? QUICK : ALL).filter((name) => only.length === 0 || only.includes(name));

/** Node 24 LTS from the npm registry (a binary inside the `node@24` package), for the same HTTP bench. */
function node24(): string | undefined {
  try {
    return execFileSync('npx', ['-y', '-p', 'node@24', 'node', '-p', 'process.execPath'], { encoding: 'utf8', timeout: 300_000 }).trim();
  } catch {
    return undefined;
  }
}

function pgVirtualenv(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v pg_virtualenv'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const runScript = (script: string, env: NodeJS.ProcessEnv = {}) =>
  execFileSync(process.execPath, [...RUN_TYPESCRIPT, join(root, 'bench', script)], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });

for (const name of benches) {
  const onNode24 = ON_NODE24[name];
  if (onNode24) {
    const node = node24();
    if (!node) {
      console.log(`\n### bench/${onNode24} on Node 24: skipped (npx -p node@24 failed)`);
      continue;
    }
    console.log(`\n### bench/${onNode24} on Node 24 (${node})`);
    runScript(onNode24, { BENCH_NODE: node, BENCH_REPORT_NAME: name });
    continue;
  }
  if (name === 'postgres-store' && !process.env.TMS_BENCH_DATABASE_URL && !process.env.TMS_TEST_DATABASE_URL) {
    if (!pgVirtualenv()) {
      console.log('\n### bench/postgres-store.ts: skipped (set TMS_BENCH_DATABASE_URL, or install postgresql for pg_virtualenv)');
      continue;
    }
    console.log('\n### bench/postgres-store.ts, in a throw-away PostgreSQL cluster');
    execFileSync(join(root, 'scripts', 'with-postgres.sh'), [process.execPath, ...RUN_TYPESCRIPT, join(root, 'bench', 'postgres-store.ts')], { cwd: root, stdio: 'inherit' });
    continue;
  }
  if (!existsSync(join(root, 'bench', `${name}.ts`))) continue;
  console.log(`\n### bench/${name}.ts`);
  runScript(`${name}.ts`);
}

const targets = ALL.flatMap((name) => readTargets(name));
const reportPath = quick ? join(reportsDir, 'REPORT.md') : join(root, 'bench', 'REPORT.md');
/** A section's charts sit beside it in the reports folder; from REPORT.md they are reached through it. */
const chartsFromReport = (section: string) => section.replace(/\]\(([\w.-]+\.svg)\)/g, (_, file: string) => `](${relative(dirname(reportPath), join(reportsDir, file))})`);
// The soak (`npm run soak`) is run on its own; its latest report is kept with the others.
const sections = [...ALL, 'soak']
  .map((name) => join(reportsDir, `${name}.md`))
  .filter(existsSync)
  .map((path) => chartsFromReport(readFileSync(path, 'utf8').trim()));
const chartPath = join(reportsDir, 'targets.svg');
writeFileSync(
  reportPath,
  `# Benchmark report

Assembled by \`npm run bench\` (${machineLine()}). Each section says how it was measured. A ratio is req/s ÷ the
baseline's req/s in the same round, the median over the rounds of one run; the machine is shared and noisy, so
ratios, not absolute figures, carry over.

## Targets

${targetTable(targets)}

![req/s and p99 per path, bare next to tms](${relative(dirname(reportPath), chartPath)})

${sections.join('\n\n')}
`,
);
console.log(`\nwrote ${reportPath}`);
writeFileSync(chartPath, await targetsChartSvg(targets));
console.log(`wrote ${chartPath}`);
