/**
 * Everything the page shows comes from files and transcripts a model or a tool wrote: it is escaped
 * for HTML, and terminal escapes and control characters are dropped (a tool's coloured output must
 * not smuggle anything into the page, and bare control bytes render as garbage).
 */

// CSI (ESC [ … final), OSC (ESC ] … BEL or ST), two-byte ESC sequences, then C0/C1 controls but \t \n.
const TERMINAL = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]?|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function clean(s: unknown): string {
  return String(s ?? '')
    .replace(/\r\n?/g, '\n')
    .replace(TERMINAL, '');
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Cleaned and HTML-escaped: safe in element content and in quoted attribute values. */
export function esc(s: unknown): string {
  return clean(s).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** At most `max` characters (never half a surrogate pair), with how much was left out. */
export function cut(s: string, max: number): { text: string; omitted: number } {
  if (s.length <= max) return { text: s, omitted: 0 };
  let t = s.slice(0, max);
  const last = t.charCodeAt(t.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) t = t.slice(0, -1);
  return { text: t, omitted: s.length - t.length };
}

export function money(usd: number): string {
  return `$${(Number.isFinite(usd) ? usd : 0).toFixed(usd !== 0 && Math.abs(usd) < 0.01 ? 4 : 2)}`;
}

export function tokens(n: number): string {
  if (!Number.isFinite(n)) return '0';
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n % 1_000_000 === 0 ? 0 : 2)}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}K`;
  return String(Math.round(n));
}

export function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function percent(x: number): string {
  return Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : '–';
}
