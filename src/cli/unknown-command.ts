import type { Command } from 'commander';

/** Edits (insert, delete, replace, swap two neighbours) from one word to the other. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * `serve` is the default command, so commander would read a mistyped command (`tms servr`) as an argument to serve
 * and say "too many arguments for 'serve'". A first word that is no command and no option is refused as what it is.
 */
export function refuseUnknownCommand(program: Command, argv: readonly string[]): void {
  const word = argv[2];
  if (word === undefined || word.startsWith('-')) return;
  const names = program.commands.flatMap((command) => [command.name(), ...command.aliases()]).concat('help');
  if (names.includes(word)) return;
  const near = names.filter((name) => distance(word, name) <= Math.max(1, Math.floor(name.length / 3)));
  program.error(`error: unknown command '${word}'${near.length ? ` (did you mean ${near.join(' or ')}?)` : ''}; see tms --help`);
}
