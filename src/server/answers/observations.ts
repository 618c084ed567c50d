// How answers name the observations they were made of (session/observations.ts): an
// `observation_id` in the data and one short line in the text; and the shape dbg_inspect gives
// an observation back in.

import * as z from 'zod/v4';

export const observationId = z
  .string()
  .max(16)
  .regex(/^o[1-9][0-9]{0,9}$/)
  .describe('From an answer ("o12").');

export const observationIdOut = z
  .string()
  .describe('What this answer was gathered as: dbg_inspect {session_id, observation_id} gives it back as it was.');

export const observationsOut = z
  .record(z.string(), z.string())
  .describe('Each view gathered → its observation_id (dbg_inspect observation_id gives it back as it was).');

/** The text line naming what the answer was kept as; `served` when no debugger command was needed. */
export function observationLine(ids: readonly string[], served = false): string {
  return `observation ${ids.join(', ')}${served ? ' (kept from earlier at this stop; no debugger command)' : ''}`;
}

interface Keeps {
  of(value: object): { id: string } | undefined;
  attach(id: string, answer: { data: unknown; text: string }): void;
}

/**
 * The answer made of `value` (an evaluation, a memory read, …) with the observation it was kept
 * as named in its data and text; the answer is kept with it, for dbg_inspect observation_id.
 */
export function withObservation<D extends object>(
  log: Keeps,
  value: object,
  answer: { data: D; text: string },
): { data: D & { observation_id?: string }; text: string } {
  const obs = log.of(value);
  if (!obs) return answer;
  log.attach(obs.id, answer);
  return { data: { ...answer.data, observation_id: obs.id }, text: `${answer.text}\n${observationLine([obs.id])}` };
}
