import { Dialog } from './dialog.tsx';
import type { SavedRequest } from '../saved-api.ts';

interface Props {
  /** The saved request to delete once confirmed; the dialog is open while there is one. */
  request: SavedRequest | undefined;
  onConfirm(request: SavedRequest): void;
  onClose(): void;
}

/** Asks before a saved request is deleted: nothing brings it back, nor its share link. Keeping it is the default. */
export function DeleteDialog({ request, onConfirm, onClose }: Props) {
  return (
    <Dialog title="Delete saved request" open={request !== undefined} onClose={onClose}>
      {request && (
        <p>
          Delete “{request.name}” ({request.method} {request.path})?{request.share_token ? ' Its share link stops working too.' : ''} This cannot be
          undone.
        </p>
      )}
      <div class="row">
        <button type="button" class="danger" onClick={() => request && onConfirm(request)}>
          Delete
        </button>
        <button type="button" autoFocus onClick={onClose}>
          Keep it
        </button>
      </div>
    </Dialog>
  );
}
