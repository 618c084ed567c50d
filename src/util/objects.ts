// Small object helpers for the hot paths (every answer builds many small objects).

/**
 * `o` itself when no field is undefined, else a copy without those fields. Never `delete`: a
 * deleted property turns a V8 object into a slow dictionary that every later read and
 * JSON.stringify pays for.
 */
export function withoutUndefined<T extends object>(o: T): T {
  const r = o as Record<string, unknown>;
  let clean = true;
  for (const k in r) {
    if (r[k] === undefined) {
      clean = false;
      break;
    }
  }
  if (clean) return o;
  const out: Record<string, unknown> = {};
  for (const k in r) if (r[k] !== undefined) out[k] = r[k];
  return out as T;
}
