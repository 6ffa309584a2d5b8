// sed programs, checked by content: sed can write files (`w`, `W`, the `w` flag of `s`), run commands
// (`e`, the `e` flag of `s`) and read files (`r`, `R`) — a glance may use none of them. And sed can loop
// forever: `:a;s/x/xx/;ta` never ends. A backward branch (`b`/`t`/`T` to a label defined before it) is
// allowed only when the loop reads a line on every turn (an `n`/`N` with no address, outside any block,
// between the label and the branch: at the end of input `N` ends sed), as in `:a;N;$!ba;s/\n/ /g`. `D`
// restarts the cycle without reading while a newline is left, so it is refused next to commands that
// put newlines back without reading (`G`, `H`, `g`, `x`, or an `s` replacement with a newline).
import { Budget } from './budget.js';

/** What a sed script does that could make it loop: labels, branches, the reads between them, `D`. */
class Loops {
  private reads = 0; // unaddressed top-level n/N seen so far
  private readonly labels = new Map<string, number>(); // label → reads when it was defined
  private restarts = false; // a D
  private refills = false; // G, H, g, x, or an s/…/\n/

  label(name: string): void { this.labels.set(name, this.reads); }

  /** A branch to `name`: a loop when the label came before, and one that reads no line is refused. */
  branch(name: string): string | null {
    const at = this.labels.get(name);
    return name !== '' && at !== undefined && this.reads === at
      ? `the sed loop back to \`:${name}\` reads no line on its way round (no \`n\`/\`N\` without an address), so it can run forever`
      : null;
  }

  command(c: string, addressed: boolean, depth: number): void {
    if ((c === 'n' || c === 'N') && !addressed && depth === 0) this.reads++;
    if (c === 'D') this.restarts = true;
    if ('GHgx'.includes(c)) this.refills = true;
  }

  replacement(r: string): void { if (r.includes('\\n') || r.includes('\n')) this.refills = true; }

  end(): string | null {
    return this.restarts && this.refills ? 'sed `D` with `G`/`H`/`g`/`x` or a newline put back by `s` can restart its cycle forever' : null;
  }
}

/** Why `script` is not a read-only sed program, or null. Labels end at whitespace or `;` (GNU sed). */
export function sedProgram(script: string, budget: Budget = new Budget()): string | null {
  let i = 0;
  const n = script.length;
  let depth = 0;
  const loops = new Loops();
  const name = (): string => {
    spaces();
    const from = i;
    while (i < n && !/[\s;]/.test(script[i]!)) i++;
    return script.slice(from, i);
  };
  const spaces = (): void => { while (i < n && (script[i] === ' ' || script[i] === '\t')) i++; };
  const delimited = (d: string): boolean => {
    while (i < n && script[i] !== d) {
      if (script[i] === '\n' && d !== '\n') return false;
      i += script[i] === '\\' ? 2 : 1;
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  const address = (): boolean | null => {
    const c = script[i];
    if (c !== undefined && /\d/.test(c)) { while (i < n && /[\d~]/.test(script[i]!)) i++; return true; }
    if (c === '$') { i++; return true; }
    if (c === '/' || c === '\\') {
      const d = c === '/' ? '/' : script[i + 1];
      i += c === '/' ? 1 : 2;
      if (d === undefined || !delimited(d)) return null;
      while (i < n && /[IM]/.test(script[i]!)) i++;
      return true;
    }
    return false;
  };
  for (let guard = 0; guard <= n + 1; guard++) {
    budget.spend();
    while (i < n && /[\s;}]/.test(script[i]!)) { if (script[i] === '}') depth--; i++; }
    if (i >= n) return loops.end();
    if (script[i] === '#') { while (i < n && script[i] !== '\n') i++; continue; }
    const a = address();
    if (a === null) return 'an unterminated sed address';
    if (a) {
      spaces();
      if (script[i] === ',') {
        i++;
        spaces();
        if (script[i] === '+' || script[i] === '~') { i++; while (i < n && /\d/.test(script[i]!)) i++; }
        else if (address() !== true) return 'a bad sed address range';
      }
    }
    spaces();
    while (script[i] === '!') { i++; spaces(); }
    const c = script[i++];
    if (c === undefined) return 'a sed address without a command';
    if (c === '{') { depth++; continue; }
    if (c === 's' || c === 'y') {
      const d = script[i++];
      if (d === undefined || d === '\n' || d === '\\') return `a bad sed \`${c}\` command`;
      if (!delimited(d)) return `an unterminated sed \`${c}\` command`;
      const replacement = i;
      if (!delimited(d)) return `an unterminated sed \`${c}\` command`;
      loops.replacement(script.slice(replacement, i));
      if (c === 's') {
        while (i < n && /[gpiImM0-9ew]/.test(script[i]!)) {
          if (script[i] === 'w') return 'the `w` flag of sed `s` writes a file';
          if (script[i] === 'e') return 'the `e` flag of sed `s` runs the pattern space as a command';
          i++;
        }
      }
      continue;
    }
    if (c === 'w' || c === 'W') return `the sed command \`${c}\` writes a file`;
    if (c === 'e') return 'the sed command `e` runs a command';
    if (c === 'r' || c === 'R') return `the sed command \`${c}\` reads another file into the output`;
    if (c === ':') { loops.label(name()); continue; }
    if ('btT'.includes(c)) {
      const r = loops.branch(name());
      if (r) return r;
      continue;
    }
    loops.command(c, a, depth);
    if ('aic'.includes(c)) { while (i < n && script[i] !== '\n') i++; continue; }
    if ('qQlL'.includes(c)) { spaces(); while (i < n && /\d/.test(script[i]!)) i++; continue; }
    if ('pPdDnNgGhHxzF='.includes(c)) continue;
    return `the sed command \`${c}\` is not known to be read-only`;
  }
  return 'a sed program too complex to check';
}
