/**
 * `fuzzModel({ seed })`: a scripted model that answers every request with the plausible turn for the
 * role it sees — or, with probability `rate`, that turn spoiled by a fault from the catalogue.
 *
 * Stateless on purpose: the choice for a request is a function of the seed and the request's
 * fingerprint (role, message count, the harness's retry count, stream or not, and hashes of the
 * first user text and of the whole conversation, with paths and numbers taken out). Concurrent subagents, a killed run
 * continued later, or a harness retry all get the same answer for the same request, so a seed
 * replays a run; a retry (its retry count differs) draws anew, as a transient fault would.
 */
import { SimError } from '../errors.js';
import type { SimCall, SimItem, SimItemFn } from '../items.js';
import { contentText, summarizeItem } from '../match.js';
import { DEFAULT_LIMITS, FAULTS, planItem, type FuzzLimits } from './faults.js';
import { FAULT_KINDS, FUZZ_ROLES, type FaultKind, type FuzzOptions, type FuzzRole } from './options.js';
import { messageCount, retryCount, roleOf, stableText } from './read.js';
import { Draw, shortHash } from './rng.js';
import { plausible, turnContext } from './turns.js';

/** What the model chose for one request. */
export interface FuzzDecision {
  /** The sim's request number (arrival order; not part of the choice). */
  n: number;
  role: FuzzRole;
  fingerprint: string;
  fault: FaultKind | null;
  variant: string | null;
  /** What the plausible turn does (`submit_brief`, `Write md2html.mjs`, `report`, …). */
  what: string;
  /** One line describing the item served. */
  item: string;
}

export type FuzzModel = SimItemFn & {
  readonly options: Readonly<FuzzOptions>;
  /** Every decision since creation (or since `trace.length = 0`), in arrival order. */
  readonly trace: FuzzDecision[];
};

interface Resolved {
  seed: string;
  rate: number;
  weights: Record<FaultKind, number>;
  roles: ReadonlySet<FuzzRole>;
  artifact?: string;
  limits: FuzzLimits;
}

function resolve(o: FuzzOptions): Resolved {
  const only = o.only === undefined ? null : new Set<string>(typeof o.only === 'string' ? [o.only] : o.only);
  const weights = Object.fromEntries(FAULT_KINDS.map((k) => [k, only && !only.has(k) ? 0 : (o.weights?.[k] ?? FAULTS[k].weight)])) as Record<FaultKind, number>;
  return {
    seed: String(o.seed),
    rate: o.rate ?? 0.25,
    weights,
    roles: new Set(o.roles ?? FUZZ_ROLES),
    ...(o.artifact ? { artifact: o.artifact } : {}),
    limits: { maxDelayMs: o.maxDelayMs ?? DEFAULT_LIMITS.maxDelayMs, hugeBytes: o.hugeBytes ?? DEFAULT_LIMITS.hugeBytes },
  };
}

/** The request's identity for the draws: everything that tells requests apart and stays the same across replays. */
export function fingerprintOf(call: SimCall, role: FuzzRole = roleOf(call)): string {
  // the whole conversation, not only its last message: the harness folds a resume prompt into an
  // earlier message and repeats the same last one, and that retry must not meet the same fault
  // with each message's blocks in a fixed order: parallel tools report back in the order they finish
  const blocksText = (c: unknown): string =>
    Array.isArray(c)
      ? c
          .map((b) => contentText([b]))
          .sort()
          .join('\n')
      : contentText(c);
  const all = (Array.isArray(call.body.messages) ? call.body.messages : []).map((m) => blocksText(m?.content)).join('\n');
  return [
    role,
    `m${messageCount(call)}`,
    `r${retryCount(call)}`,
    call.stream ? 's' : 'j',
    `f${shortHash(stableText(call.firstUser))}`,
    `c${shortHash(stableText(all))}`,
  ].join('|');
}

function decideResolved(call: SimCall, r: Resolved): { item: SimItem; decision: FuzzDecision } {
  const role = roleOf(call);
  const fingerprint = fingerprintOf(call, role);
  // the way of working stays fixed for a conversation; the faults are drawn per request
  const ctx = turnContext(call, role, new Draw(`${r.seed}|plan|${role}|${shortHash(stableText(call.firstUser))}`), r.artifact);
  const plan = plausible(ctx);
  const draw = new Draw(`${r.seed}|fault|${fingerprint}`);
  let fault: FaultKind | null = null;
  let variant: string | null = null;
  let item: SimItem = planItem(plan);
  const stuckOn = r.roles.has(role) ? conversationFault(r, `${role}|${shortHash(stableText(call.firstUser))}`) : null;
  if (stuckOn && (FAULTS[stuckOn].applies?.({ ctx, plan }) ?? true)) {
    fault = stuckOn;
    ({ item, variant } = FAULTS[stuckOn].make({ ctx, plan, draw, limits: r.limits }));
  } else if (r.roles.has(role) && draw.chance(r.rate)) {
    const open: Partial<Record<FaultKind, number>> = Object.fromEntries(
      FAULT_KINDS.filter((k) => {
        const spec = FAULTS[k];
        return !spec.conversation && !(spec.streamOnly && !call.stream) && (spec.applies?.({ ctx, plan }) ?? true);
      }).map((k) => [k, r.weights[k]]),
    );
    fault = draw.weighted(open);
    if (fault) ({ item, variant } = FAULTS[fault].make({ ctx, plan, draw, limits: r.limits }));
  }
  return { item, decision: { n: call.n, role, fingerprint, fault, variant, what: plan.what, item: summarizeItem(item) } };
}

