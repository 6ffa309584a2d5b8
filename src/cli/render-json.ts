// The `--json` renderer: the same Renderer interface, NDJSON out (kept apart from the terminal renderer).
import type { Lang } from '../config/index.js';
import type { FlowerEvent, StepResult } from '../runtime/index.js';
import type { Writable } from './io.js';
import { Renderer } from './render.js';
import type { Role } from './screen/palette.js';
import { sanitize } from './term.js';

/**
 * `--json`: the same run as NDJSON on stdout — one event per line (`raw` SDK messages left out), the
 * human lines as `{"kind":"note"}`, each step's manifest row as `{"kind":"step_result"}` — for tools that
 * watch a run.
 */
export class JsonRenderer extends Renderer {
  private readonly sink: Writable;

  constructor(out: Writable, lang: Lang) {
    super(out, lang);
    this.sink = out;
  }

  private emit(o: Record<string, unknown>): void {
    try {
      this.sink.write(`${JSON.stringify({ t: new Date().toISOString(), ...o })}\n`);
    } catch {
      /* closed pipe */
    }
  }

  override line(...lines: string[]): void {
    const text = lines
      .map((l) => sanitize(l, { keepColour: false }))
      .join('\n')
      .trim();
    if (text) this.emit({ kind: 'note', text });
  }

  override whole(_role: Role, text: string): void {
    this.line(text);
  }

  override event = (e: FlowerEvent): void => {
    const { raw: _raw, ...rest } = e;
    this.emit({ ...rest });
  };

  override result(r: StepResult): void {
    this.emit({ kind: 'step_result', ...r });
  }

  override attempt(r: StepResult): void {
    this.emit({ kind: 'step_result', final: false, ...r });
  }

  override verdict(p: Record<string, unknown>): void {
    this.emit({ kind: 'verdict', ...p });
  }
}
