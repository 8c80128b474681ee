/** What is counted: each request's outcome by face and kind of operation, its latency, and 2xx answers per second. */
import { KEY, send, type Face, type Reply } from './faces.ts';
import type { RunState } from './run-state.ts';

export type Kind = 'search' | 'manipulate' | 'revert' | 'create-branch' | 'delete-branch' | 'check-paradox' | 'set-anchor' | 'check-anchor' | 'login';
export const KINDS: Kind[] = ['search', 'manipulate', 'revert', 'create-branch', 'delete-branch', 'check-paradox', 'set-anchor', 'check-anchor', 'login'];

export interface Tally {
  requests: number;
  ok: number;
  /** 4xx answers other than 429 (every request the soak sends is valid, so each one is unexpected). */
  clientErrors: number;
  /** 429: turned away under load with a retry hint (the rate limit is off: password checks queued full); retried. */
  shed: number;
  /** 5xx answers, or no answer, outside any restart: failures. */
  serverErrors: number;
  /** Failed because a kill caught them in flight (sent before it, no answer after it). */
  inFlightAtKill: number;
  /** Refused (no connection, or 503 while starting) between a kill and the next process's readiness. */
  refusedWhileRestarting: number;
  latencies: number[];
}
const tally = (tallies: Map<string, Tally>, face: Face, kind: Kind) => {
  const key = `${face} ${kind}`;
  let found = tallies.get(key);
  if (!found) tallies.set(key, (found = { requests: 0, ok: 0, clientErrors: 0, shed: 0, serverErrors: 0, inFlightAtKill: 0, refusedWhileRestarting: 0, latencies: [] }));
  return found;
};

/** 'refused': turned away during a restart before reaching the service (no connection, or 503 while starting). */
export type Outcome = 'ok' | 'shed' | 'client-error' | 'server-error' | 'restart' | 'refused';

/** Sends one counted request; a failure during an outage is the restart's, not the service's. */
export async function counted(
  run: RunState,
  face: Face,
  kind: Kind,
  rpc: string,
  body: Record<string, unknown>,
  bearer: string | null = KEY,
): Promise<{ outcome: Outcome; reply: Reply }> {
  const { now, perSecond, failures, outages } = run;
  const sentAt = now();
  const started = performance.now();
  const reply = await send(run, face, rpc, body, bearer);
  const doneAt = now();
  const entry = tally(run.tallies, face, kind);
  entry.requests++;
  if (reply.status >= 200 && reply.status < 300) {
    const second = Math.floor(doneAt);
    const counts = perSecond.get(face)!;
    counts[second] = (counts[second] ?? 0) + 1;
    entry.ok++;
    entry.latencies.push(performance.now() - started);
    return { outcome: 'ok', reply };
  }
  if (reply.status === 429) {
    entry.shed++;
    return { outcome: 'shed', reply };
  }
  if (reply.status >= 400 && reply.status < 500 && reply.status !== 499) {
    entry.clientErrors++;
    if (failures.length < 50) failures.push(`${face} ${kind}: ${reply.status} ${JSON.stringify(reply.json)?.slice(0, 300)}`);
    return { outcome: 'client-error', reply };
  }
  const outage = outages.find((o) => sentAt <= (o.to ?? Infinity) && doneAt >= o.from);
  if (outage) {
    if (sentAt < outage.from) entry.inFlightAtKill++;
    else entry.refusedWhileRestarting++;
    // A starting process answers 503 before it runs anything.
    const turnedAway = reply.refused === true || (reply.status === 503 && sentAt >= outage.from);
    return { outcome: turnedAway ? 'refused' : 'restart', reply };
  }
  entry.serverErrors++;
  if (failures.length < 50) failures.push(`${face} ${kind}: ${reply.status || 'no answer'} ${JSON.stringify(reply.json)?.slice(0, 300)} at ${doneAt.toFixed(1)} s`);
  return { outcome: 'server-error', reply };
}
