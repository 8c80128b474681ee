import { useState } from 'preact/hooks';
import { snippets } from '../snippets.ts';
import type { Draft } from '../draft.ts';

/** The current request as curl, buf curl, grpcurl or TypeScript, with `$TMS_TOKEN` for the credential. */
export function SnippetsPanel({ draft }: { draft: Draft }) {
  const [copied, setCopied] = useState('');
  const list = snippets(draft, location.origin);
  return (
    <div class="stack">
      {list.map((snippet) => (
        <figure key={snippet.label}>
          <figcaption class="row">
            <strong>{snippet.label}</strong>
            <button
              type="button"
              class="small"
              onClick={() => void navigator.clipboard?.writeText(snippet.text).then(() => setCopied(snippet.label), () => setCopied(''))}
            >
              Copy {snippet.label}
            </button>
            {copied === snippet.label && <span role="status">Copied</span>}
          </figcaption>
          <pre aria-label={`${snippet.label} snippet`}>{snippet.text}</pre>
        </figure>
      ))}
      <p class="muted">Set <code>TMS_TOKEN</code> to an API key or a session token first.</p>
    </div>
  );
}
