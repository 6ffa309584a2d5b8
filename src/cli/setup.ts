/** `flower setup` — three questions, then credentials in ~/.config/flower/.env (0600). Reads stdin, so it can be piped. */
import readline from 'node:readline';
import { detectLang, writeCredentials } from '../config/index.js';
import { CliExit, EXIT, type CliIO } from './io.js';

export async function setup(io: CliIO): Promise<number> {
  if (!io.stdin) throw new CliExit(EXIT.failure, 'x flower setup reads its answers from standard input');
  const zh = detectLang(io.env) === 'zh';
  const rl = readline.createInterface({ input: io.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (q: string): Promise<string | null> => {
    io.stderr.write(`${q}\n> `);
    const r = await lines.next();
    return r.done ? null : r.value;
  };
  try {
    const token = await ask(zh ? 'API key 或网关 token(必填;sk-ant- 开头的存为 ANTHROPIC_API_KEY,其余存为 ANTHROPIC_AUTH_TOKEN)' : 'API key or gateway token (required; sk-ant-… is stored as ANTHROPIC_API_KEY, anything else as ANTHROPIC_AUTH_TOKEN)');
    if (!token || !token.trim()) throw new CliExit(EXIT.failure, zh ? 'x 没有填 token,什么也没写' : 'x no token given; nothing written');
    const baseUrl = (await ask(zh ? '网关地址(回车 = 官方 API;填根地址,不带 /v1)' : 'Gateway URL (Enter = the official API; the root, without /v1)')) ?? '';
    const model = (await ask(zh ? '模型名(回车 = 默认)' : 'Model (Enter = the default)')) ?? '';
    const w = writeCredentials({ token, baseUrl, model }, io.env);
    io.stdout.write(`+ ${w.path} (0600): ${w.summary}\n`);
    return EXIT.ok;
  } finally {
    rl.close();
  }
}
