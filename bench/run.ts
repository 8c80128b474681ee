// Runs every benchmark in turn and joins their sections into bench/REPORT.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machineLine, reportsDir } from './lib/report.ts';

const root = join(import.meta.dirname, '..');
const only = process.argv.slice(2);
const benches = ['http', 'engine-store', 'analysis'].filter((name) => only.length === 0 || only.includes(name));

for (const name of benches) {
  const script = join(root, 'bench', `${name}.ts`);
  if (!existsSync(script)) continue;
  console.log(`\n### bench/${name}.ts`);
  execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: root, stdio: 'inherit' });
}

const sections = ['http', 'http-node24', 'engine-store', 'analysis']
  .map((name) => join(reportsDir, `${name}.md`))
  .filter(existsSync)
  .map((path) => readFileSync(path, 'utf8').trim());
writeFileSync(
  join(root, 'bench', 'REPORT.md'),
  `# Benchmark report\n\nAssembled by \`npm run bench\` (${machineLine()}). Each section says how it was measured.\n\n${sections.join('\n\n')}\n`,
);
console.log('\nwrote bench/REPORT.md');
