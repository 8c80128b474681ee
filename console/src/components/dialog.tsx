import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

interface Props {
  title: string;
  open: boolean;
  onClose(): void;
  children: ComponentChildren;
}

/** A modal <dialog> named by its heading; Escape closes it. */
export function Dialog({ title, open, onClose, children }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={headingId} onClose={onClose} onCancel={onClose}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </dialog>
  );
}
