// Runs every benchmark in turn and joins their sections into bench/REPORT.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machineLine, reportsDir } from './lib/report.ts';

const root = join(import.meta.dirname, '..');
const only = process.argv.slice(2);
const benches = ['http', 'http-node24', 'engine-store', 'postgres-store', 'analysis', 'search-under-load'].filter((name) => only.length === 0 || only.includes(name));

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

for (const name of benches) {
  if (name === 'http-node24') {
    const node = node24();
    if (!node) {
      console.log('\n### bench/http.ts on Node 24: skipped (npx -p node@24 failed)');
      continue;
    }
    console.log(`\n### bench/http.ts on Node 24 (${node})`);
    execFileSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'http.ts')], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, BENCH_NODE: node, BENCH_REPORT_NAME: 'http-node24' },
    });
    continue;
  }
  if (name === 'postgres-store' && !process.env.TMS_BENCH_DATABASE_URL && !process.env.TMS_TEST_DATABASE_URL) {
    if (!pgVirtualenv()) {
      console.log('\n### bench/postgres-store.ts: skipped (set TMS_BENCH_DATABASE_URL, or install postgresql for pg_virtualenv)');
      continue;
    }
    console.log('\n### bench/postgres-store.ts, in a throw-away PostgreSQL cluster');
    execFileSync(join(root, 'scripts', 'with-postgres.sh'), [process.execPath, '--import', 'tsx', join(root, 'bench', 'postgres-store.ts')], { cwd: root, stdio: 'inherit' });
    continue;
  }
  const script = join(root, 'bench', `${name}.ts`);
  if (!existsSync(script)) continue;
  console.log(`\n### bench/${name}.ts`);
  execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: root, stdio: 'inherit' });
}

const sections = ['http', 'http-node24', 'engine-store', 'postgres-store', 'analysis', 'search-under-load']
  .map((name) => join(reportsDir, `${name}.md`))
  .filter(existsSync)
  .map((path) => readFileSync(path, 'utf8').trim());
writeFileSync(
  join(root, 'bench', 'REPORT.md'),
  `# Benchmark report\n\nAssembled by \`npm run bench\` (${machineLine()}). Each section says how it was measured.\n\n${sections.join('\n\n')}\n`,
);
console.log('\nwrote bench/REPORT.md');
