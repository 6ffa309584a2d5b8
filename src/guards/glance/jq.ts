// jq filters, checked by content: `env` and `$ENV` read the environment (the API key lives there),
// `import`/`include` load modules from disk, `input_filename` and `$__loc__` are harmless but
// `get_search_list`/`modulemeta` reach for module files. Strings are skipped as jq reads them, except
// that `\(…)` interpolation inside a string is code and is checked too.

const FORBIDDEN: Readonly<Record<string, string>> = {
  env: 'reads the environment, which can hold secrets',
  $ENV: 'reads the environment, which can hold secrets',
  import: 'loads a module from disk',
  include: 'loads a module from disk',
  modulemeta: 'reads module files',
  get_search_list: 'reads the module search path',
  $__prog_args: 'is internal',
};

/** Why `filter` is not a safe jq program, or null. */
export function jqProgram(filter: string): string | null {
  // drop string bodies but keep interpolations: "a\(env.X)b" → ( env.X )
  let code = '';
  for (let i = 0; i < filter.length; i++) {
    const c = filter[i]!;
    if (c === '#') { while (i < filter.length && filter[i] !== '\n') i++; continue; }
    if (c !== '"') { code += c; continue; }
    let j = i + 1;
    for (; j < filter.length && filter[j] !== '"'; j++) {
      if (filter[j] === '\\' && filter[j + 1] === '(') {
        // an interpolation: copy up to its balancing parenthesis (strings nested in it refuse, conservatively)
        let depth = 0;
        let k = j + 1;
        for (; k < filter.length; k++) {
          if (filter[k] === '"') return 'a jq string nested inside an interpolation cannot be checked';
          if (filter[k] === '(') depth++;
          if (filter[k] === ')' && --depth === 0) break;
        }
        code += ` ${filter.slice(j + 1, k + 1)} `;
        j = k;
      } else if (filter[j] === '\\') j++;
    }
    if (j >= filter.length) return 'an unterminated jq string';
    code += ' "" ';
    i = j;
  }
  for (const m of code.matchAll(/\$?[A-Za-z_][A-Za-z0-9_]*/g)) {
    const name = m[0];
    // `.env` is a field access on the input, not the builtin
    const before = code[m.index! - 1];
    if (before === '.' && name[0] !== '$') continue;
    if (Object.hasOwn(FORBIDDEN, name)) return `jq \`${name}\` ${FORBIDDEN[name]}`;
  }
  return null;
}
