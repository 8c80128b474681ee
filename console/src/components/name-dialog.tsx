import { useEffect, useState } from 'preact/hooks';
import { Dialog } from './dialog.tsx';

interface Props {
  open: boolean;
  title: string;
  initial: string;
  error: string;
  /** A save under way: the dialog sends nothing more until it ends. */
  busy: boolean;
  onSubmit(name: string): void;
  onClose(): void;
}

/** Asks for a saved request's name. */
export function NameDialog({ open, title, initial, error, busy, onSubmit, onClose }: Props) {
  const [name, setName] = useState(initial);
  useEffect(() => setName(initial), [initial, open]);
  return (
    <Dialog title={title} open={open} onClose={onClose}>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          if (!busy) onSubmit(name);
        }}
      >
        <label>
          Name
          <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        {error && <p role="alert" class="error-text">{error}</p>}
        <div class="row">
          <button type="submit" class="primary" aria-disabled={busy}>{busy ? 'Saving…' : 'Save request'}</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Dialog>
  );
}
