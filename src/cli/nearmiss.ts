/**
 * A typo of a command must not become a paid run: `flower statsu` once started a run on the word
 * "statsu", created .flower/ and runs/, and in a folder in progress would have woken the task with it
 * as a remark. Only a single bare word is judged — a sentence (two words or more) is always a request.
 * Pure.
 */

/** Optimal-string-alignment distance: Levenshtein plus one adjacent swap (`dmeo` → `demo` is 1). */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  const d: number[][] = Array.from({ length: m + 1 }, (_, i) => Array.from({ length: n + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= m; i++) {
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[m]![n]!;
}

/** Lexicographic order of two rank keys. */
const before = (a: number[], b: number[]): boolean => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
};

/**
 * The command `words` probably meant, or null when it is a request. A near-miss is ONE bare word
 * (letters, maybe a dash) within 2 edits of a command — within 1 for the three-letter ones (`go`,
 * `run`, `log`, `sim`), where 2 edits reach most short English words (`fix` is 2 from `sim`).
 * Case is ignored: `flower Status` is a near-miss too.
 */
export function nearMiss(words: readonly string[], commands: readonly string[]): string | null {
  if (words.length !== 1) return null;
  const word = words[0]!.trim();
  if (!/^[A-Za-z][A-Za-z-]{0,15}$/.test(word)) return null;
  const w = word.toLowerCase();
  // ties: a command the word begins (`stat` is two edits from both `stop` and `status`), then the closer
  // length, then the same first letter (`lgo` is one edit from both `go` and `log`)
  const rank = (cmd: string, d: number) => [d, cmd.startsWith(w) ? 0 : 1, Math.abs(cmd.length - w.length), cmd[0] === w[0] ? 0 : 1];
  let best: { cmd: string; key: number[] } | null = null;
  for (const cmd of commands) {
    if (word === cmd) return null; // the command itself, typed where a request goes (`flower go go`)
    const d = editDistance(w, cmd);
    const max = cmd.length <= 3 ? 1 : 2;
    if (d > max || d >= Math.max(w.length, cmd.length)) continue;
    const key = rank(cmd, d);
    if (!best || before(key, best.key)) best = { cmd, key };
  }
  return best?.cmd ?? null;
}
