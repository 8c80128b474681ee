import { useState } from 'preact/hooks';
import { onTimeline, structuralDiff, type Difference } from '../compare.ts';
import { draftOf, type SavedRequest } from '../saved-api.ts';
import type { Draft } from '../draft.ts';
import type { Outcome } from '../send.ts';

interface Props {
  draft: Draft;
  saved: SavedRequest[];
  /** Sends one request the way the Send button does (login prompt included). */
  run(draft: Draft): Promise<Outcome | undefined>;
}

const show = (value: unknown) => (value === undefined ? '—' : JSON.stringify(value));

/** What the comparison found, saying first when an answer is an error: two errors alike are no finding. */
function summary(a: Outcome, b: Outcome, differences: number): string {
  const counted = differences === 0 ? 'The two answers are the same.' : `${differences} difference${differences === 1 ? '' : 's'}`;
  if (!a.ok && !b.ok) return `Both answers are errors (A: ${a.statusLine}; B: ${b.statusLine}), so nothing of the timelines was compared.`;
  if (!a.ok || !b.ok) return `Answer ${a.ok ? 'B' : 'A'} is an error (${(a.ok ? b : a).statusLine}). ${counted}`;
  return counted;
}

/** Two runs side by side, and what differs between them as a structural JSON diff. */
export function ComparePanel({ draft, saved, run }: Props) {
  const [mode, setMode] = useState<'timelines' | 'saved'>('timelines');
  const [left, setLeft] = useState('primary');
  const [right, setRight] = useState('');
  const [leftSaved, setLeftSaved] = useState('');
  const [rightSaved, setRightSaved] = useState('');
  const [result, setResult] = useState<{ a: Outcome; b: Outcome; differences: Difference[] } | undefined>();
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);

  const compare = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setProblem('');
    let drafts: [Draft, Draft];
    if (mode === 'timelines') {
      const a = onTimeline(draft, left.trim());
      const b = onTimeline(draft, right.trim());
      if (!a.ok || !b.ok) return setProblem(`Cannot aim this request at a timeline: ${(!a.ok ? a : (b as { problem: string })).problem}`);
      drafts = [a.draft, b.draft];
    } else {
      const a = saved.find((s) => s.id === leftSaved);
      const b = saved.find((s) => s.id === rightSaved);
      if (!a || !b) return setProblem('Choose two saved requests.');
      drafts = [draftOf(a), draftOf(b)];
    }
    setBusy(true);
    try {
      const a = await run(drafts[0]);
      const b = a && (await run(drafts[1]));
      if (a && b) setResult({ a, b, differences: structuralDiff(a.body ?? a.bodyText, b.body ?? b.bodyText) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="stack" aria-label="Compare">
      <form class="stack" onSubmit={compare}>
        <div class="row" role="radiogroup" aria-label="Compare what">
          <label><input type="radio" name="compare-mode" checked={mode === 'timelines'} onChange={() => setMode('timelines')} /> This request on two timelines</label>
          <label><input type="radio" name="compare-mode" checked={mode === 'saved'} onChange={() => setMode('saved')} /> Two saved requests</label>
        </div>
        {mode === 'timelines' ? (
          <div class="row">
            <label>Timeline A <input value={left} onInput={(e) => setLeft(e.currentTarget.value)} required /></label>
            <label>Timeline B <input value={right} onInput={(e) => setRight(e.currentTarget.value)} required placeholder="tl_…" /></label>
          </div>
        ) : (
          <div class="row">
            <label>Saved request A <select value={leftSaved} onChange={(e) => setLeftSaved(e.currentTarget.value)}><option value="">—</option>{saved.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}</select></label>
            <label>Saved request B <select value={rightSaved} onChange={(e) => setRightSaved(e.currentTarget.value)}><option value="">—</option>{saved.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}</select></label>
          </div>
        )}
        <div class="row"><button type="submit" aria-disabled={busy}>Compare</button></div>
        {problem && <p role="alert" class="error-text">{problem}</p>}
      </form>
      {result && (
        <>
          <p role="status">{summary(result.a, result.b, result.differences.length)}</p>
          {result.differences.length > 0 && (
            <table aria-label="Differences">
              <thead><tr><th scope="col">Path</th><th scope="col">Change</th><th scope="col">A</th><th scope="col">B</th></tr></thead>
              <tbody>
                {result.differences.map((d, i) => (
                  <tr key={i} class={d.change}><td><code>{d.path || '(whole answer)'}</code></td><td>{d.change}</td><td><code>{show(d.left)}</code></td><td><code>{show(d.right)}</code></td></tr>
                ))}
              </tbody>
            </table>
          )}
          <div class="side-by-side">
            <div><h3>A · {result.a.statusLine}</h3><pre aria-label="Answer A" tabIndex={0}>{JSON.stringify(result.a.body ?? result.a.bodyText, null, 2)}</pre></div>
            <div><h3>B · {result.b.statusLine}</h3><pre aria-label="Answer B" tabIndex={0}>{JSON.stringify(result.b.body ?? result.b.bodyText, null, 2)}</pre></div>
          </div>
        </>
      )}
    </section>
  );
}
