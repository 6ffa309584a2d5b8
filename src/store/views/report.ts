// What a resume view did, for the one-line summary and for tests.

export interface ViewReport {
  /** Read-only command results replaced by a "stale, rerun it" note. */
  expired: number;
  /** Large tool results moved to a spill file and replaced by a pointer. */
  trimmed: number;
  /** Entries left out of the view (api errors, retry entries, emptied denial entries). */
  pruned: number;
  /** Synthetic api-error assistants and `system/api_error` retry entries among `pruned`. */
  apiErrors: number;
  /** Denied calls removed (tool_use and tool_result together). */
  denials: number;
  /** Interrupted tool results replaced by a neutral note. */
  interrupts: number;
  /** Orphan tool calls given a synthetic result. */
  healed: number;
  /** Characters of message content removed, net of the notes written in their place. */
  charsSaved: number;
}

export const emptyReport = (): ViewReport => ({
  expired: 0,
  trimmed: 0,
  pruned: 0,
  apiErrors: 0,
  denials: 0,
  interrupts: 0,
  healed: 0,
  charsSaved: 0,
});

export function addReports(a: ViewReport, b: Partial<ViewReport>): ViewReport {
  const out = { ...a };
  for (const k of Object.keys(out) as Array<keyof ViewReport>) out[k] += b[k] ?? 0;
  return out;
}

const fmt = (n: number): string => (Math.abs(n) >= 1000 ? `${(n / 1000).toFixed(1)}K` : String(n));

/**
 * One line for the console, tokens estimated as characters ÷ 4.
 * @example "resume view: expired 3 · trimmed 2 · pruned 4 (2 api errors, 1 denial) · healed 1 · saved ≈2.1K tokens (8.4K chars)"
 */
export function trimReport(r: ViewReport): string {
  const parts: string[] = [];
  if (r.expired) parts.push(`expired ${r.expired}`);
  if (r.trimmed) parts.push(`trimmed ${r.trimmed}`);
  if (r.pruned || r.denials) {
    const why: string[] = [];
    if (r.apiErrors) why.push(`${r.apiErrors} api error${r.apiErrors === 1 ? '' : 's'}`);
    if (r.denials) why.push(`${r.denials} denial${r.denials === 1 ? '' : 's'}`);
    parts.push(`pruned ${r.pruned}${why.length ? ` (${why.join(', ')})` : ''}`);
  }
  if (r.interrupts) parts.push(`neutralised ${r.interrupts} interrupted`);
  if (r.healed) parts.push(`healed ${r.healed}`);
  if (parts.length === 0) return 'resume view: unchanged';
  if (r.charsSaved !== 0) {
    const chars = Math.abs(r.charsSaved);
    parts.push(`${r.charsSaved > 0 ? 'saved' : 'added'} ≈${fmt(Math.round(chars / 4))} tokens (${fmt(chars)} chars)`);
  }
  return `resume view: ${parts.join(' · ')}`;
}
