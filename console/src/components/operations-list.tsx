import { useMemo } from 'preact/hooks';
import { matchesFilter, type OperationEntry } from '../operations.ts';

interface Props {
  operations: OperationEntry[];
  /** The list is still on its way (`/openapi.json`). */
  loading: boolean;
  filter: string;
  onFilter(filter: string): void;
  selected: string | undefined;
  onChoose(entry: OperationEntry): void;
}

/** Every REST route and RPC, grouped by service, narrowed by typing. */
export function OperationsList({ operations, loading, filter, onFilter, selected, onChoose }: Props) {
  const groups = useMemo(() => {
    const byService = new Map<string, OperationEntry[]>();
    for (const entry of operations.filter((e) => matchesFilter(e, filter))) {
      byService.set(entry.service, [...(byService.get(entry.service) ?? []), entry]);
    }
    return [...byService];
  }, [operations, filter]);
  return (
    <div class="stack">
      <input type="search" aria-label="Filter operations" placeholder="Filter: search, timeline, rpc…" value={filter} onInput={(e) => onFilter(e.currentTarget.value)} />
      <ul aria-label="Operations" class="operations">
        {groups.map(([service, entries]) => (
          <li key={service}>
            <h2 class="group">{service}</h2>
            <ul aria-label={service}>
              {entries.map((entry) => (
                <li key={entry.id}>
                  <button type="button" class={`op ${entry.id === selected ? 'selected' : ''}`} aria-current={entry.id === selected} title={entry.summary} onClick={() => onChoose(entry)}>
                    <span class={`kind ${entry.kind}`}>{entry.kind === 'rpc' ? 'RPC' : entry.method}</span>{' '}
                    <span>{entry.kind === 'rpc' ? entry.title : entry.pathTemplate}</span>
                  </button>
                </li>
              ))}
            </ul>
          </li>
        ))}
        {groups.length === 0 && <li class="muted">{loading ? 'Loading operations…' : `No operation matches “${filter}”.`}</li>}
      </ul>
    </div>
  );
}