/** The conversation-wide fault a conversation falls on, if any: drawn from its identity, the same on every request. */
function conversationFault(r: Resolved, conversation: string): FaultKind | null {
  const total = FAULT_KINDS.reduce((s, k) => s + r.weights[k], 0);
  if (total <= 0) return null;
  const draw = new Draw(`${r.seed}|conversation|${conversation}`);
  for (const k of FAULT_KINDS) {
    if (!FAULTS[k].conversation || r.weights[k] <= 0) continue;
    if (draw.chance((r.rate * r.weights[k]) / total)) return k;
  }
  return null;
}

/** The item and the decision for one request (pure: the same call and options give the same answer). */
export function decide(call: SimCall, options: FuzzOptions): { item: SimItem; decision: FuzzDecision } {
  return decideResolved(call, resolve(parseFuzzOptions(options)));
}

/**
 * A computed item for `startSim({ defaultItem: fuzzModel({ seed: 7 }) })`.
 * @example
 * const model = fuzzModel({ seed: 42, only: 'drop_mid', rate: 0.5 });
 * const sim = await startSim({ defaultItem: model });
 * // … run flower against sim.url …
 * model.trace.filter((d) => d.fault);   // what was spoiled, request by request
 */
export function fuzzModel(options: FuzzOptions): FuzzModel {
  const checked = parseFuzzOptions(options);
  const r = resolve(checked);
  const trace: FuzzDecision[] = [];
  const fn = (call: SimCall): SimItem => {
    const { item, decision } = decideResolved(call, r);
    trace.push(decision);
    return item;
  };
  return Object.assign(fn, { options: Object.freeze({ ...checked }), trace });
}

const OPTION_KEYS = ['seed', 'rate', 'weights', 'only', 'roles', 'artifact', 'maxDelayMs', 'hugeBytes'];
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validate fuzz options (from JSON or code); throws SimError sim-scenario-invalid naming the field. */
export function parseFuzzOptions(v: unknown, source = 'fuzz options'): FuzzOptions {
  const bad = (field: string, problem: string): never => {
    throw new SimError('sim-scenario-invalid', `${source}: field "${field}" ${problem}`, { field });
  };
  if (!isRecord(v)) return bad('(options)', 'must be an object { seed, rate?, weights?, only?, roles?, artifact?, maxDelayMs?, hugeBytes? }');
  for (const k of Object.keys(v)) if (!OPTION_KEYS.includes(k)) bad(k, `is unknown; allowed: ${OPTION_KEYS.join(', ')}`);
  if (typeof v.seed !== 'string' && !(typeof v.seed === 'number' && Number.isFinite(v.seed))) bad('seed', 'must be a number or a string');
  if (v.rate !== undefined && !(typeof v.rate === 'number' && v.rate >= 0 && v.rate <= 1)) bad('rate', 'must be a number between 0 and 1');
  const isKind = (k: unknown): k is FaultKind => typeof k === 'string' && (FAULT_KINDS as readonly string[]).includes(k);
  if (v.weights !== undefined) {
    if (!isRecord(v.weights)) bad('weights', 'must be an object { kind: weight }');
    for (const [k, w] of Object.entries(v.weights as Record<string, unknown>)) {
      if (!isKind(k)) bad(`weights.${k}`, `is not a fault kind; use ${FAULT_KINDS.join(', ')}`);
      if (!(typeof w === 'number' && w >= 0 && Number.isFinite(w))) bad(`weights.${k}`, 'must be a number ≥ 0');
    }
  }
  if (v.only !== undefined) {
    const list = typeof v.only === 'string' ? [v.only] : v.only;
    if (!Array.isArray(list) || list.length === 0 || !list.every(isKind))
      bad('only', `must be a fault kind or a non-empty array of them: ${FAULT_KINDS.join(', ')}`);
  }
  if (v.roles !== undefined && !(Array.isArray(v.roles) && v.roles.every((x) => (FUZZ_ROLES as readonly unknown[]).includes(x))))
    bad('roles', `must be an array of ${FUZZ_ROLES.join(', ')}`);
  if (v.artifact !== undefined && (typeof v.artifact !== 'string' || v.artifact.trim() === '')) bad('artifact', 'must be a file name');
  if (v.maxDelayMs !== undefined && !(Number.isInteger(v.maxDelayMs) && (v.maxDelayMs as number) >= 0 && (v.maxDelayMs as number) <= 600_000))
    bad('maxDelayMs', 'must be an integer between 0 and 600000');
  if (v.hugeBytes !== undefined) {
    const h = v.hugeBytes;
    if (!(Array.isArray(h) && h.length === 2 && h.every((x) => Number.isInteger(x) && x > 0) && h[0] <= h[1]))
      bad('hugeBytes', 'must be [min, max] byte counts, min ≤ max');
  }
  return v as unknown as FuzzOptions;
}
