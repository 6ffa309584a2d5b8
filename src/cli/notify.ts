/**
 * The run's notifications (`--notify URL`, `--notify-cmd CMD`), wired to what the terminal session
 * already sees: a question starts waiting (the channel's `ask` event), the judge says unreachable (the
 * `verdict` task event), the run stops on a step that failed for good, the run ends. Both `flower` and
 * `flower run` get them through src/cli/session.ts and src/cli/ending.ts.
 *
 * What leaves is scrubbed by value with the guards' own redaction, over the secret values the floor
 * would collect for tool outputs (runtime/floor.ts, runtime/secret-places.ts), and a command gets the
 * person's environment without a secret variable.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CREDENTIAL_KEYS, resolveEnv, type Lang, type ResolvedEnv } from '../config/index.js';
import { redactDeep, secretsIn, urlPassword } from '../guards/index.js';
import { FlowerError } from '../errors.js';
import { Notifier, command, finished, notifySettings, question, stopped, verdict, webhook, type RunPlace, type Transport } from '../notify/index.js';
import { event, fromThrown, type FlowerEvent, type Runtime } from '../runtime/index.js';
// the floor's own collection of `.env` secrets (runtime/floor.ts uses the same two), not a second one
import { chainValues, envFilesUnder } from '../runtime/secret-places.js';
import type { WorkflowContext } from '../workflow/index.js';
import type { GlobalOptions } from './globals.js';
import { CliExit, EXIT, type CliIO } from './io.js';

export interface NoticeDisplay {
  /** one warning line on the person's screen */
  warn: (line: string) => void;
  /** the same failure as an event (`--json` shows it) */
  record: (e: FlowerEvent) => void;
}

const isUnder = (p: string, root: string): boolean => p === root || p.startsWith(`${root}${path.sep}`);
const real = (p: string): string => {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
};

/**
 * Every secret value flower knows of, as the floor collects them for tool outputs: the environment's
 * (with the credential and the store's password as known values), those of each `.env` file of the chain,
 * and those of the `.env` files below the workspace. Longest first, as `redact` wants them.
 */
export function secretValuesOf(r: ResolvedEnv, where: { workspace: string; runDir?: string }): string[] {
  const store = r.env.FLOWER_STORE ? urlPassword(r.env.FLOWER_STORE) : undefined;
  const known = [...CREDENTIAL_KEYS.map((k) => r.env[k] ?? ''), store ?? '', r.env.PGPASSWORD ?? ''];
  const values = new Set([...secretsIn(r.env, { known }).values, ...chainValues(r.read), ...chainValues(envFilesUnder(where.workspace, where.runDir))]);
  return [...values].sort((a, b) => b.length - a.length);
}

/** The person's environment for `--notify-cmd`: the process's own, minus every secret variable and the credential. */
export function commandEnv(env: Readonly<Record<string, string | undefined>>, known: readonly string[]): Record<string, string> {
  const secret = new Set([...secretsIn(env, { known }).names, ...CREDENTIAL_KEYS]);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !secret.has(k)) out[k] = v;
  return out;
}

export class RunNotices {
  private step = '';
  private readonly asked = new Set<string>();
  private lastAsk = '';
  private readonly startedAt = Date.now();
  private rt: Runtime | undefined;
  private timeoutS: number | null = null;
  private ended = false;

  private constructor(
    private readonly notifier: Notifier,
    private readonly folder: string,
    private readonly lang: Lang,
  ) {}

