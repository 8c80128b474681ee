import { useEffect, useRef, useState } from 'preact/hooks';
import type { ErrorDetail, Outcome } from '../send.ts';
import { Tabs } from './tabs.tsx';

const FIELD_VIOLATION = 'tms.v1.FieldViolation';
const RETRY_INFO = 'tms.v1.RetryInfo';

function formatSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function prettyBody(outcome: Outcome): string {
  if (outcome.body !== undefined) return JSON.stringify(outcome.body, null, 2);
  return outcome.bodyText;
}

function Details({ details }: { details: ErrorDetail[] }) {
  const violations = details.filter((d) => d.type === FIELD_VIOLATION).map((d) => d.value as { field?: string; description?: string });
  const others = details.filter((d) => d.type !== FIELD_VIOLATION);
  return (
    <>
      {violations.length > 0 && (
        <table aria-label="Field violations">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {violations.map((v, i) => (
              <tr key={i}>
                <td><code>{v.field}</code></td>
                <td>{v.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {others.map((detail, i) => (
        <div key={i} class="detail">
          <strong>{detail.type}</strong>
          {detail.type === RETRY_INFO ? (
            <p>Retry after {String((detail.value as { retry_after_seconds?: number }).retry_after_seconds ?? '?')} s</p>
          ) : (
            <pre>{JSON.stringify(detail.value, null, 2)}</pre>
          )}
        </div>
      ))}
    </>
  );
}

/** Status, time, size, headers and body of the last answer; errors with every detail decoded. */
export function ResponsePane({ outcome, sequence, sending }: { outcome: Outcome | undefined; sequence: number; sending: boolean }) {
  const [tab, setTab] = useState<'body' | 'headers'>('body');
  const pane = useRef<HTMLElement>(null);
  // On a narrow screen the pane sits below the request: a new answer there is brought into view.
  useEffect(() => {
    const element = pane.current;
    if (sequence > 0 && element && element.getBoundingClientRect().top > window.innerHeight) element.scrollIntoView({ block: 'start' });
  }, [sequence]);
  return (
    <section ref={pane} class="response" role="region" aria-label="Response" aria-busy={sending} data-sequence={sequence}>
      <h2>Response</h2>
      {sending && <p role="status">Sending…</p>}
      {!sending && !outcome && <p class="muted">Send a request to see its answer here (Ctrl+Enter or ⌘+Enter).</p>}
      {!sending && outcome && (
        <>
          <div class="status-line" role="status">
            <span class={`badge ${outcome.ok ? 'ok' : 'bad'}`} data-testid="status">{outcome.statusLine}</span>
            {outcome.kind === 'rpc' && <span class="muted">Connect</span>}
            <span data-testid="elapsed">{outcome.elapsedMs} ms</span>
            <span data-testid="size">{formatSize(outcome.sizeBytes)}</span>
            <code class="muted" title="Sent to">{outcome.sentTo}</code>
          </div>
          {outcome.error && (
            <div class="error-box" aria-label="Error">
              <p>
                <strong>{outcome.error.code}</strong>: {outcome.error.message}
              </p>
              <Details details={outcome.error.details} />
            </div>
          )}
          <Tabs
            label="Response parts"
            idPrefix="response"
            tabs={[
              { id: 'body', label: 'Body' },
              { id: 'headers', label: `Headers (${outcome.headers.length})` },
            ]}
            selected={tab}
            onSelect={setTab}
          >
            {tab === 'body' ? (
              <pre class="body" aria-label="Response body" tabIndex={0}>{prettyBody(outcome) || '(empty)'}</pre>
            ) : (
              <table aria-label="Response headers" tabIndex={0}>
                <tbody>
                  {outcome.headers.map(([name, value]) => (
                    <tr key={name + value}>
                      <th scope="row">{name}</th>
                      <td>{value}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Tabs>
        </>
      )}
    </section>
  );
}
