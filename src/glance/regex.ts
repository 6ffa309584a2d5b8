// Is a regular expression (jq's Oniguruma syntax) safe to run on input of any size? Refused: a
// quantified group that contains a quantifier or an alternation (`(a+)+`, `(a|aa)*`, `(\w*)*` backtrack
// exponentially), backreferences (`\1`, `\k<n>`) and subexpression calls (`\g<n>`, which recurse).
// One linear scan with a stack of open groups.
import { Budget } from './budget.js';

interface Group {
  quant: boolean;
  alt: boolean;
}

/** Whether `s[i..]` starts a quantifier; returns its length and whether it is unbounded, or null. */
function quantifier(s: string, i: number): { len: number; many: boolean } | null {
  const c = s[i];
  if (c === '*' || c === '+') return { len: 1, many: true };
  if (c === '?') return { len: 1, many: false };
  if (c !== '{') return null;
  let j = i + 1;
  let lo = '';
  while (j < s.length && /\d/.test(s[j]!)) lo += s[j++];
  let hi = lo;
  let comma = false;
  if (s[j] === ',') {
    comma = true;
    hi = '';
    j++;
    while (j < s.length && /\d/.test(s[j]!)) hi += s[j++];
  }
  if (s[j] !== '}' || (lo === '' && hi === '')) return null;
  const max = comma && hi === '' ? Infinity : Number(hi);
  return { len: j - i + 1, many: max > 1 };
}

/** Why the regex `re` could take exponential time or recurse, or null. */
export function regexRisk(re: string, budget: Budget = new Budget()): string | null {
  const stack: Group[] = [{ quant: false, alt: false }];
  for (let i = 0; i < re.length; i++) {
    budget.spend();
    const c = re[i]!;
    const top = stack[stack.length - 1]!;
    if (c === '\\') {
      const d = re[i + 1];
      if (d !== undefined && /[1-9]/.test(d)) return `the regex \`${re}\` has a backreference (\`\\${d}\`)`;
      if (d === 'k' || d === 'g') return `the regex \`${re}\` has a backreference or a subexpression call (\`\\${d}\`)`;
      i++;
      continue;
    }
    if (c === '[') {
      // a class, possibly nested (`[a-z&&[^aeiou]]`); `]` right after `[` or `[^` is literal
      let depth = 1;
      let j = i + 1;
      if (re[j] === '^') j++;
      if (re[j] === ']') j++;
      for (; j < re.length && depth > 0; j++) {
        budget.spend();
        if (re[j] === '\\') j++;
        else if (re[j] === '[') depth++;
        else if (re[j] === ']') depth--;
      }
      i = j - 1;
      continue;
    }
    if (c === '(') {
      stack.push({ quant: false, alt: false });
      continue;
    }
    if (c === '|') {
      top.alt = true;
      continue;
    }
    if (c === ')') {
      if (stack.length === 1) continue;
      const g = stack.pop()!;
      const q = quantifier(re, i + 1);
      if (q?.many && (g.quant || g.alt))
        return `the regex \`${re}\` repeats a group that itself repeats or alternates (like \`(a+)+\` or \`(a|aa)*\`), which can take exponential time`;
      const parent = stack[stack.length - 1]!;
      parent.quant ||= g.quant || q !== null;
      continue;
    }
    const q = quantifier(re, i);
    if (q) {
      top.quant = true;
      i += q.len - 1;
    }
  }
  return null;
}
