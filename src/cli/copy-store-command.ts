import { Presets, SingleBar } from 'cli-progress';
import { Command } from 'commander';
import { checkTimelines, copyStore, type CopyReport } from '../store/copy-store.ts';
import { openStorage, type Storage, type StorageOptions } from '../store/storage.ts';
import { describeUrl, POSTGRES_URL } from '../store/postgres/open-failures.ts';
import { refuseOtherUrls } from './store-location.ts';
import { undoneOnInterrupt } from './interrupt.ts';
import { openForCommand, stageFolder, stageSchema, type StagedWrite } from './staged-store.ts';
import { leftOut } from '../store/stray-credentials.ts';

const isUrl = (where: string) => POSTGRES_URL.test(where);
/** A folder, or a postgres:// URL. */
const storageAt = (where: string, create: boolean): StorageOptions => (isUrl(where) ? { dataDir: '', databaseUrl: where } : { dataDir: where, create });

const COPY: StagedWrite = { verb: 'copy', undone: 'nothing was copied', folderFlag: '--to' };

/** Where, as printed: a URL without its password. */
const shown = (where: string) => (isUrl(where) ? describeUrl(where) : where);

/**
 * `tms copy-store --from <dir|url> --to <dir|url>`: the whole store, from one backend to a new one, with the
 * server stopped; verified by counts and a checksum per timeline.
 */
export function copyStoreCommand(): Command {
  return new Command('copy-store')
    .hook('preAction', refuseOtherUrls)
    .description('copy a whole store (timelines, branches, anchors, accounts, saved requests) to a new LevelDB folder or an empty PostgreSQL database')
    .requiredOption('--from <dir|url>', 'the store to copy: a LevelDB folder or a postgres:// URL')
    .requiredOption('--to <dir|url>', 'where to: a new folder or an empty database')
    .action(async (options: { from: string; to: string }, command: Command) => {
      const say = (line: string) => process.stderr.write(`${line}\n`);
      try {
        const from = await openForCommand(storageAt(options.from, false), shown(options.from), 'stop the service first');
        try {
          const staging = isUrl(options.to) ? await stageSchema(options.to, shown(options.to), COPY, say) : await stageFolder(options.to, COPY);
          try {
            const { report, source } = await undoneOnInterrupt(() => staging.discard(), `nothing was copied to ${shown(options.to)}`, async () => {
              const report = await copyInto(from, staging.spec, options, say);
              say('verifying: counts and a checksum per timeline');
              const source = await checkTimelines(from.timelines);
              const copy = await openStorage({ ...staging.spec, primaryOwner: '' });
              try {
                const copied = await checkTimelines(copy.timelines);
                const mismatched = source.filter((check, i) => JSON.stringify(check) !== JSON.stringify(copied[i]));
                if (copied.length !== source.length || mismatched.length > 0) {
                  throw new Error(`the copy differs from the source in ${mismatched.map((m) => m.timeline_id).join(', ') || 'its timelines'}`);
                }
              } finally {
                await copy.close();
              }
              return { report, source };
            });
            await staging.putInPlace();
            process.stdout.write(
              `copied ${source.length} timelines (${source.reduce((sum, t) => sum + t.events, 0)} events, ${report.entries} entries), ` +
                `${report.accounts} accounts, ${report.keys} keys, ${report.sessions} sessions, ${report.savedRequests} saved requests; verified${leftOut(report.skipped, 'the source')}\n`,
            );
          } catch (error) {
            await staging.discard();
            throw error;
          }
        } finally {
          await from.close();
        }
      } catch (error) {
        command.error(`error: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 1 });
      }
    });
}

/** The copy itself, with a progress bar, into the staged target. */
async function copyInto(from: Storage, spec: StorageOptions, options: { from: string; to: string }, say: (line: string) => void): Promise<Omit<CopyReport, 'timelines'>> {
  const to = await openStorage({ ...spec, primaryOwner: '' });
  const bar = new SingleBar({ stream: process.stderr, hideCursor: true, noTTYOutput: true, notTTYSchedule: 5_000, format: 'copy [{bar}] {percentage}% | {value}/{total} entries | {eta_formatted} left' }, Presets.shades_classic);
  try {
    say(`copying ${shown(options.from)} to ${shown(options.to)}`);
    bar.start(1, 0);
    return await copyStore(from, to, ({ copied, total }) => {
      bar.setTotal(total);
      bar.update(copied);
    });
  } finally {
    bar.stop();
    await to.close();
  }
}
