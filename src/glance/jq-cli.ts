// jq's command line, parsed as jq parses it (not getopt): `--arg NAME VALUE` and `--argjson NAME TEXT`
// take TWO words, `--slurpfile NAME FILE` and `--rawfile NAME FILE` two as well (FILE is read, so it is
// a path to check), `--args`/`--jsonargs` make every later positional a value instead of an input file,
// long options are never abbreviated, short flags cluster (`-nr`), options may follow the filter, and
// `--` ends options. An audit found `jq --arg a b env` let through: the old getopt table gave `--arg`
// one value, so `b` looked like the filter and the real filter, `env`, like a file.
import type { Word } from './lexer.js';
import { Budget } from './budget.js';
import { jqProgram } from './jq.js';
import { dispatch, type CustomResult } from './rule.js';

const FLAGS = new Set([
  'null-input',
  'raw-output',
  'raw-output0',
  'join-output',
  'ascii-output',
  'compact-output',
  'slurp',
  'sort-keys',
  'color-output',
  'monochrome-output',
  'exit-status',
  'raw-input',
  'tab',
  'seq',
  'stream',
  'stream-errors',
  'unbuffered',
  'help',
  'version',
  'build-configuration',
]);
const SHORT_FLAGS = new Set(['n', 'r', 'j', 'a', 'c', 's', 'S', 'C', 'M', 'e', 'R', 'h', 'V']);
/** options and the number of words they take; `file`: the second one is a file jq reads */
const VALUED: Readonly<Record<string, { n: number; file?: boolean }>> = {
  indent: { n: 1 },
  arg: { n: 2 },
  argjson: { n: 2 },
  slurpfile: { n: 2, file: true },
  rawfile: { n: 2, file: true },
  argfile: { n: 2, file: true },
};
const REFUSED: Readonly<Record<string, string>> = {
  f: 'reads its program from a file the classifier cannot see',
  'from-file': 'reads its program from a file the classifier cannot see',
  L: 'loads modules from disk',
  'library-path': 'loads modules from disk',
  'debug-dump-disasm': 'is a debugging option',
  'debug-trace': 'is a debugging option',
};

/** Why `jq ARGS` is not a glance, or its input files and whether it reads standard input. */
export function jqCommand(args: readonly Word[], budget: Budget = new Budget()): CustomResult {
  let filter: Word | undefined;
  const files: Word[] = [];
  const bound: Word[] = [];
  let values = false;
  let nullInput = false;
  let done = false;
  for (let i = 0; i < args.length; i++) {
    budget.spend();
    const w = args[i]!;
    const a = w.text;
    if (!done && a === '--') {
      done = true;
      continue;
    }
    if (!done && a.startsWith('--')) {
      const name = a.slice(2);
      if (Object.hasOwn(REFUSED, name)) return `jq \`${a}\` ${REFUSED[name]}; ${dispatch}`;
      if (name === 'args' || name === 'jsonargs') {
        values = true;
        continue;
      }
      if (name === 'help' || name === 'version' || name === 'build-configuration') return { paths: [], stdin: false };
      if (name === 'null-input') nullInput = true;
      if (FLAGS.has(name)) continue;
      const v = Object.hasOwn(VALUED, name) ? VALUED[name]! : undefined;
      if (!v) return `jq \`${a}\` is not an option a glance may use (jq takes long options only in full); ${dispatch}`;
      if (i + v.n >= args.length) return `jq \`${a}\` takes ${v.n} value${v.n > 1 ? 's' : ''}`;
      if (v.file) bound.push(args[i + 2]!);
      i += v.n;
      continue;
    }
    if (!done && a.startsWith('-') && a.length > 1) {
      for (const ch of a.slice(1)) {
        if (Object.hasOwn(REFUSED, ch)) return `jq \`-${ch}\`${a.length > 2 ? ` (in \`${a}\`)` : ''} ${REFUSED[ch]}; ${dispatch}`;
        if (!SHORT_FLAGS.has(ch)) return `jq \`-${ch}\` is not an option a glance may use; ${dispatch}`;
        if (ch === 'n') nullInput = true;
      }
      continue;
    }
    if (filter === undefined) filter = w;
    else if (!values) files.push(w);
  }
  if (filter === undefined) return `jq without a filter; ${dispatch}`;
  const r = jqProgram(filter.text, budget);
  if (r) return `${r}; ${dispatch}`;
  // without a file and without -n jq reads standard input
  return { paths: [...files, ...bound], stdin: (!nullInput && files.length === 0) || files.some((f) => f.text === '-') };
}
