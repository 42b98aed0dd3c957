/**
 * Where an uploaded file's bytes come from when it is read without holding it whole: an S3
 * object read by ranges, or bytes already in memory. CSV is read front to back; an XLSX is a ZIP
 * whose directory is at its end, so its reader asks for ranges (docs/architecture.md, §5 "Files of
 * any size").
 */

export interface ByteSource {
  /** Total size in bytes. */
  readonly size: number;
  /** Bytes `[start, end)` as chunks, in order; each call reads afresh. */
  read(start: number, end: number): AsyncIterable<Uint8Array>;
}

/** How many bytes each chunk of an in-memory source holds: like a network read, never all at once. */
const MEMORY_CHUNK_BYTES = 64 * 1024;

/** Bytes already in memory, as a source (tests, the local CLI's answer files). */
export const bytesSource = (bytes: Uint8Array, chunkBytes = MEMORY_CHUNK_BYTES): ByteSource => ({
  size: bytes.byteLength,
  async *read(start: number, end: number) {
    const stop = Math.min(end, bytes.byteLength);
    for (let at = Math.max(0, start); at < stop; at += chunkBytes) {
      yield bytes.subarray(at, Math.min(at + chunkBytes, stop));
    }
  },
});

/** Bytes `[start, end)` of a source, in one array: for the few that are needed at once. */
export const readBytes = async (source: ByteSource, start: number, end: number): Promise<Uint8Array> => {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source.read(start, end)) chunks.push(chunk);
  return Buffer.concat(chunks);
};
