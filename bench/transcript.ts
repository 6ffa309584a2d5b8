// The synthetic transcript the store and views benches measure: entries shaped like the real binary's
// (docs/sdk-facts.md §4.1–4.2, test/fixtures/transcripts/*.jsonl), ~500 B – 2 KB each, deterministic per seed.
// With `views: true` it also carries what the resume views act on (glance commands, large old results,
// denials, API-error debris), so the views bench measures real work rather than a pass-through.
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';

export const SID = '3de11357-4ff6-4d6a-8913-b31fac588d3c';
export const KEY: SessionKey = { projectKey: '-home-me-proj', sessionId: SID };

export interface TranscriptOptions {
  /** add view targets (default false: the plain mix bench/store.ts has always measured) */
  views?: boolean;
  seed?: number;
}

/** How many of each view target the transcript holds (all 0 without `views`). */
export interface ViewTargets {
  glances: number;
  large: number;
  denials: number;
  apiErrors: number;
}

export interface Transcript {
  entries: SessionStoreEntry[];
  targets: ViewTargets;
}

/** mulberry32: Math.imul keeps the arithmetic in 32 bits (a float LCG cycled after ~20k uuids). */
function prng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'the of build test file error run store load append session query result context token agent'.split(' ');
// read-only commands: the glance guard's predicate (isEphemeral) accepts every one, so expire acts on them
const GLANCES = ['git status', 'ls -la', 'git diff --stat', 'git log --oneline -5', 'pwd', 'wc -l src/index.ts', 'cat README.md'];
const WRITES = ['rm -rf build', 'echo hi > marker.txt', 'touch marker2.txt'];
const DENIED = 'Denied by policy: no shell writes';
const USAGE = { input_tokens: 7, cache_creation_input_tokens: 300, cache_read_input_tokens: 21000, output_tokens: 25, service_tier: 'standard' };

