// The `claude` child as bench/phases.ts sees it: every spawn of the binary is watched (child_process.spawn
// wrapped, so the SDK's own spawn and flower's are both seen), and what crosses its control channel is
// timed — the initialize answer, system/init, the result, each hook callback and flower's answer, each
// tool call from its assistant message to its result — with the child's CPU and, with PHASES_DEBUG=1, the
// binary's own per-call timings from its --debug-file.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import { median } from './measure.js';

export type Phases = Record<string, number>;

export const now = (): number => performance.timeOrigin + performance.now();

/** What one run's child did, in epoch ms (the sim's request log uses Date.now()). */
export interface Probe {
  t0: number;
  spawn?: number;
  initialized?: number;
  sysInit?: number;
  result?: number;
  exit?: number;
  end?: number;
  lines: Map<string, number>;
  bytesOut: number;
  bytesIn: number;
  /** ms from a hook_callback request on the child's stdout to flower's answer on its stdin */
  hookMs: number[];
  pendingHooks: Map<string, number>;
  /** per tool call, as the control channel shows it: the assistant message → (the hook asked → answered) → the tool's result */
  turn: { assistant?: number; asked?: number; answered?: number };
  toolTurns: Array<{ toHook?: number; afterAnswer?: number; toResult: number }>;
  initRequest?: string;
  /** the child's CPU ms (its own and its reaped children's: bash, bwrap) when its result came */
  childCpu?: number | undefined;
  pid?: number | undefined;
  /** the binary's --debug-file (PHASES_DEBUG=1), read for its per-call timings */
  debugFile?: string | undefined;
}

let probe: Probe | undefined;

/** Watch the next spawn of the binary (undefined: stop watching). */
export function watchNext(p: Probe | undefined): void {
  probe = p;
}

function lineKey(m: Record<string, unknown>): string {
  const req = m.request as Record<string, unknown> | undefined;
  const ev = m.event as Record<string, unknown> | undefined;
  const sub = m.subtype ?? req?.subtype ?? ev?.type ?? '';
  return `${String(m.type)}${sub ? `/${String(sub)}` : ''}`;
}

function onChildLine(p: Probe, line: string): void {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  const k = lineKey(m);
  p.lines.set(k, (p.lines.get(k) ?? 0) + 1);
  if (k === 'system/init') p.sysInit ??= now();
  if (m.type === 'result' && p.result === undefined) {
    p.result = now();
    p.childCpu = procCpu(p.pid);
  }
  const resp = m.response as Record<string, unknown> | undefined;
  if (m.type === 'control_response' && resp?.request_id === p.initRequest) p.initialized ??= now();
  if (k === 'control_request/hook_callback') {
    p.pendingHooks.set(String(m.request_id), now());
    if (p.turn.assistant !== undefined && p.turn.asked === undefined) p.turn.asked = now();
  }
  if (m.type === 'assistant' && m.parent_tool_use_id == null && JSON.stringify(m.message ?? {}).includes('"tool_use"')) p.turn = { assistant: now() };
  if (m.type === 'user' && p.turn.assistant !== undefined) {
    const t = p.turn;
    p.toolTurns.push({
      toResult: now() - t.assistant!,
      ...(t.asked !== undefined ? { toHook: t.asked - t.assistant! } : {}),
      ...(t.answered !== undefined ? { afterAnswer: now() - t.answered } : {}),
    });
    p.turn = {};
  }
}

function onParentLine(p: Probe, line: string): void {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  const req = m.request as Record<string, unknown> | undefined;
  if (m.type === 'control_request' && req?.subtype === 'initialize') p.initRequest = String(m.request_id);
  const resp = m.response as Record<string, unknown> | undefined;
  const at = resp ? p.pendingHooks.get(String(resp.request_id)) : undefined;
  if (at !== undefined) {
    p.hookMs.push(now() - at);
    if (p.turn.asked !== undefined && p.turn.answered === undefined) p.turn.answered = now();
    p.pendingHooks.delete(String(resp!.request_id));
  }
}

/** utime + stime + cutime + cstime of a live process, in ms (Linux /proc; clock ticks of 10 ms). */
function procCpu(pid: number | undefined): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return undefined;
  }
}

function lines(each: (line: string) => void): (chunk: Buffer | string) => void {
  let buf = '';
  return (chunk) => {
    buf += String(chunk);
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      each(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  };
}

function watch(child: ChildProcess): void {
  const p = probe;
  if (!p || p.spawn !== undefined) return;
  p.spawn = now();
  p.pid = child.pid;
  child.stdout?.on('data', (c: Buffer) => {
    p.bytesOut += c.length;
    feedOut(c);
  });
  const feedOut = lines((l) => onChildLine(p, l));
  const feedIn = lines((l) => onParentLine(p, l));
  const stdin = child.stdin;
  if (stdin) {
    const write = stdin.write.bind(stdin) as (...a: unknown[]) => boolean;
    stdin.write = ((chunk: unknown, ...rest: unknown[]) => {
      const s = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
      p.bytesIn += Buffer.byteLength(s);
      feedIn(s);
      return write(chunk, ...rest);
    }) as typeof stdin.write;
  }
  child.once('exit', () => (p.exit ??= now()));
}

// every spawn goes through here: the SDK's default and flower's detached one both import node:child_process
const cp = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
const spawn0 = cp.spawn;
cp.spawn = ((...a: Parameters<typeof spawn0>) => {
  if (process.env.PHASES_DEBUG && probe && /claude/.test(String(a[0])) && Array.isArray(a[1])) {
    probe.debugFile = `${os.tmpdir()}/flower-phases-debug-${process.pid}-${Math.random().toString(36).slice(2)}.txt`;
    (a as unknown[])[1] = [...(a[1] as string[]), '--debug-file', probe.debugFile];
  }
  const child = spawn0(...a);
  if (/claude/.test(String(a[0]))) watch(child);
  return child;
}) as typeof spawn0;
syncBuiltinESMExports();

/**
 * The binary's own account of each tool call (its --debug-file lines): request → first byte → the
 * tool's dispatch (after the stream and the permission decision, hooks included) → its end → the next
 * request. Medians over the calls of one run, in ms.
 */
export function binaryCalls(log: string): Phases {
  const seg: Record<string, number[]> = { 'b:req→byte': [], 'b:byte→dispatch': [], 'b:permission': [], 'b:tool': [], 'b:tool→req': [] };
  let req: number | undefined, byte: number | undefined, start: number | undefined, end: number | undefined;
  for (const line of log.split('\n')) {
    const t = Date.parse(line.slice(0, 24));
    if (Number.isNaN(t)) continue;
    if (line.includes('[API REQUEST] /v1/messages')) {
      if (end !== undefined) seg['b:tool→req']!.push(t - end);
      req = t;
      end = undefined;
    } else if (line.includes('first byte after') && req !== undefined) {
      byte = t;
      seg['b:req→byte']!.push(t - req);
    } else if (line.includes('tool_dispatch_start') && byte !== undefined) {
      start = t;
      seg['b:byte→dispatch']!.push(t - byte);
      const pd = /permissionDecisionMs=(\d+)/.exec(line);
      if (pd) seg['b:permission']!.push(Number(pd[1]));
    } else if (line.includes('tool_dispatch_end') && start !== undefined) {
      end = t;
      seg['b:tool']!.push(t - start);
    }
  }
  return Object.fromEntries(
    Object.entries(seg)
      .filter(([, v]) => v.length)
      .map(([k, v]) => [k, median(v)]),
  );
}
