import type { ComponentChildren } from 'preact';
import { useId, useLayoutEffect, useRef } from 'preact/hooks';

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
  // In the commit that changes `open`: a passive effect would leave keys typed before the next frame to the page
  // behind the dialog.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  // The browser fires `close` in a later task: one that finds the dialog open again belongs to an earlier closing.
  const onClosed = (event: Event) => {
    if (!(event.currentTarget as HTMLDialogElement).open) onClose();
  };
  return (
    <dialog ref={ref} aria-labelledby={headingId} onClose={onClosed} onCancel={onClose}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </dialog>
  );
}
