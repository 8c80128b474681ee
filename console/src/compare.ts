import diff from 'microdiff';
import type { Draft } from './draft.ts';

export interface Difference {
  path: string;
  change: 'added' | 'removed' | 'changed';
  left: unknown;
  right: unknown;
}

/** Fields that differ on every call (timings) say nothing about the timelines. */
const VOLATILE = new Set(['duration_ms']);

function withoutVolatile(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null, (key, inner: unknown) => (VOLATILE.has(key) ? undefined : inner)));
}

/** A structural diff of two JSON answers: one row per added, removed or changed value, by JSON path. */
export function structuralDiff(left: unknown, right: unknown): Difference[] {
  const a = withoutVolatile(left);
  const b = withoutVolatile(right);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return JSON.stringify(a) === JSON.stringify(b) ? [] : [{ path: '', change: 'changed', left: a, right: b }];
  }
  return diff(a as Record<string, unknown>, b as Record<string, unknown>).map((d) => ({
    path: d.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, ''),
    change: d.type === 'CREATE' ? 'added' : d.type === 'REMOVE' ? 'removed' : 'changed',
    left: d.type === 'CREATE' ? undefined : d.oldValue,
    right: d.type === 'REMOVE' ? undefined : d.value,
  }));
}

export type OnTimeline = { ok: true; draft: Draft } | { ok: false; problem: string };

/** The same request aimed at another timeline: its JSON body's `timeline_id` set. */
export function onTimeline(draft: Draft, timelineId: string): OnTimeline {
  let body: unknown;
  try {
    body = draft.body.trim() === '' ? {} : JSON.parse(draft.body);
  } catch {
    return { ok: false, problem: 'the body is not valid JSON' };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { ok: false, problem: 'the body must be a JSON object' };
  return { ok: true, draft: { ...draft, body: JSON.stringify({ ...body, timeline_id: timelineId }, null, 2) } };
}
