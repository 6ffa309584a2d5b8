/**
 * The two ways out: a webhook (`--notify URL`: one POST of the JSON, Node's own fetch) and a command
 * (`--notify-cmd CMD`: `sh -c CMD` with the JSON on stdin). Each `send` is one attempt; the Notifier
 * retries, times out and gives up.
 */
import { spawn } from 'node:child_process';
import { DeliveryError, type Transport } from './deliver.js';

/** Why a fetch failed, in a few words and without the URL (`connect ECONNREFUSED 127.0.0.1:9`). */
function fetchReason(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.message === 'string' && cause.message) return cause.message;
  if (cause && typeof cause.code === 'string') return cause.code;
  return e instanceof Error ? e.message : String(e);
}

/**
 * POST the body to `url` as application/json. Credentials in the URL (`https://user:pw@host/…`, which
 * fetch refuses) become a Basic authorization header. 2xx is delivered; 408, 429 and 5xx are worth
 * another attempt, any other status is not.
 */
export function webhook(url: string, o: { fetch?: typeof fetch } = {}): Transport {
  const u = new URL(url);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (u.username || u.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
    u.username = '';
    u.password = '';
  }
  const target = u.href;
  const f = o.fetch ?? fetch;
  return {
    // a webhook's path is often its key (Slack, ntfy topics): only the origin is ever shown
    label: u.origin,
    async send(body, signal) {
      let res: Response;
      try {
        res = await f(target, { method: 'POST', headers, body, signal });
      } catch (e) {
        if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new DeliveryError('aborted', true);
        throw new DeliveryError(fetchReason(e), true);
      }
      // the answer's body is not read: cancelled, so the connection is free at once
      await res.body?.cancel().catch(() => {});
      if (res.ok) return;
      throw new DeliveryError(`HTTP ${res.status}`, res.status === 408 || res.status === 429 || res.status >= 500);
    },
  };
}

/** The first line a command said on stderr, short. */
function said(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.trim()) ?? '';
  return line.trim().slice(0, 200);
}

/**
 * Run `sh -c cmd` in `cwd` with `env` (the caller's, already without a secret) and the body on stdin;
 * exit 0 is delivered. Its stdout is dropped (it must not mix into `--json`); the first line of its
 * stderr says why it failed. It runs in its own process group, killed whole when the attempt is aborted,
 * so a `curl` that hangs under `sh` goes too.
 */
export function command(cmd: string, o: { env: Record<string, string>; cwd: string }): Transport {
  return {
    label: '--notify-cmd',
    send(body, signal) {
      return new Promise<void>((resolve, reject) => {
        const child = spawn('/bin/sh', ['-c', cmd], { cwd: o.cwd, env: o.env, stdio: ['pipe', 'ignore', 'pipe'], detached: true });
        let stderr = '';
        child.stderr?.setEncoding('utf8').on('data', (c: string) => {
          if (stderr.length < 4000) stderr += c;
        });
        // a command that never reads stdin (`notify-send flower`) closes it: not a failure
        child.stdin?.on('error', () => {});
        child.stdin?.end(body);
        const kill = (): void => {
          try {
            if (child.pid) process.kill(-child.pid, 'SIGKILL');
          } catch {
            /* gone already */
          }
        };
        signal.addEventListener('abort', kill, { once: true });
        child.on('error', (e) => {
          signal.removeEventListener('abort', kill);
          reject(new DeliveryError(`could not start /bin/sh: ${e.message}`, false));
        });
        child.on('close', (code, sig) => {
          signal.removeEventListener('abort', kill);
          if (code === 0) resolve();
          else {
            const why = said(stderr);
            reject(new DeliveryError(`${sig ? `killed by ${sig}` : `exit ${code}`}${why ? `: ${why}` : ''}`, true));
          }
        });
      });
    },
  };
}