  /**
   * The notifications this run sends, or null when none is set. A bad URL is a usage error (exit 2)
   * naming the flag or the variable; a setting refused for where it came from is one warning line.
   */
  static from(io: CliIO, g: GlobalOptions & { notify?: string; notifyCmd?: string }, lang: Lang, show: NoticeDisplay): RunNotices | null {
    const cwd = io.cwd ?? process.cwd();
    const resolved = resolveEnv(io.env, cwd);
    const ws = path.resolve(cwd, g.workspace);
    let s: ReturnType<typeof notifySettings>;
    try {
      s = notifySettings({
        env: resolved.env,
        from: resolved.from,
        url: g.notify,
        cmd: g.notifyCmd,
        agentWritable: (f) => isUnder(path.resolve(f), ws) || isUnder(real(f), real(ws)),
      });
    } catch (e) {
      if (FlowerError.is(e)) throw new CliExit(EXIT.usage, `x ${e.message}`);
      throw e;
    }
    for (const line of s.refused) show.warn(line);
    const values = secretValuesOf(resolved, { workspace: ws, runDir: path.resolve(cwd, g.runDir) });
    const transports: Transport[] = [];
    if (s.url) transports.push(webhook(s.url));
    if (s.cmd) transports.push(command(s.cmd, { cwd, env: commandEnv(io.env, values) }));
    if (!transports.length) return null;
    const notifier = new Notifier({
      transports,
      scrub: (v) => redactDeep(v, values).value,
      warn: (line) => show.warn(line),
      onFailure: (f) => show.record(event('system', `notification '${f.kind}' not delivered to ${f.target}`, { ...f })),
    });
    return new RunNotices(notifier, cwd, lang);
  }

  /** The run and the channel's wait: from here on events become notifications. */
  attach(rt: Runtime, channel: { timeoutS: number | null } | undefined): void {
    this.rt = rt;
    this.timeoutS = channel?.timeoutS ?? null;
  }

  private place(): RunPlace {
    return {
      run: this.rt?.manifest.run ?? '',
      step: this.step,
      folder: this.folder,
      host: os.hostname(),
      cost_usd: this.rt?.totalCost() ?? 0,
      at: new Date().toISOString(),
      lang: this.lang,
    };
  }

  /** Every event the session sees (the channel's and the workflow's); each question is sent once. */
  event(e: FlowerEvent): void {
    if (e.kind === 'step') this.step = e.text;
    else if (e.step && e.kind !== 'result') this.step = e.step;
    const p = e.payload;
    if (e.kind === 'ask') {
      const id = String(p.id ?? '');
      this.lastAsk = String(p.state ?? '');
      if (p.state !== 'asked' || this.asked.has(id)) return;
      this.asked.add(id);
      const options = Array.isArray(p.options) ? p.options.map(String) : [];
      this.notifier.send(question(this.place(), { id, question: String(p.question ?? e.text), options, timeoutS: this.timeoutS }));
    } else if (e.kind === 'task' && p.kind === 'verdict' && p.outcome === 'unreachable') {
      const n = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
      this.notifier.send(verdict(this.place(), { outcome: String(p.outcome), passed: n(p.passed), total: n(p.total), reason: String(p.reason ?? '') }));
    }
  }

  /**
   * The end of the run: `stopped` when a step failed for good (with why and how to continue), then
   * `finished`; then wait for the deliveries, at most the retry budget.
   */
  async end(ctx: WorkflowContext, continueCmd: string): Promise<void> {
    this.ended = true;
    const rows = this.rt?.manifest.own() ?? [];
    const judged = rows.filter((r) => r.verdict).at(-1)?.verdict;
    const failedAt = ctx._failedAt;
    if (failedAt) {
      const r = ctx._results[failedAt];
      // a limit that stopped the wake (even through the judge) is the reason, in the run's words
      const message = (ctx._limit?.message ?? ctx._aborted ?? r?.error ?? 'the step failed').replace(/\s+/g, ' ').trim();
      this.step = failedAt;
      this.notifier.send(
        stopped(this.place(), {
          failure: ctx._limit?.kind ?? r?.failure?.kind ?? null,
          message,
          continueCmd,
          unanswered: ctx._aborted !== undefined && this.lastAsk === 'timeout',
        }),
      );
    }
    this.notifier.send(
      finished(this.place(), {
        ok: !failedAt,
        verdict: judged?.outcome ?? null,
        passed: judged?.passed ?? null,
        total: judged?.total ?? null,
        durationS: (Date.now() - this.startedAt) / 1000,
      }),
    );
    await this.notifier.flush();
  }

  /**
   * The run ended by an error it threw (not a step that failed): `finished` still goes out, `ok: false`
   * with the error's kind (typed by the runtime's fromThrown), unless `end` already sent one.
   */
  async crashed(e: unknown): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    const f = fromThrown(e);
    const durationS = (Date.now() - this.startedAt) / 1000;
    this.notifier.send(finished(this.place(), { ok: false, verdict: null, passed: null, total: null, durationS, error: { kind: f.kind, message: f.message } }));
    await this.notifier.flush();
  }
}
