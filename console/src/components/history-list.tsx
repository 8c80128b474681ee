import type { HistoryEntry } from '../history.ts';

interface Props {
  entries: HistoryEntry[];
  onRestore(entry: HistoryEntry): void;
  onClear(): void;
}

/** The last requests sent from this browser; a click puts one back in the editor. */
export function HistoryList({ entries, onRestore, onClear }: Props) {
  return (
    <div class="stack">
      <ul aria-label="History" class="saved">
        {entries.map((entry, i) => (
          <li key={i}>
            <button type="button" class="op" onClick={() => onRestore(entry)} title={new Date(entry.sentAt).toLocaleString()}>
              <span class={`badge ${entry.ok ? 'ok' : 'bad'}`}>{entry.statusLine.split(' ')[0]}</span>
              <span class="kind">{entry.draft.method}</span>
              <span class="name">{entry.draft.path}</span>
              <span class="muted"> {entry.elapsedMs} ms</span>
            </button>
          </li>
        ))}
        {entries.length === 0 && <li class="muted">Requests you send appear here.</li>}
      </ul>
      {entries.length > 0 && <button type="button" onClick={onClear}>Clear history</button>}
    </div>
  );
}
