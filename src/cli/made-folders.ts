import { mkdir, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The folders a command made for its output, so that a command that fails can take them away again. */
export interface MadeFolders {
  /** Removes the folders made that are empty, deepest first (one already gone is passed over), up to the first that is not. */
  removeIfEmpty(): Promise<void>;
}

/**
 * Makes `folder` and the folders missing above it. The command's own folder is made in the same step as its
 * parents, so that another command's `removeIfEmpty` never finds a parent empty while this one is about to use it.
 */
export async function makeFolders(folder: string): Promise<MadeFolders> {
  const first = await mkdir(folder, { recursive: true });
  return {
    async removeIfEmpty() {
      if (first === undefined) return;
      for (let at = folder; ; at = dirname(at)) {
        const gone = await rmdir(at).then(
          () => true,
          (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
        );
        if (!gone || at === first) return;
      }
    },
  };
}