/** `n` entries in append order, every parentUuid pointing at the previous chained entry. */
export function makeTranscript(n: number, opts: TranscriptOptions = {}): Transcript {
  const rnd = prng(opts.seed ?? 42);
  const text = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
  const hex = (k: number) => Array.from({ length: k }, () => Math.floor(rnd() * 16).toString(16)).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  const common = (parentUuid: string | null) => ({
    parentUuid,
    isSidechain: false,
    userType: 'external',
    entrypoint: 'sdk-ts',
    cwd: '/home/me/proj',
    sessionId: SID,
    version: '2.1.332',
    gitBranch: 'main',
    timestamp: new Date(1_780_000_000_000 + Math.floor(rnd() * 1e9)).toISOString(),
  });

  const cycles = Math.ceil(n / 10);
  // spread a fixed handful of rare events over the whole session (a few denials, a couple of outages)
  const every = (count: number, offset: number) => (c: number) => opts.views === true && c % Math.max(1, Math.floor(cycles / count)) === offset;
  const deniedCycle = every(12, 7);
  const apiErrorCycle = every(3, 11);

  const targets: ViewTargets = { glances: 0, large: 0, denials: 0, apiErrors: 0 };
  const out: SessionStoreEntry[] = [];
  let parent: string | null = null;
  let pending: { id: string; kind: 'plain' | 'glance' | 'large' | 'denied' } | undefined;
  while (out.length < n) {
    const k = out.length % 10;
    const c = Math.floor(out.length / 10);
    const id = uuid();
    if (k === 0) {
      out.push({
        ...common(parent),
        type: 'user',
        uuid: id,
        promptId: uuid(),
        permissionMode: 'default',
        promptSource: 'sdk',
        message: { role: 'user', content: [{ type: 'text', text: text(40 + Math.floor(rnd() * 150)) }] },
      });
    } else if (k === 6 && apiErrorCycle(c)) {
      out.push({
        ...common(parent),
        type: 'system',
        subtype: 'api_error',
        level: 'error',
        uuid: id,
        error: { message: '500 {"type":"error","error":{"type":"api_error","message":"overloaded"}}', status: 500, formatted: '500 overloaded' },
        retryInMs: 530,
        retryAttempt: 1,
        maxRetries: 1,
        source: 'request_retry',
      });
    } else if (k === 1 || k === 6) {
      out.push({
        ...common(parent),
        type: 'attachment',
        uuid: id,
        attachment: { type: 'total_tokens_reminder', tokens: Math.floor(rnd() * 1e5) },
        rendered: [{ content: `<system-reminder>${text(30 + Math.floor(rnd() * 60))}</system-reminder>` }],
        renderedRole: 'user',
      });
    } else if (k === 7 && apiErrorCycle(c)) {
      targets.apiErrors++;
      out.push({
        ...common(parent),
        type: 'assistant',
        uuid: id,
        requestId: `req_${hex(24)}`,
        error: 'server_error',
        isApiErrorMessage: true,
        apiErrorStatus: 500,
        apiErrorType: 'api_error',
        madeBy: 'model',
        message: {
          id: uuid(),
          type: 'message',
          role: 'assistant',
          model: '<synthetic>',
          stop_reason: 'stop_sequence',
          stop_sequence: '',
          content: [{ type: 'text', text: 'API Error: 500 overloaded. This is a server-side issue, usually temporary — try again in a moment.' }],
          usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      });
    } else if (k === 2 || k === 4 || k === 7) {
      const tool = k !== 7;
      let command = text(8);
      if (tool) {
        const r = rnd();
        const kind = k === 4 && deniedCycle(c) ? 'denied' : opts.views && r < 0.02 ? 'large' : opts.views && r < 0.32 ? 'glance' : 'plain';
        if (kind === 'denied') command = WRITES[c % WRITES.length]!;
        else if (kind === 'glance' || (kind === 'large' && r < 0.01)) command = GLANCES[Math.floor(rnd() * GLANCES.length)]!;
        pending = { id: `toolu_${hex(24)}`, kind };
      }
      out.push({
        ...common(parent),
        type: 'assistant',
        uuid: id,
        requestId: `req_${hex(24)}`,
        apiBlockIndex: 0,
        promptCacheRequested: '5m',
        madeBy: 'model',
        message: {
          id: `msg_${hex(24)}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: tool
            ? [{ type: 'tool_use', id: pending!.id, name: 'Bash', input: { command, description: text(6) } }]
            : [{ type: 'text', text: text(20 + Math.floor(rnd() * 120)) }],
          stop_reason: tool ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: USAGE,
        },
      });
    } else if (k === 3 || k === 5) {
      const call = pending ?? { id: `toolu_${hex(24)}`, kind: 'plain' as const };
      pending = undefined;
      if (call.kind === 'denied') {
        targets.denials++;
        out.push({
          ...common(parent),
          type: 'user',
          uuid: id,
          sourceToolAssistantUUID: parent,
          message: { role: 'user', content: [{ type: 'tool_result', content: DENIED, is_error: true, tool_use_id: call.id }] },
          toolUseResult: `Error: ${DENIED}`,
          toolDenialKind: 'permission-rule',
          holdsPersonsWords: true,
          permissionDecision: { decision: 'reject', source: 'user_reject', reasonCode: 'unknown' },
        });
      } else {
        if (call.kind === 'glance') targets.glances++;
        if (call.kind === 'large') targets.large++;
        const body = call.kind === 'large' ? text(400 + Math.floor(rnd() * 600)) : text(40 + Math.floor(rnd() * 180));
        out.push({
          ...common(parent),
          type: 'user',
          uuid: id,
          sourceToolAssistantUUID: parent,
          message: { role: 'user', content: [{ tool_use_id: call.id, type: 'tool_result', content: body, is_error: false }] },
          toolUseResult: { stdout: body, stderr: '', interrupted: false, isImage: false },
          permissionDecision: { decision: 'accept', source: 'config', reasonType: 'rule', ruleSource: 'cliArg' },
        });
      }
    } else if (k === 8) {
      out.push({ type: 'last-prompt', lastPrompt: text(12), leafUuid: parent, sessionId: SID });
    } else {
      out.push({ type: 'queue-operation', operation: 'enqueue', timestamp: new Date(1_780_000_000_000 + c).toISOString(), sessionId: SID });
    }
    const last = out[out.length - 1]!;
    if (typeof last.uuid === 'string') parent = last.uuid;
  }
  const uuids = out.map((e) => e.uuid).filter((u) => u !== undefined);
  if (new Set(uuids).size !== uuids.length) throw new Error('generated transcript has duplicate uuids: check the PRNG');
  return { entries: out, targets };
}
