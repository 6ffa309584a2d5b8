/**
 * Scenario files: `{ "items": [...], "default"?: item, "onUnexpected"?: "default"|"error" }`
 * or a bare array of items. Validation is strict and names the item index and field, because a
 * typo in a script otherwise shows up much later as a puzzling answer from the model.
 */
import { readFile } from 'node:fs/promises';
import { SimError } from './errors.js';
import { fuzzModel, parseFuzzOptions } from './fuzz/model.js';
import type { OnUnexpected, Scenario, SimItem, SimItemFn, SimItemType, SimScriptItem } from './items.js';

export interface ParseOptions {
  /** Name used in messages (a file path, "enqueue", …). */
  source?: string;
  /** Accept functions (predicate matchers, computed items): library use only. */
  allowFunctions?: boolean;
}

interface Ctx {
  source: string;
  /** `items[3]`, `default`, … */
  where: string;
  index?: number;
  type?: string;
  allowFunctions: boolean;
}

type Check = (value: unknown, ctx: Ctx, field: string) => void;

const show = (v: unknown): string => {
  if (typeof v === 'function') return 'a function';
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 59)}…` : s;
};

function fail(ctx: Ctx, field: string | undefined, problem: string, got?: { value: unknown }): never {
  const what = `${ctx.where}${ctx.type ? ` (type "${ctx.type}")` : ''}`;
  const msg = `${ctx.source}: ${what}${field ? `: field "${field}"` : ''} ${problem}${got ? ` (got ${show(got.value)})` : ''}`;
  throw new SimError('sim-scenario-invalid', msg, { index: ctx.index, field });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const int =
  (min: number, max = Number.MAX_SAFE_INTEGER): Check =>
  (v, ctx, field) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      fail(ctx, field, max === Number.MAX_SAFE_INTEGER ? `must be an integer ≥ ${min}` : `must be an integer between ${min} and ${max}`, { value: v });
    }
  };
const str: Check = (v, ctx, field) => {
  if (typeof v !== 'string') fail(ctx, field, 'must be a string', { value: v });
};
const bool: Check = (v, ctx, field) => {
  if (typeof v !== 'boolean') fail(ctx, field, 'must be true or false', { value: v });
};
const oneOf =
  (...allowed: string[]): Check =>
  (v, ctx, field) => {
    if (typeof v !== 'string' || !allowed.includes(v)) fail(ctx, field, `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`, { value: v });
  };
const object: Check = (v, ctx, field) => {
  if (!isRecord(v)) fail(ctx, field, 'must be a JSON object', { value: v });
};
const anything: Check = () => {};
const headers: Check = (v, ctx, field) => {
  object(v, ctx, field);
  for (const [k, h] of Object.entries(v as Record<string, unknown>)) {
    if (typeof h !== 'string' && typeof h !== 'number') fail(ctx, `${field}.${k}`, 'must be a string or a number', { value: h });
  }
};
const USAGE_KEYS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'];
const usage: Check = (v, ctx, field) => {
  object(v, ctx, field);
  for (const [k, n] of Object.entries(v as Record<string, unknown>)) {
    if (!USAGE_KEYS.includes(k)) fail(ctx, `${field}.${k}`, `is not a usage field; use ${USAGE_KEYS.join(', ')}`);
    int(0)(n, ctx, `${field}.${k}`);
  }
};
const needle: Check = (v, ctx, field) => {
  const ok = typeof v === 'string' || (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string'));
  if (!ok) fail(ctx, field, 'must be a string or a non-empty array of strings', { value: v });
};
const MATCH_FIELDS: Record<string, Check> = {
  systemIncludes: needle,
  firstUserIncludes: needle,
  lastUserIncludes: needle,
  bodyIncludes: needle,
  toolsInclude: needle,
  not: (v, ctx, field) => match(v, ctx, field),
};
function match(v: unknown, ctx: Ctx, field: string): void {
  if (typeof v === 'function') {
    if (!ctx.allowFunctions) fail(ctx, field, 'is a function: predicates exist only in the library API, not in JSON');
    return;
  }
  if (!isRecord(v)) fail(ctx, field, `must be an object with ${Object.keys(MATCH_FIELDS).join(', ')}`, { value: v });
  for (const [k, x] of Object.entries(v)) {
    const check = MATCH_FIELDS[k];
    if (!check) fail(ctx, `${field}.${k}`, `is not a matcher; use ${Object.keys(MATCH_FIELDS).join(', ')}${hint(k, Object.keys(MATCH_FIELDS))}`);
    check(x, ctx, `${field}.${k}`);
  }
}
function hold(v: unknown, ctx: Ctx, field: string): void {
  if (typeof v !== 'function') fail(ctx, field, 'must be a function returning a promise');
  if (!ctx.allowFunctions) fail(ctx, field, 'is a function: a held answer exists only in the library API, not in JSON');
}
const tools: Check = (v, ctx, field) => {
  if (!Array.isArray(v) || v.length === 0) fail(ctx, field, 'must be a non-empty array of { name, input?, id? }', { value: v });
  v.forEach((t: unknown, i) => {
    const f = `${field}[${i}]`;
    if (!isRecord(t)) fail(ctx, f, 'must be an object { name, input?, id? }', { value: t });
    for (const k of Object.keys(t)) if (!['name', 'input', 'id'].includes(k)) fail(ctx, `${f}.${k}`, 'is not a tool call field; use name, input, id');
    str(t.name, ctx, `${f}.name`);
    if (t.input !== undefined) object(t.input, ctx, `${f}.input`);
    if (t.id !== undefined) str(t.id, ctx, `${f}.id`);
  });
};

const sseEvents: Check = (v, ctx, field) => {
  if (!Array.isArray(v) || v.length === 0) fail(ctx, field, 'must be a non-empty array of { event, data, delayMs? }', { value: v });
  v.forEach((e: unknown, i) => {
    const f = `${field}[${i}]`;
    if (!isRecord(e)) fail(ctx, f, 'must be an object { event, data, delayMs? }', { value: e });
    for (const k of Object.keys(e))
      if (!['event', 'data', 'delayMs'].includes(k)) fail(ctx, `${f}.${k}`, 'is not an SSE event field; use event, data, delayMs');
    str(e.event, ctx, `${f}.event`);
    if (typeof e.data !== 'string' && !isRecord(e.data)) fail(ctx, `${f}.data`, 'must be a JSON object or a string sent verbatim', { value: e.data });
    if (e.delayMs !== undefined) int(0)(e.delayMs, ctx, `${f}.delayMs`);
  });
};

const COMMON: Record<string, Check> = { delayMs: int(0), times: int(1), sticky: bool, match, label: str, holdStart: hold };
const ANSWER: Record<string, Check> = {
  usage,
  stop_reason: str,
  model: str,
  thinking: str,
  chunks: int(1),
  chunkDelayMs: int(0),
  holdEnd: hold,
};
const TOOL: Record<string, Check> = { name: str, input: object, id: str, tools, text: str };

const FIELDS: Record<SimItemType, Record<string, Check>> = {
  text: { ...COMMON, ...ANSWER, text: str },
  tool_use: { ...COMMON, ...ANSWER, ...TOOL },
  error: { ...COMMON, status: int(100, 599), errorType: str, message: str, headers },
  drop: COMMON,
  drop_mid: { ...COMMON, ...ANSWER, ...TOOL, afterEvents: int(0), stall: bool, as: oneOf('text', 'tool_use'), dropNonStreaming: bool },
  hang: COMMON,
  shutdown: COMMON,
  raw: { ...COMMON, status: int(100, 599), headers, body: anything },
  sse: { ...COMMON, events: sseEvents, chunkDelayMs: int(0), end: oneOf('close', 'drop'), message: object },
};
const TYPES = Object.keys(FIELDS) as SimItemType[];

/** ` — did you mean "x"?` for a near miss (case or one or two typos). */
function hint(word: string, candidates: readonly string[]): string {
  const distance = (a: string, b: string): number => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0]![j] = j;
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      }
    }
    return d[a.length]![b.length]!;
  };
  const best = candidates.map((c) => ({ c, d: c.toLowerCase() === word.toLowerCase() ? 0 : distance(word, c) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= 2 ? ` — did you mean "${best.c}"?` : '';
}

function checkItem(value: unknown, ctx: Ctx): SimScriptItem {
  if (typeof value === 'function') {
    if (!ctx.allowFunctions) fail(ctx, undefined, 'is a function: computed items exist only in the library API, not in JSON');
    return value as SimItemFn;
  }
  if (!isRecord(value)) fail(ctx, undefined, 'must be an object with a "type"', { value });
  const type = value.type;
  if (typeof type !== 'string' || !(TYPES as string[]).includes(type)) {
    fail(ctx, 'type', `must be one of ${TYPES.join(', ')}${typeof type === 'string' ? hint(type, TYPES) : ''}`, { value: type });
  }
  const c: Ctx = { ...ctx, type };
  const fields = FIELDS[type as SimItemType];
  for (const [k, v] of Object.entries(value)) {
    if (k === 'type') continue;
    const check = fields[k];
    if (!check) {
      const owners = TYPES.filter((t) => k in FIELDS[t]);
      const why = owners.length > 0 ? `only ${owners.join(', ')} items take it` : `allowed: ${Object.keys(fields).join(', ')}${hint(k, Object.keys(fields))}`;
      fail(c, k, `is unknown for a ${type} item; ${why}`);
    }
    if (v !== undefined) check(v, c, k);
  }
  if (value.times !== undefined && value.sticky !== undefined) fail(c, 'sticky', 'and "times" exclude each other: sticky means "never used up"');
  if (type === 'text' && value.text === undefined) fail(c, 'text', 'is required');
  if (type === 'sse' && value.events === undefined) fail(c, 'events', 'is required');
  const wantsTools = type === 'tool_use' || (type === 'drop_mid' && value.as === 'tool_use');
  if (wantsTools && (value.name === undefined) === (value.tools === undefined)) {
    fail(c, value.name === undefined ? 'name' : 'tools', 'give either "name" (+ "input") for one tool call or "tools" for parallel calls, not both or neither');
  }
  if (value.tools !== undefined && (value.input !== undefined || value.id !== undefined)) {
    fail(c, value.input !== undefined ? 'input' : 'id', 'belongs inside each entry of "tools" when "tools" is given');
  }
  return value as unknown as SimItem;
}

/** Validate one item (`where` and `index` only shape the error message). */
export function parseItem(value: unknown, index: number, options: ParseOptions = {}): SimScriptItem {
  return checkItem(value, { source: options.source ?? 'sim', where: `items[${index}]`, index, allowFunctions: options.allowFunctions ?? false });
}

/** Validate a batch of items (an array, or a single item). */
export function parseItems(value: unknown, options: ParseOptions = {}): SimScriptItem[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((v, i) => parseItem(v, i, options));
}

const SCENARIO_KEYS = ['items', 'default', 'fuzz', 'onUnexpected', 'description'];

/** Validate a scenario (object form or bare array). Throws `SimError` sim-scenario-invalid. */
export function parseScenario(value: unknown, options: ParseOptions = {}): Scenario {
  const source = options.source ?? 'scenario';
  const allowFunctions = options.allowFunctions ?? false;
  const top: Ctx = { source, where: 'scenario', allowFunctions };
  if (Array.isArray(value)) return { items: parseItems(value, { source, allowFunctions }) };
  if (!isRecord(value)) fail(top, undefined, 'must be an array of items or an object { "items": [...] }', { value });
  for (const k of Object.keys(value)) {
    if (!SCENARIO_KEYS.includes(k)) fail(top, k, `is unknown; allowed: ${SCENARIO_KEYS.join(', ')}${hint(k, SCENARIO_KEYS)}`);
  }
  if (!Array.isArray(value.items)) fail(top, 'items', 'must be an array of items', { value: value.items });
  if (value.description !== undefined) str(value.description, top, 'description');
  const scenario: Scenario = { items: parseItems(value.items, { source, allowFunctions }) };
  if (value.default !== undefined) {
    const item = checkItem(value.default, { source, where: 'default', allowFunctions });
    const extra = typeof item === 'function' ? undefined : (['match', 'times', 'sticky'] as const).find((k) => item[k] !== undefined);
    if (extra) {
      fail({ ...top, where: 'default' }, extra, 'is meaningless on the default item: it answers whatever nothing else matched and is never used up');
    }
    scenario.default = item;
  }
  if (value.fuzz !== undefined) {
    // the fuzzing model answers what the queue does not: `flower sim --script fuzz.json` fuzzes any workflow
    if (value.default !== undefined) fail(top, 'fuzz', 'and "default" exclude each other: the fuzzing model is the default answer');
    scenario.default = fuzzModel(parseFuzzOptions(value.fuzz, `${source}: fuzz`));
  }
  if (value.onUnexpected !== undefined) {
    oneOf('default', 'error')(value.onUnexpected, top, 'onUnexpected');
    scenario.onUnexpected = value.onUnexpected as OnUnexpected;
  }
  return scenario;
}

/** Read and validate a scenario file. */
export async function loadScenario(file: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new SimError('sim-scenario-read', `flower sim: cannot read scenario ${file}: ${(err as Error).message}`, { file, cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SimError('sim-scenario-read', `flower sim: scenario ${file} is not valid JSON: ${(err as Error).message}`, { file, cause: err });
  }
  try {
    return parseScenario(json, { source: file });
  } catch (err) {
    if (err instanceof SimError) throw new SimError(err.code, err.message, { index: err.index, field: err.field, file, cause: err.cause });
    throw err;
  }
}
