/**
 * Options of a question: cleaning what the model sent, and recognising which one a person picked.
 * Pure functions, shared by the channel (answers through the API) and the terminal (typed lines).
 */

/** Full-width digits (an IME left on) count as digits: `２` picks option 2. */
export function asciiDigits(text: string): string {
  return text.replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xff10 + 0x30));
}

/**
 * Trimmed, non-empty, without duplicates. Models sometimes send the array as a JSON string or as
 * lines of one string; both are taken apart rather than shown to the person as one odd option.
 */
export function cleanOptions(raw: unknown): string[] {
  let list: unknown[] = [];
  if (Array.isArray(raw)) list = raw;
  else if (typeof raw === 'string') {
    const s = raw.trim();
    let parsed: unknown;
    if (s.startsWith('[')) {
      try {
        parsed = JSON.parse(s);
      } catch {
        /* not JSON: fall through to lines */
      }
    }
    list = Array.isArray(parsed) ? parsed : s.split(/\r?\n/);
  }
  const out: string[] = [];
  for (const item of list) {
    if (typeof item !== 'string' && typeof item !== 'number') continue;
    const o = String(item).trim();
    if (o !== '' && !out.includes(o)) out.push(o);
  }
  return out;
}

export interface Pick {
  /** 0-based */
  index: number;
  text: string;
}

/**
 * The option an answer picks: a 1-based number within range, or an option's exact text (case and
 * surrounding space ignored). null when it picks none — then the answer is taken as free text.
 */
export function pickOption(options: readonly string[], answer: string): Pick | null {
  const s = asciiDigits(answer).trim();
  if (options.length === 0 || s === '') return null;
  if (/^\d+$/.test(s)) {
    const n = Number(s);
    return n >= 1 && n <= options.length ? { index: n - 1, text: options[n - 1]! } : null;
  }
  const lower = s.toLowerCase();
  const i = options.findIndex((o) => o.trim().toLowerCase() === lower);
  return i < 0 ? null : { index: i, text: options[i]! };
}
