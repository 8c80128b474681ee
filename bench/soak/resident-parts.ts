/**
 * Where a process's resident memory is, from /proc/<pid>/smaps: what the V8 heap counters cannot say, as they
 * cover the request thread's heap only, and RSS says nothing of its parts.
 */
import { readFile } from 'node:fs/promises';

/** Resident MiB by kind of mapping. */
export interface ResidentParts {
  /** V8's regular heap pages (anonymous, 256 KiB each) of every isolate: the request thread's and the workers'. */
  v8Pages: number;
  /** malloc's arenas: the main one (`[heap]`) and the threads' (anonymous, each at a 64-MiB boundary). */
  malloc: number;
  /** Every other anonymous mapping: large objects, large mallocs (a password hash's 32 MiB), stacks. */
  otherAnonymous: number;
  /** Mapped files: the node binary and its libraries. */
  files: number;
}

const KIB = 1024;
const V8_PAGE = 256 * KIB;
const MALLOC_HEAP_ALIGNMENT = 64 * KIB * KIB;
const HEADER = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+ *(.*)$/;

export function residentParts(smaps: string): ResidentParts {
  const parts: ResidentParts = { v8Pages: 0, malloc: 0, otherAnonymous: 0, files: 0 };
  let kind: keyof ResidentParts = 'otherAnonymous';
  for (const line of smaps.split('\n')) {
    const header = HEADER.exec(line);
    if (header) {
      const start = BigInt(`0x${header[1]}`);
      const size = Number(BigInt(`0x${header[2]}`) - start);
      const name = header[3]!;
      if (name === '[heap]') kind = 'malloc';
      else if (name.startsWith('/')) kind = 'files';
      else if (name !== '') kind = 'otherAnonymous';
      else if (size === V8_PAGE) kind = 'v8Pages';
      else if (start % BigInt(MALLOC_HEAP_ALIGNMENT) === 0n && size <= MALLOC_HEAP_ALIGNMENT) kind = 'malloc';
      else kind = 'otherAnonymous';
      continue;
    }
    if (line.startsWith('Rss:')) parts[kind] += Number(line.slice(4).trim().split(' ')[0]) / KIB;
  }
  return parts;
}

export async function readResidentParts(pid: number): Promise<ResidentParts | undefined> {
  try {
    return residentParts(await readFile(`/proc/${pid}/smaps`, 'utf8'));
  } catch {
    return undefined;
  }
}
