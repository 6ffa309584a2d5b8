// What both stores read from a transcript's tail: the main-thread context size of the last real model
// call. Kept in one place so SQLite and PostgreSQL answer `lastContext` identically.

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/**
 * Input + cache creation + cache read tokens of the first real main-thread assistant entry in
 * `newestFirst` (entries, newest first). Synthetic (API error) and sidechain entries are skipped:
 * their usage is zero or someone else's. 0 when there is none.
 */
export function contextOfTail(newestFirst: Iterable<unknown>): number {
  for (const e of newestFirst) {
    if (!isRecord(e) || e.type !== 'assistant' || e.isSidechain === true || e.isApiErrorMessage === true) continue;
    const msg = e.message;
    if (!isRecord(msg) || msg.model === '<synthetic>' || !isRecord(msg.usage)) continue;
    const u = msg.usage;
    return num(u.input_tokens) + num(u.cache_creation_input_tokens) + num(u.cache_read_input_tokens);
  }
  return 0;
}

/** Parses each payload lazily, so a scan stops at the first hit. */
export function* parsed(payloads: Iterable<string>): Generator<unknown> {
  for (const p of payloads) yield JSON.parse(p) as unknown;
}
