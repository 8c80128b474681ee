import { effectivePath, isRpcPath, type Draft } from '../draft.ts';
import type { JsonSchema } from '../json-schema.ts';
import { JsonEditor } from './json-editor.tsx';

interface Props {
  draft: Draft;
  onChange(draft: Draft): void;
  schema: JsonSchema | undefined;
  onSend(): void;
  sending: boolean;
  loggedIn: boolean;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** Method, path, headers and body: the request exactly as it will be sent, the credential aside. */
export function RequestPane({ draft, onChange, schema, onSend, sending, loggedIn }: Props) {
  const rpc = isRpcPath(draft.path);
  const target = effectivePath(draft);
  const movesBody = !rpc && target.ok && target.path !== draft.path;
  const setHeader = (index: number, entry: [string, string] | undefined) => {
    const headers = [...draft.headers];
    if (entry) headers[index] = entry;
    else headers.splice(index, 1);
    onChange({ ...draft, headers });
  };
  return (
    <section class="stack request" aria-label="Request">
      <form
        class="request-line"
        onSubmit={(event) => {
          event.preventDefault();
          onSend();
        }}
      >
        <input aria-label="Method" class="method" list="http-methods" value={draft.method} disabled={rpc} onInput={(e) => onChange({ ...draft, method: e.currentTarget.value.toUpperCase() })} />
        <datalist id="http-methods">
          {METHODS.map((m) => <option key={m} value={m} />)}
        </datalist>
        <input aria-label="Path" class="path" value={draft.path} spellcheck={false} onInput={(e) => onChange({ ...draft, path: e.currentTarget.value })} />
        {/* aria-disabled, not disabled: a disabled button cannot hold focus, and the login dialog gives it back here. */}
        <button type="submit" class="primary" aria-disabled={sending}>Send</button>
      </form>
      {rpc && <p class="muted">RPC: sent with Connect-Web (Connect protocol, JSON) to <code>{draft.path}</code>.</p>}
      <details open={draft.headers.length > 1}>
        <summary>Headers ({draft.headers.length})</summary>
        <table aria-label="Request headers" class="headers">
          <tbody>
            {draft.headers.map(([name, value], i) => (
              <tr key={i}>
                <td><input aria-label={`Header ${i + 1} name`} value={name} onInput={(e) => setHeader(i, [e.currentTarget.value, value])} /></td>
                <td><input aria-label={`Header ${i + 1} value`} value={value} onInput={(e) => setHeader(i, [name, e.currentTarget.value])} /></td>
                <td><button type="button" class="small" aria-label={`Remove header ${name || i + 1}`} onClick={() => setHeader(i, undefined)}>Remove</button></td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" class="small" onClick={() => onChange({ ...draft, headers: [...draft.headers, ['', '']] })}>Add header</button>
        <p class="muted">{loggedIn ? 'Authorization is added from your login when the request is sent; it is never stored.' : 'Authorization is added once you log in.'}</p>
      </details>
      <label id="body-label">Body</label>
      <JsonEditor label="Body" value={draft.body} onChange={(body) => onChange({ ...draft, body })} schema={schema} onSubmit={onSend} />
      {/* Notes, not live regions: they change with every key typed; sending says what went wrong. */}
      {movesBody && (
        <p role="note" class="notice" aria-label="Query string">
          Browsers cannot send a body with {draft.method}; the server takes the same fields from the query string, so this is sent to{' '}
          <code>{target.path}</code>
        </p>
      )}
      {!target.ok && (
        <p role="note" class="error-text" aria-label="Problem">
          {target.problem}
        </p>
      )}
    </section>
  );
}
