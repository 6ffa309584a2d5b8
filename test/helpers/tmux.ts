/**
 * A real terminal for tests: a tmux pane of a given size on a private server socket, running one
 * command with exactly the environment given. Tests read what a person would see (`screen()`, the
 * pane as rendered, with `-e` its colours) and type into it (`keys`); every wait is on screen
 * content, never on time.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

const q = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;

export class Pane {
  private constructor(
    private readonly sock: string,
    readonly cols: number,
  ) {}

  /** Start `argv` in a `cols`×`rows` pane; when it ends the pane shows `[exit N]` and stays. */
  static async open(argv: string[], o: { cols: number; rows?: number; cwd: string; env: Record<string, string> }): Promise<Pane> {
    const sock = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'flower-tmux-')), 'sock');
    const env = Object.entries(o.env)
      .map(([k, v]) => `${k}=${q(v)}`)
      .join(' ');
    const cmd = `cd ${q(o.cwd)} && env -i ${env} ${argv.map(q).join(' ')}; echo "[exit $?]"; sleep 3600`;
    await run('tmux', ['-S', sock, '-f', '/dev/null', 'new-session', '-d', '-x', String(o.cols), '-y', String(o.rows ?? 40), 'sh', '-c', cmd]);
    // history large enough for a whole run, so nothing scrolls out of what the test reads
    await run('tmux', ['-S', sock, 'set-option', '-g', 'history-limit', '20000']).catch(() => {});
    return new Pane(sock, o.cols);
  }

  /** The whole pane with its scrollback, as rendered (no colours unless `colours`). */
  async screen(colours = false): Promise<string> {
    const { stdout } = await run('tmux', ['-S', this.sock, 'capture-pane', '-p', '-S', '-', ...(colours ? ['-e'] : [])], { maxBuffer: 1 << 24 });
    return stdout;
  }

  /** The whole pane with its scrollback, rows the terminal wrapped joined again: the lines as the program wrote them. */
  async joined(): Promise<string> {
    const { stdout } = await run('tmux', ['-S', this.sock, 'capture-pane', '-p', '-J', '-S', '-'], { maxBuffer: 1 << 24 });
    return stdout;
  }

  /** The visible rows only (where the footer lives). */
  async visible(): Promise<string> {
    const { stdout } = await run('tmux', ['-S', this.sock, 'capture-pane', '-p']);
    return stdout;
  }

  /** Type text literally; `Enter`, `C-c` … as tmux key names with `keys(…, true)`. */
  async keys(text: string, named = false): Promise<void> {
    await run('tmux', ['-S', this.sock, 'send-keys', '-t', '0', ...(named ? [] : ['-l']), text]);
  }

  async waitFor(what: string, test: (screen: string) => boolean, o: { timeoutMs?: number; visible?: boolean } = {}): Promise<string> {
    const end = Date.now() + (o.timeoutMs ?? 60_000);
    for (;;) {
      const s = o.visible ? await this.visible() : await this.screen();
      if (test(s)) return s;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the screen:\n${s}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async exitCode(timeoutMs = 120_000): Promise<number> {
    const s = await this.waitFor('the command to end', (x) => /\[exit \d+\]/.test(x), { timeoutMs });
    return Number(/\[exit (\d+)\]/.exec(s)![1]);
  }

  async close(): Promise<void> {
    await run('tmux', ['-S', this.sock, 'kill-server']).catch(() => {});
    fs.rmSync(path.dirname(this.sock), { recursive: true, force: true });
  }
}

/** Screen text as one line of words: what a person reads, however it wrapped. */
export const words = (s: string): string => s.replace(/\s+/g, ' ').trim();
