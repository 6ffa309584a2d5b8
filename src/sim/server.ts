/**
 * The HTTP lifecycle of a sim: listen on 127.0.0.1, track connections, go away (close or a
 * scripted outage) and come back on the same port.
 */
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SimError } from './errors.js';

export type Handler = (req: IncomingMessage, res: ServerResponse, raw: string) => Promise<void>;

/** Bodies larger than this are refused: a runaway client must not exhaust memory. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
const HOST = '127.0.0.1';

export class SimServer {
  readonly #server: http.Server;
  readonly #sockets = new Set<Socket>();
  #port = 0;
  /** The last stop(); listening again waits for it so a quick restart cannot race the close. */
  #stopping: Promise<void> = Promise.resolve();

  constructor(handler: Handler, onHandlerError: (err: unknown) => void) {
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY_BYTES) {
          req.socket.destroy();
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        handler(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => {
          onHandlerError(err);
          res.destroy();
        });
      });
    });
    this.#server.on('connection', (s: Socket) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  get port(): number {
    return this.#port;
  }

  get listening(): boolean {
    return this.#server.listening;
  }

  /** Listen on `port` (0 = a free one). Resolves with the bound port. */
  async listen(port: number): Promise<number> {
    await this.#stopping;
    if (this.#server.listening) return this.#port;
    return new Promise((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        this.#server.off('listening', onListening);
        if (err.code === 'EADDRINUSE') {
          reject(
            new SimError('sim-port-in-use', `flower sim: port ${port} on ${HOST} is already in use; pick another with --port, or 0 for a free one`, {
              port,
              cause: err,
            }),
          );
        } else {
          reject(new SimError('sim-listen-failed', `flower sim: cannot listen on ${HOST}:${port}: ${err.message}`, { port, cause: err }));
        }
      };
      const onListening = (): void => {
        this.#server.off('error', onError);
        const addr = this.#server.address();
        this.#port = typeof addr === 'object' && addr !== null ? addr.port : port;
        resolve(this.#port);
      };
      this.#server.once('error', onError);
      this.#server.once('listening', onListening);
      this.#server.listen(port, HOST);
    });
  }

  /**
   * Stop accepting connections and destroy the open ones. Pooled keep-alive connections are
   * destroyed too: otherwise the client's next request would still reach a "gone" server.
   */
  stop(): Promise<void> {
    const previous = this.#stopping;
    this.#stopping = new Promise((resolve) => {
      const wasListening = this.#server.listening;
      if (wasListening) this.#server.close(() => resolve());
      for (const s of this.#sockets) s.destroy();
      // A second stop() during the first one's close must not resolve before it.
      if (!wasListening) void previous.then(() => resolve());
    });
    return this.#stopping;
  }
}
