/**
 * Reads a streamed NDJSON body (POST /api/logs with `Accept: application/x-ndjson`) object by object as the bytes
 * arrive: each complete line is parsed at once, so the first result shows before the backend finished. A line that
 * is not JSON is handed on as `{error}` (a proxy's HTML error page mid-stream, say), never thrown.
 */
export async function* readNdjson(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let finished = false;
  const parse = (line: string): unknown => {
    try {
      return JSON.parse(line);
    } catch {
      return { error: `Invalid line in the log stream: ${line.slice(0, 200)}` };
    }
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const cut = buffer.lastIndexOf('\n');
      if (cut < 0) continue;
      const complete = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 1);
      // one batch per network chunk: the page renders per batch, not per line
      const batch = complete.split('\n').filter((l) => l.trim()).map(parse);
      if (batch.length) yield batch;
    }
    finished = true;
    buffer += decoder.decode();
    if (buffer.trim()) yield [parse(buffer)];
  } finally {
    // the consumer stopped early (a new search): stop the download too
    if (!finished) reader.cancel().catch(() => undefined);
    else reader.releaseLock();
  }
}
