/**
 * `flower setup` — three questions, credentials in ~/.config/flower/.env (0600), then a live probe of
 * the credential. On a terminal the key is read in raw mode and never echoed (not even as stars: its
 * length is nobody's business); piped answers work too (one per line). Prompts and results go to
 * stderr, so `--json` leaves only one JSON line on stdout.
 */
import readline from 'node:readline';
import {
  baseUrlProblem,
  detectLang,
  hasCredentials,
  modelNotFound,
  probeCredentials,
  requireCredentials,
  resolveEnv,
  storedCredential,
  writeCredentials,
  type Lang,
  type ProbeResult,
} from '../config/index.js';
import { isModelNotFound } from '../runtime/index.js';
import type { StepFailureRecord } from '../state/index.js';
import { CliExit, EXIT, type CliIO } from './io.js';

export interface SetupOptions {
  /** replace existing credentials without asking */
  yes?: boolean;
  json?: boolean;
}

/** Where the answers come from: the terminal (raw mode) or a pipe (one answer per line). */
interface Answers {
  ask(question: string, o?: { hidden?: boolean }): Promise<string | null>;
  close(): void;
}

function pipedAnswers(io: CliIO): Answers {
  const rl = readline.createInterface({ input: io.stdin!, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async ask(q) {
      io.stderr.write(`${q}\n> `);
      const r = await lines.next();
      io.stderr.write('\n');
      return r.done ? null : r.value;
    },
    close: () => rl.close(),
  };
}

/**
 * A line editor on a raw-mode terminal: printable characters are echoed unless hidden, Backspace
 * deletes, Enter ends, Ctrl-C aborts (exit 130), Ctrl-D on an empty line is end of input. Escape
 * sequences (arrow keys) are dropped, never stored in the answer.
 */
function terminalAnswers(io: CliIO): Answers {
  const input = io.stdin as NodeJS.ReadStream;
  const out = io.stderr;
  return {
    ask(q, o = {}) {
      out.write(`${q}\n> `);
      return new Promise<string | null>((resolve, reject) => {
        let buf = '';
        const wasRaw = input.isRaw === true;
        input.setRawMode?.(true);
        const finish = (v: string | null, err?: Error) => {
          input.removeListener('data', onData);
          input.setRawMode?.(wasRaw);
          input.pause();
          out.write('\n');
          if (err) reject(err);
          else resolve(v);
        };
        const onData = (chunk: Buffer | string) => {
          const s = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
          for (let i = 0; i < s.length; i++) {
            const c = s[i]!;
            if (c === '\r' || c === '\n') return finish(buf);
            if (c === '\u0003') return finish(null, new CliExit(EXIT.interrupted, ''));
            if (c === '\u0004') {
              if (!buf) return finish(null);
              continue;
            }
            if (c === '\u007f' || c === '\b') {
              if (buf) {
                const last = Array.from(buf).at(-1)!;
                buf = buf.slice(0, buf.length - last.length);
                if (!o.hidden) out.write('\b \b');
              }
              continue;
            }
            if (c === '\u001b') {
              // CSI / SS3 sequences: ESC [ … final byte, ESC O x
              const m = /^\u001b(?:\[[0-?]*[ -/]*[@-~]|O.|.)?/.exec(s.slice(i));
              i += (m?.[0].length ?? 1) - 1;
              continue;
            }
            if (c < ' ') continue;
            buf += c;
            if (!o.hidden) out.write(c);
          }
        };
        input.on('data', onData);
        input.resume();
      });
    },
    close: () => {
      /* each question restores the terminal itself */
    },
  };
}

const T = {
  en: {
    noStdin: 'flower setup reads its answers from standard input',
    replace: (p: string, key: string, masked: string) => `${p} already holds ${key} ${masked}. Replace the existing credentials? [y/N]`,
    kept: 'kept the existing credentials; nothing written',
    token: 'API key or gateway token (required; sk-ant-… is stored as ANTHROPIC_API_KEY, anything else as ANTHROPIC_AUTH_TOKEN) — not shown as you type',
    noToken: 'no token given; nothing written',
    url: 'Gateway URL (Enter = the official API; the root, without /v1)',
    badUrl: (v: string, why: string) => `'${v}' refused: ${why}`,
    badUrlFinal: 'no valid gateway URL; nothing written',
    model: 'Model (Enter = the default)',
    wrote: (p: string, s: string) => `+ ${p} (0600): ${s}`,
    probing: (endpoint: string, model: string) => `. checking the credential against ${endpoint} (model ${model})…`,
    envWins: (k: string) => `! ${k} is set in the environment and wins over the file: unset it to use what was stored`,
    notWritten: 'nothing written: run `flower setup` again with what works',
    noModel: (r: ProbeResult) =>
      `x model not found: ${r.endpoint} does not serve the model '${r.model}' (${r.status}${r.detail ? ` ${r.detail}` : ''}) — check the model name (Enter = the default)`,
    probe: {
      ok: (r: ProbeResult) => `+ ok: ${r.endpoint} accepted the credential (model ${r.model})`,
      limited: (r: ProbeResult) =>
        `+ ok, rate limited: ${r.endpoint} accepted the credential but answered 429${r.detail ? ` (${r.detail})` : ''} — the account is rate limited right now; a run waits and retries`,
      unavailable: (r: ProbeResult) =>
        `x unavailable: ${r.endpoint} answered ${r.status}${r.detail ? ` (${r.detail})` : ''} — the service could not check the credential now; the credentials are saved, try again later`,
      auth: (r: ProbeResult) =>
        `x authentication: ${r.endpoint} refused the credential (${r.status}${r.detail ? ` ${r.detail}` : ''}) — check the key or token and run \`flower setup\` again`,
      config: (r: ProbeResult) =>
        `x configuration: ${r.endpoint} answered${r.status ? ` ${r.status}` : ''}${r.detail ? ` (${r.detail})` : ''} — check the gateway URL (the root, without /v1) and the model name, then run \`flower setup\` again`,
      network: (r: ProbeResult) =>
        `x network: no answer from ${r.endpoint} (${r.detail}) — check the URL and the connection; the credentials are saved, try again later`,
    },
  },
  zh: {
    noStdin: 'flower setup 从标准输入读答案',
    replace: (p: string, key: string, masked: string) => `${p} 里已经有 ${key} ${masked}。替换现有凭据吗?[y/N]`,
    kept: '保留现有凭据,什么也没写',
    token: 'API key 或网关 token(必填;sk-ant- 开头的存为 ANTHROPIC_API_KEY,其余存为 ANTHROPIC_AUTH_TOKEN)——输入时不显示',
    noToken: '没有填 token,什么也没写',
    url: '网关地址(回车 = 官方 API;填根地址,不带 /v1)',
    badUrl: (v: string, why: string) => `'${v}' 不行:${why}`,
    badUrlFinal: '没有有效的网关地址,什么也没写',
    model: '模型名(回车 = 默认)',
    wrote: (p: string, s: string) => `+ ${p}(0600):${s}`,
    probing: (endpoint: string, model: string) => `. 正在用 ${endpoint} 检查凭据(模型 ${model})…`,
    envWins: (k: string) => `! 环境变量里设了 ${k},它优先于文件:要用刚存的,请先 unset 它`,
    notWritten: '什么也没写:用能用的答案再运行一次 `flower setup`',
    noModel: (r: ProbeResult) => `x 找不到模型:${r.endpoint} 没有模型 '${r.model}'(${r.status}${r.detail ? ` ${r.detail}` : ''})——检查模型名(回车 = 默认)`,
    probe: {
      ok: (r: ProbeResult) => `+ 正常:${r.endpoint} 接受了这个凭据(模型 ${r.model})`,
      limited: (r: ProbeResult) => `+ 正常,但被限流:${r.endpoint} 接受了凭据,但回了 429${r.detail ? `(${r.detail})` : ''}——账号此刻被限流;运行时会等待后重试`,
      unavailable: (r: ProbeResult) => `x 服务暂不可用:${r.endpoint} 回了 ${r.status}${r.detail ? `(${r.detail})` : ''}——此刻无法检查凭据;凭据已保存,稍后再试`,
      auth: (r: ProbeResult) =>
        `x 认证失败:${r.endpoint} 拒绝了这个凭据(${r.status}${r.detail ? ` ${r.detail}` : ''})——检查 key 或 token,再运行一次 \`flower setup\``,
      config: (r: ProbeResult) =>
        `x 配置有误:${r.endpoint} 有回应${r.status ? ` ${r.status}` : ''}${r.detail ? `(${r.detail})` : ''}——检查网关地址(根地址,不带 /v1)和模型名,再运行一次 \`flower setup\``,
      network: (r: ProbeResult) => `x 网络问题:${r.endpoint} 没有回应(${r.detail})——检查地址和网络;凭据已保存,稍后再试`,
    },
  },
} as const;

export type SetupOutcome = { written: boolean; probe: ProbeResult | null };

/** The questions, the file, the probe. Returns what happened; a refusal throws CliExit (nothing written). */
export async function runSetup(io: CliIO, o: SetupOptions = {}): Promise<SetupOutcome> {
  if (!io.stdin) throw new CliExit(EXIT.failure, `x ${T.en.noStdin}`);
  const lang: Lang = detectLang(io.env);
  const t = T[lang];
  const say = (s: string) => io.stderr.write(`${s}\n`);
  const answers = io.stdin.isTTY === true && typeof (io.stdin as NodeJS.ReadStream).setRawMode === 'function' ? terminalAnswers(io) : pipedAnswers(io);
  try {
    const stored = storedCredential(io.env);
    if (stored && !o.yes) {
      const yes = ((await answers.ask(t.replace(stored.path, stored.key, stored.masked))) ?? '').trim().toLowerCase();
      if (!['y', 'yes', '是', '好'].includes(yes)) throw new CliExit(EXIT.failure, `x ${t.kept}`);
    }
    const token = await answers.ask(t.token, { hidden: true });
    if (!token?.trim()) throw new CliExit(EXIT.failure, `x ${t.noToken}`);
    // a malformed URL is refused; on a terminal it is asked again (three tries), from a pipe it stops
    let baseUrl = '';
    for (let tries = 0; ; tries++) {
      const v = ((await answers.ask(t.url)) ?? '').trim();
      const why = baseUrlProblem(v);
      if (!why) {
        baseUrl = v;
        break;
      }
      say(`x ${t.badUrl(v, why)}`);
      if (io.stdin.isTTY !== true || tries >= 2) throw new CliExit(EXIT.failure, `x ${t.badUrlFinal}`);
    }
    const model = ((await answers.ask(t.model)) ?? '').trim();
    // checked before it is kept: a refused key or an unknown model is never stored
    const probe = await probeFirst(io, t, { token, baseUrl, model });
    if (probe && (probe.kind === 'auth' || probe.kind === 'config')) {
      say(`x ${t.notWritten}`);
      return { written: false, probe };
    }
    const w = writeCredentials({ token, baseUrl, model }, io.env);
    say(t.wrote(w.path, w.summary));
    // what a run will actually use: the process environment wins per key over the file
    for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL']) {
      if ((io.env[k] ?? '').trim()) say(t.envWins(k));
    }
    return { written: true, probe };
  } finally {
    answers.close();
  }
}

/** The probe with the answers given (null when FLOWER_NO_PROBE is set); its line is said. */
async function probeFirst(io: CliIO, t: (typeof T)[Lang], a: { token: string; baseUrl: string; model: string }): Promise<ProbeResult | null> {
  if (['1', 'true', 'yes'].includes((io.env.FLOWER_NO_PROBE ?? '').trim().toLowerCase())) return null;
  const resolved = resolveEnv(
    { ...io.env, ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined, ANTHROPIC_BASE_URL: undefined, ANTHROPIC_MODEL: undefined },
    io.cwd ?? process.cwd(),
  );
  const useModel = a.model || resolved.env.ANTHROPIC_MODEL || io.env.ANTHROPIC_MODEL || '';
  io.stderr.write(`${t.probing(a.baseUrl || 'https://api.anthropic.com', useModel || '(default)')}\n`);
  const probe = await probeCredentials({ baseUrl: a.baseUrl, token: a.token, model: useModel, timeoutMs: 20_000 });
  const line = probe.kind === 'config' && modelNotFound(probe) ? t.noModel(probe) : t.probe[probe.kind](probe);
  io.stderr.write(`${line}\n`);
  return probe;
}

export async function setup(io: CliIO, o: SetupOptions = {}): Promise<number> {
  let outcome: SetupOutcome;
  try {
    outcome = await runSetup(io, o);
  } catch (e) {
    if (o.json && e instanceof CliExit) io.stdout.write(`${JSON.stringify({ kind: 'setup', written: false, error: e.message.replace(/^x /, '') })}\n`);
    throw e;
  }
  if (o.json) {
    const p = outcome.probe;
    io.stdout.write(
      `${JSON.stringify({ kind: 'setup', written: outcome.written, probe: p ? { kind: p.kind, status: p.status ?? null, detail: p.detail, endpoint: p.endpoint, model: p.model } : null })}\n`,
    );
  }
  return outcome.written && probeLetsThrough(outcome.probe) ? EXIT.ok : EXIT.failure;
}

const OFFER = {
  en: {
    missing: 'flower has no credentials yet (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN). Set them up now? [Y/n]',
    refused: 'The endpoint refused the credential. Set up new credentials now? [Y/n]',
    model: 'The endpoint does not serve the configured model. Set up now (and pick a model it serves)? [Y/n]',
    after: 'run `flower` here again to continue',
  },
  zh: {
    missing: 'flower 还没有凭据(ANTHROPIC_API_KEY 或 ANTHROPIC_AUTH_TOKEN)。现在设置吗?[Y/n]',
    refused: '接口拒绝了这个凭据。现在重新设置吗?[Y/n]',
    model: '接口没有配置的这个模型。现在重新设置(选一个它有的模型)吗?[Y/n]',
    after: '在这里再运行一次 `flower` 接着做',
  },
} as const;

/**
 * On a terminal, when a run cannot start (no credentials) or was refused (401/403): offer `flower
 * setup` instead of only exiting. True when credentials were written and the probe did not fail.
 * Never offered off a terminal: a script gets exit 1 and the message, as before.
 */
export async function offerSetup(io: CliIO, reason: 'missing' | 'refused' | 'model'): Promise<boolean> {
  if (io.stdin?.isTTY !== true || typeof (io.stdin as NodeJS.ReadStream).setRawMode !== 'function') return false;
  const t = OFFER[detectLang(io.env)];
  const answers = terminalAnswers(io);
  const yes = ((await answers.ask(t[reason])) ?? 'n').trim().toLowerCase();
  if (!['', 'y', 'yes', '是', '好'].includes(yes)) return false;
  const outcome = await runSetup(io, { yes: true });
  if (reason !== 'missing') io.stderr.write(`. ${t.after}\n`);
  return outcome.written && probeLetsThrough(outcome.probe);
}

/** The credential works: the probe said ok, or a 429 (a rate limit is answered after the key was checked), or it was skipped. */
function probeLetsThrough(p: ProbeResult | null): boolean {
  return !p || p.kind === 'ok' || p.kind === 'limited';
}

/**
 * The credential gate of `flower once` and `flower run`, before anything else starts: none configured →
 * on a terminal (and without --json) offer setup, as `flower "…"` does; still none (declined, or no
 * terminal) → the one-line ConfigError naming `flower setup` (exit 1, the usual setup error).
 */
export async function credentialGate(io: CliIO, o: { json?: boolean | undefined } = {}): Promise<void> {
  const cwd = io.cwd ?? process.cwd();
  if (hasCredentials(resolveEnv(io.env, cwd))) return;
  if (!o.json) await offerSetup(io, 'missing');
  requireCredentials(resolveEnv(io.env, cwd));
}

/** Why a failed step leads back to setup: the credential was refused, or the endpoint does not serve the model (a typed `config` 404). */
export function setupReason(r: { ok: boolean; error?: string | null; failure?: StepFailureRecord }): 'refused' | 'model' | null {
  if (isAuthFailure(r)) return 'refused';
  return !r.ok && r.failure && isModelNotFound(r.failure) ? 'model' : null;
}

/** A step that failed because the endpoint refused the credential (401/403). */
export function isAuthFailure(r: { ok: boolean; error?: string | null; failure?: { kind?: string } }): boolean {
  if (r.ok) return false;
  if (r.failure?.kind) return r.failure.kind === 'auth';
  return /\b40[13]\b|authentication_error|permission_error|invalid (?:x-api-key|api key|bearer token)|unauthori[sz]ed|OAuth token has expired/i.test(
    r.error ?? '',
  );
}
