import { useState } from 'preact/hooks';
import { snippets } from '../snippets.ts';
import type { Draft } from '../draft.ts';

/** The current request as curl, buf curl, grpcurl or TypeScript, with `$TMS_TOKEN` for the credential. */
export function SnippetsPanel({ draft }: { draft: Draft }) {
  const [copied, setCopied] = useState({ label: '', ok: true });
  const list = snippets(draft, location.origin);
  // The clipboard API exists only in a secure context (HTTPS, or localhost): elsewhere the text is selected instead.
  const copy = (label: string, text: string, shown: HTMLElement | null) => {
    const selectInstead = () => {
      if (shown) window.getSelection()?.selectAllChildren(shown);
      setCopied({ label, ok: false });
    };
    if (!navigator.clipboard) return selectInstead();
    navigator.clipboard.writeText(text).then(() => setCopied({ label, ok: true }), selectInstead);
  };
  return (
    <div class="stack">
      {list.map((snippet) => (
        <figure key={snippet.label}>
          <figcaption class="row">
            <strong>{snippet.label}</strong>
            <button
              type="button"
              class="small"
              onClick={(event) => copy(snippet.label, snippet.text, event.currentTarget.closest('figure')?.querySelector('pre') ?? null)}
            >
              Copy {snippet.label}
            </button>
            {copied.label === snippet.label && <span role="status">{copied.ok ? 'Copied' : 'This page may not copy: the text is selected, press Ctrl+C'}</span>}
          </figcaption>
          <pre aria-label={`${snippet.label} snippet`}>{snippet.text}</pre>
        </figure>
      ))}
      <p class="muted">Set <code>TMS_TOKEN</code> to an API key or a session token first.</p>
    </div>
  );
}
