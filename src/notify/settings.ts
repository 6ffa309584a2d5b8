/**
 * Where notifications go: `--notify URL` / `FLOWER_NOTIFY` and `--notify-cmd CMD` / `FLOWER_NOTIFY_CMD`,
 * a flag over the environment over the `.env` chain (the config file is `~/.config/flower/.env`). Pure.
 *
 * Why a setting from a file an agent can write is refused: the command runs outside every sandbox at
 * the next start, and a URL planted there would carry the run's questions out of a `--net off` run
 * (runtime/floor.ts refuses FLOWER_PLUGINS from such a file for the same reason).
 */
import { ConfigError } from '../errors.js';

export interface NotifySettings {
  /** the webhook, checked: http(s) */
  url: string | null;
  cmd: string | null;
  /** one line per setting refused because of where it came from */
  refused: string[];
}

export interface NotifySources {
  /** the environment as resolved (process env over the `.env` chain) */
  env: Readonly<Record<string, string | undefined>>;
  /** the file each key came from (absent: the process environment) */
  from: Readonly<Record<string, string>>;
  /** the flags, when given */
  url?: string | undefined;
  cmd?: string | undefined;
  /** could an agent's tool write this file? */
  agentWritable: (file: string) => boolean;
}

/** The user and password of a URL hidden, for an error message. */
const shown = (v: string): string => v.replace(/\/\/[^@/]*@/, '//***@');

/**
 * The webhook URL, or a ConfigError naming where it came from (`--notify`, `FLOWER_NOTIFY`) and the fix.
 * @example webhookUrl('https://ntfy.sh/my-topic', '--notify') // 'https://ntfy.sh/my-topic'
 */
export function webhookUrl(value: string, source: string): string {
  const v = value.trim();
  let u: URL | null = null;
  try {
    u = new URL(v);
  } catch {
    /* below */
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) {
    throw new ConfigError(
      'bad-notify',
      `${source} is "${shown(v)}": give an http:// or https:// address (e.g. https://ntfy.sh/your-topic), or a command that reads the JSON on stdin with --notify-cmd`,
      { field: source },
    );
  }
  return u.href;
}

export function notifySettings(s: NotifySources): NotifySettings {
  const refused: string[] = [];
  const pick = (flag: string | undefined, key: string): { value: string; source: string } | null => {
    if (flag !== undefined && flag.trim() !== '') return { value: flag.trim(), source: key === 'FLOWER_NOTIFY' ? '--notify' : '--notify-cmd' };
    const v = (s.env[key] ?? '').trim();
    if (!v) return null;
    const file = s.from[key];
    if (file && s.agentWritable(file)) {
      refused.push(
        `${key} in ${file} ignored: that file is inside the workspace, where an agent could change it — set it in the environment or in ~/.config/flower/.env`,
      );
      return null;
    }
    return { value: v, source: file ? `${key} (in ${file})` : key };
  };
  const url = pick(s.url, 'FLOWER_NOTIFY');
  const cmd = pick(s.cmd, 'FLOWER_NOTIFY_CMD');
  return { url: url ? webhookUrl(url.value, url.source) : null, cmd: cmd?.value ?? null, refused };
}
