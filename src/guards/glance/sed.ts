// sed programs, checked by content: sed can write files (`w`, `W`, the `w` flag of `s`), run commands
// (`e`, the `e` flag of `s`) and read files (`r`, `R`) — a glance may use none of them.

/** Why `script` is not a read-only sed program, or null. Labels end at whitespace or `;` (GNU sed). */
export function sedProgram(script: string): string | null {
  let i = 0;
  const n = script.length;
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
    while (i < n && /[\s;}]/.test(script[i]!)) i++;
    if (i >= n) return null;
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
    if (c === '{') continue;
    if (c === 's' || c === 'y') {
      const d = script[i++];
      if (d === undefined || d === '\n' || d === '\\') return `a bad sed \`${c}\` command`;
      if (!delimited(d) || !delimited(d)) return `an unterminated sed \`${c}\` command`;
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
    if (':btT'.includes(c)) { spaces(); while (i < n && !/[\s;]/.test(script[i]!)) i++; continue; }
    if ('aic'.includes(c)) { while (i < n && script[i] !== '\n') i++; continue; }
    if ('qQlL'.includes(c)) { spaces(); while (i < n && /\d/.test(script[i]!)) i++; continue; }
    if ('pPdDnNgGhHxzF='.includes(c)) continue;
    return `the sed command \`${c}\` is not known to be read-only`;
  }
  return 'a sed program too complex to check';
}
