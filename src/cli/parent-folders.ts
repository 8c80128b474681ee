import { mkdir, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The folders a command made above its output, so that a command that fails can take them away again. */
export interface MadeFolders {
  /** Removes the folders made, deepest first, stopping at the first one that is no longer empty. */
  removeIfEmpty(): Promise<void>;
}

/** Makes the folders missing above `path`. */
export async function makeParentFolders(path: string): Promise<MadeFolders> {
  const parent = dirname(path);
  const first = await mkdir(parent, { recursive: true });
  return {
    async removeIfEmpty() {
      if (first === undefined) return;
      for (let folder = parent; ; folder = dirname(folder)) {
        const removed = await rmdir(folder).then(
          () => true,
          () => false,
        );
        if (!removed || folder === first) return;
      }
    },
  };
}
