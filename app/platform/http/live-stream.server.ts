/** A live stream of server-sent events, as the pages that follow changes read it. */
export interface LiveStream {
  /** Aborts when the stream ends, so a pending wait wakes. */
  readonly signal: AbortSignal;
  /** Sends text as it is (an event, a comment, a retry line); nothing once the stream ended. */
  write(text: string): void;
  /** Sends one event with its data. */
  send(event: string, data: string): void;
  /** Runs `cleanup` when the stream ends, or now if it already has. */
  defer(cleanup: () => void): void;
  /** Ends the stream: its cleanups run, `onEnd` runs, and the reader (if still there) sees it close. */
  end(): void;
}

/**
 * A server-sent event stream that ends once, however it ends: the reader goes away (the request's
 * abort or the stream's cancel, whichever is seen first: under load one can come well after the
 * other), its producer ends it (time up, session gone), or the producer fails. `onEnd` frees what
 * the stream held (its live slot). `run` starts the producer; the stream stays open until ended.
 */
export function liveStream(request: Request, onEnd: () => unknown, run: (stream: LiveStream) => unknown): Response {
  const encoder = new TextEncoder();
  const gone = new AbortController();
  const cleanups: Array<() => void> = [];
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  const live: LiveStream = {
    signal: gone.signal,
    write(text) {
      if (gone.signal.aborted || !controller) return;
      try {
        controller.enqueue(encoder.encode(text));
      } catch {
        // The reader went away between the check and the send: nothing left to send to.
      }
    },
    send(event, data) {
      live.write(`event: ${event}\ndata: ${data}\n\n`);
    },
    defer(cleanup) {
      if (gone.signal.aborted) cleanup();
      else cleanups.push(cleanup);
    },
    end() {
      if (gone.signal.aborted) return;
      gone.abort();
      request.signal.removeEventListener("abort", live.end);
      for (const cleanup of cleanups.splice(0)) cleanup();
      void Promise.resolve()
        .then(onEnd)
        .catch(() => {});
      try {
        controller?.close();
      } catch {
        // Already cancelled by the reader (the browser went away): nothing left to close.
      }
    },
  };
  const stream = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
      request.signal.addEventListener("abort", live.end, { once: true });
      if (request.signal.aborted) live.end();
      void Promise.resolve()
        .then(() => run(live))
        .catch(() => live.end());
    },
    cancel() {
      live.end();
    },
  });
  return new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      // no-transform: the compression middleware would hold events back in its buffer.
      "Cache-Control": "no-store, no-transform",
      "X-Accel-Buffering": "no",
      Connection: "keep-alive",
    },
  });
}

/** Waits `ms`, or less if `signal` aborts first. */
export function pause(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
