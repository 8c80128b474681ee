import type { Draft } from './draft.ts';
import { bodyWithoutPasswords, isCredentialHeader } from './credentials.ts';

/** A request sent from this browser, kept in localStorage (without credentials or passwords) for one-click restore. */
export interface HistoryEntry {
  draft: Draft;
  statusLine: string;
  ok: boolean;
  elapsedMs: number;
  sentAt: string;
}

const STORAGE_KEY = 'tms.console.history';
export const HISTORY_LIMIT = 50;

export function readHistory(): HistoryEntry[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]');
    return Array.isArray(parsed) ? (parsed as HistoryEntry[]) : [];
  } catch {
    return [];
  }
}

export function addToHistory(entry: HistoryEntry): HistoryEntry[] {
  const { headers, body } = entry.draft;
  const clean: HistoryEntry = { ...entry, draft: { ...entry.draft, headers: headers.filter(([name]) => !isCredentialHeader(name)), body: bodyWithoutPasswords(body) } };
  const next = [clean, ...readHistory()].slice(0, HISTORY_LIMIT);
  localStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  return next;
}

export function clearHistory(): HistoryEntry[] {
  localStorage.removeItem(STORAGE_KEY);
  return [];
}
