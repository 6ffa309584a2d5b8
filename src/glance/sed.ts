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

  label(name: string): void {
    this.labels.set(name, this.reads);
  }

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

  replacement(r: string): void {
    if (r.includes('\\n') || r.includes('\n')) this.refills = true;
  }

  end(): string | null {
    return this.restarts && this.refills ? 'sed `D` with `G`/`H`/`g`/`x` or a newline put back by `s` can restart its cycle forever' : null;
  }
}

/** What one step of the scan decides: read on, or the program's verdict (why it is refused, or null). */
type Next = 'more' | { readonly verdict: string | null };
const verdict = (reason: string | null): Next => ({ verdict: reason });

/** The addresses before a command: whether there were any, or why they are malformed. */
type Addressed = { readonly ok: true; readonly addressed: boolean } | { readonly ok: false; readonly reason: string };

/** Why `script` is not a read-only sed program, or null. Labels end at whitespace or `;` (GNU sed). */
export function sedProgram(script: string, budget: Budget = new Budget()): string | null {
  const scan = new SedScan(script);
  // a backstop: every step reads at least one character, so a script ends within n + 2 steps
  for (let guard = 0; guard <= script.length + 1; guard++) {
    budget.spend();
    const next = scan.step();
    if (next !== 'more') return next.verdict;
  }
  return 'a sed program too complex to check';
}

/** A walk over a sed script, one command per `step`; `i` is the next character to read. */
class SedScan {
  private i = 0;
  private readonly n: number;
  private depth = 0;
  private readonly loops = new Loops();

  constructor(private readonly script: string) {
    this.n = script.length;
  }

  /** Reads the separators, comment or addressed command at i. */
  step(): Next {
    const { script, n } = this;
    while (this.i < n && /[\s;}]/.test(script[this.i]!)) {
      if (script[this.i] === '}') this.depth--;
      this.i++;
    }
    if (this.i >= n) return verdict(this.loops.end());
    if (script[this.i] === '#') {
      while (this.i < n && script[this.i] !== '\n') this.i++;
      return 'more';
    }
    const a = this.addresses();
    if (!a.ok) return verdict(a.reason);
    this.spaces();
    while (script[this.i] === '!') {
      this.i++;
      this.spaces();
    }
    const c = script[this.i++];
    if (c === undefined) return verdict('a sed address without a command');
    return this.command(c, a.addressed);
  }

  /** One command letter `c` (already read), with whatever argument it takes. */
  private command(c: string, addressed: boolean): Next {
    if (c === '{') {
      this.depth++;
      return 'more';
    }
    if (c === 's' || c === 'y') return this.substitution(c);
    if (c === 'w' || c === 'W') return verdict(`the sed command \`${c}\` writes a file`);
    if (c === 'e') return verdict('the sed command `e` runs a command');
    if (c === 'r' || c === 'R') return verdict(`the sed command \`${c}\` reads another file into the output`);
    if (c === ':') {
      this.loops.label(this.name());
      return 'more';
    }
    if ('btT'.includes(c)) {
      const r = this.loops.branch(this.name());
      return r ? verdict(r) : 'more';
    }
    this.loops.command(c, addressed, this.depth);
    if ('aic'.includes(c)) {
      this.restOfLine();
      return 'more';
    }
    if ('qQlL'.includes(c)) {
      this.spaces();
      this.digits();
      return 'more';
    }
    if ('pPdDnNgGhHxzF='.includes(c)) return 'more';
    return verdict(`the sed command \`${c}\` is not known to be read-only`);
  }

  /** `s` or `y` (already read): two delimited parts, and for `s` its flags. */
  private substitution(c: 's' | 'y'): Next {
    const { script, n } = this;
    const d = script[this.i++];
    if (d === undefined || d === '\n' || d === '\\') return verdict(`a bad sed \`${c}\` command`);
    if (!this.delimited(d)) return verdict(`an unterminated sed \`${c}\` command`);
    const replacement = this.i;
    if (!this.delimited(d)) return verdict(`an unterminated sed \`${c}\` command`);
    this.loops.replacement(script.slice(replacement, this.i));
    if (c === 's') {
      while (this.i < n && /[gpiImM0-9ew]/.test(script[this.i]!)) {
        if (script[this.i] === 'w') return verdict('the `w` flag of sed `s` writes a file');
        if (script[this.i] === 'e') return verdict('the `e` flag of sed `s` runs the pattern space as a command');
        this.i++;
      }
    }
    return 'more';
  }

  /** An address, optionally followed by `,` and a second one (or `+N`, `~N`). */
  private addresses(): Addressed {
    const a = this.address();
    if (a === null) return { ok: false, reason: 'an unterminated sed address' };
    if (a) {
      this.spaces();
      if (this.script[this.i] === ',') {
        this.i++;
        this.spaces();
        if (this.script[this.i] === '+' || this.script[this.i] === '~') {
          this.i++;
          this.digits();
        } else if (this.address() !== true) return { ok: false, reason: 'a bad sed address range' };
      }
    }
    return { ok: true, addressed: a };
  }

  /** One address: true when read, false when none starts at i, null when it is unterminated. */
  private address(): boolean | null {
    const { script, n } = this;
    const c = script[this.i];
    if (c !== undefined && /\d/.test(c)) {
      while (this.i < n && /[\d~]/.test(script[this.i]!)) this.i++;
      return true;
    }
    if (c === '$') {
      this.i++;
      return true;
    }
    if (c === '/' || c === '\\') {
      const d = c === '/' ? '/' : script[this.i + 1];
      this.i += c === '/' ? 1 : 2;
      if (d === undefined || !this.delimited(d)) return null;
      while (this.i < n && /[IM]/.test(script[this.i]!)) this.i++;
      return true;
    }
    return false;
  }

  /** Skips past the next unescaped `d`; false when the script (or, for `d` not a newline, the line) ends first. */
  private delimited(d: string): boolean {
    const { script, n } = this;
    while (this.i < n && script[this.i] !== d) {
      if (script[this.i] === '\n' && d !== '\n') return false;
      this.i += script[this.i] === '\\' ? 2 : 1;
    }
    if (this.i >= n) return false;
    this.i++;
    return true;
  }

  /** A label after `:`, `b`, `t` or `T`. */
  private name(): string {
    this.spaces();
    const from = this.i;
    while (this.i < this.n && !/[\s;]/.test(this.script[this.i]!)) this.i++;
    return this.script.slice(from, this.i);
  }

  private spaces(): void {
    while (this.i < this.n && (this.script[this.i] === ' ' || this.script[this.i] === '\t')) this.i++;
  }
  private digits(): void {
    while (this.i < this.n && /\d/.test(this.script[this.i]!)) this.i++;
  }
  private restOfLine(): void {
    while (this.i < this.n && this.script[this.i] !== '\n') this.i++;
  }
}
