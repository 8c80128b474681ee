import { z } from 'zod';
import type { OperationDeps } from '../deps.ts';
import type { RequestContext } from '../operation.ts';
import type { AnchorRecord } from '../../store/types.ts';
import type { AnchorAccuracy } from '../../anchors/stability.ts';
import type { EnvironmentStrings, QuantumStateStrings } from '../../anchors/units.ts';
import { defineOperation } from '../operation.ts';
import { blankAsMissing, idField, instantField, textField, timelineIdField } from '../fields.ts';
import { requireTimeline } from '../timeline-access.ts';
import { notFound } from '../../domain/errors.ts';
import { formatInstant } from '../../time/index.ts';
import { parseAnchorConditions } from '../../anchors/units.ts';
import { anchorFiguresJson } from '../../anchors/stability.ts';
import { randomId } from '../../store/ids.ts';

/** Echoed as sent; blanks alone are refused (a value without a unit), where `""` is absent. */
const unitText = blankAsMissing(
  z
    .string()
    .max(100, 'must be at most 100 characters')
    .refine((text) => text.trim() !== '', 'is blank: give a value with its unit, or leave the field out')
    .optional(),
);
const environmentInput = z.strictObject({ temperature: unitText, humidity: unitText, em_field_strength: unitText });
const quantumStateInput = z.strictObject({ qubit_configuration: unitText, superposition_stability: unitText });
const accuracyInput = z.enum(['microsecond', 'nanosecond']);

const setInput = z.strictObject({
  timestamp: instantField,
  description: textField(2000).default(''),
  accuracy: blankAsMissing(accuracyInput.optional()),
  environment: environmentInput.optional(),
  quantum_state: quantumStateInput.optional(),
  timeline_id: timelineIdField,
});
const byIdInput = z.strictObject({ anchor_id: idField });
const adjustInput = z.strictObject({ anchor_id: idField, new_environment: environmentInput });

interface StoredAnchor extends AnchorRecord {
  description: string;
  accuracy: AnchorAccuracy;
  /** Whether the client chose the accuracy (it is echoed only then). */
  accuracy_sent: boolean;
  environment?: EnvironmentStrings;
  quantum_state?: QuantumStateStrings;
  owner: string;
  created_at: string;
  updated_at: string;
}

/** Only the strings that were sent, as sent: units and all. */
const sentStrings = <T extends object>(strings: T | undefined): T | undefined => {
  if (!strings) return undefined;
  const kept = Object.fromEntries(Object.entries(strings).filter(([, v]) => v !== undefined));
  return Object.keys(kept).length ? (kept as T) : undefined;
};

async function requireAnchor(deps: OperationDeps, ctx: RequestContext, anchorId: string, access: 'read' | 'change'): Promise<StoredAnchor> {
  const anchor = (await deps.store.getAnchor(anchorId)) as StoredAnchor | undefined;
  if (!anchor) throw notFound('anchor', anchorId);
  try {
    await requireTimeline(deps.store, ctx.principal, anchor.timeline_id, access);
  } catch (error) {
    // An anchor on a timeline the caller cannot see does not exist for them.
    if ((error as { code?: string }).code === 'not_found') throw notFound('anchor', anchorId);
    throw error;
  }
  return anchor;
}

async function stabilityOf(deps: OperationDeps, anchor: StoredAnchor, environmentField = 'environment') {
  const conditions = parseAnchorConditions(anchor.environment, anchor.quantum_state, { environment: environmentField });
  return deps.anchorStability.check({ anchorId: anchor.anchor_id, accuracy: anchor.accuracy, conditions });
}

export function anchorOperations(deps: OperationDeps) {
  return {
    'tms.v1.AnchorService.SetAnchor': defineOperation(setInput, async (ctx, input) => {
      await requireTimeline(deps.store, ctx.principal, input.timeline_id, 'change');
      // Parse before storing: a value without a known unit is refused and nothing is written.
      parseAnchorConditions(input.environment, input.quantum_state);
      const now = new Date().toISOString();
      const environment = sentStrings(input.environment);
      const quantumState = sentStrings(input.quantum_state);
      const anchor: StoredAnchor = {
        anchor_id: randomId('anc_'),
        timeline_id: input.timeline_id,
        timestamp: formatInstant(input.timestamp),
        description: input.description,
        accuracy: input.accuracy ?? 'microsecond',
        accuracy_sent: input.accuracy !== undefined,
        ...(environment ? { environment } : {}),
        ...(quantumState ? { quantum_state: quantumState } : {}),
        owner: ctx.principal.account,
        created_at: now,
        updated_at: now,
      };
      await deps.store.putAnchor(anchor);
      return {
        anchor_id: anchor.anchor_id,
        status: 'Anchor set successfully',
        timestamp: anchor.timestamp,
        ...(anchor.accuracy_sent ? { accuracy: anchor.accuracy } : {}),
        ...(environment ? { environment } : {}),
        ...(quantumState ? { quantum_state: quantumState } : {}),
        timeline_id: anchor.timeline_id,
        description: anchor.description,
      };
    }),
    'tms.v1.AnchorService.CheckAnchorStability': defineOperation(byIdInput, async (ctx, input) => {
      const anchor = await requireAnchor(deps, ctx, input.anchor_id, 'read');
      const stability = await stabilityOf(deps, anchor);
      return { status: stability.status, current_conditions: anchor.environment ?? {}, figures: anchorFiguresJson(stability) };
    }),
    'tms.v1.AnchorService.AdjustAnchor': defineOperation(adjustInput, async (ctx, input) => {
      const anchor = await requireAnchor(deps, ctx, input.anchor_id, 'change');
      const environment = sentStrings(input.new_environment) ?? {};
      const adjusted: StoredAnchor = { ...anchor, environment, updated_at: new Date().toISOString() };
      const stability = await stabilityOf(deps, adjusted, 'new_environment');
      await deps.store.putAnchor(adjusted);
      return { status: stability.status, new_conditions: environment, figures: anchorFiguresJson(stability) };
    }),
  };
}
