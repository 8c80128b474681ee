import type { SavedRequest } from '../saved-api.ts';

interface Props {
  loggedIn: boolean;
  items: SavedRequest[];
  hasMore: boolean;
  error: string;
  onOpen(item: SavedRequest): void;
  onDelete(item: SavedRequest): void;
  onMore(): void;
}

/** The account's saved requests (on the server: the same on every browser). */
export function SavedList({ loggedIn, items, hasMore, error, onOpen, onDelete, onMore }: Props) {
  if (!loggedIn) return <p class="muted">Log in to see your saved requests.</p>;
  return (
    <div class="stack">
      {error && <p role="alert" class="error-text">{error}</p>}
      <ul aria-label="Saved" class="saved">
        {items.map((item) => (
          <li key={item.id}>
            <button type="button" class="op" onClick={() => onOpen(item)} title={`${item.method} ${item.path}`}>
              <span class="kind">{item.method}</span>
              <span class="name">{item.name}</span>
              {item.share_token && <span class="muted"> · shared</span>}
            </button>
            <button type="button" class="small" aria-label={`Delete ${item.name}`} aria-haspopup="dialog" onClick={() => onDelete(item)}>Delete</button>
          </li>
        ))}
        {items.length === 0 && <li class="muted">Nothing saved yet: “Save” keeps the current request here.</li>}
      </ul>
      {hasMore && <button type="button" onClick={onMore}>Load more</button>}
    </div>
  );
}
