// The S3 stand-in (s3rver) in a process of its own, forked by local/runtime/stand-ins.ts.
//
// Why a process: s3rver signs ListObjectsV2 continuation tokens with DES, which Node 20's
// OpenSSL 3 only offers with --openssl-legacy-provider; the flag must be given when a process
// starts, so the runtime starts this one with it, whatever flags its own process got.
//
// Protocol (IPC): argv[2] = JSON { directory, buckets }; sends { ready: true, port } once
// listening, or { error } on failure; the message 'close' stops the server and exits. If the
// runtime goes away (IPC disconnects) this process exits too: nothing is left listening.
import S3rver from 's3rver';

const { directory, buckets } = JSON.parse(process.argv[2] ?? '{}');

const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory,
  silent: true,
  // Signatures are checked: every local client signs with s3rver's own pair, S3RVER/S3RVER.
  configureBuckets: buckets.map((name) => ({ name, configs: [] })),
});

const stop = async (code) => {
  try {
    await server.close();
  } finally {
    process.exit(code);
  }
};

try {
  const { port } = await server.run();
  process.send({ ready: true, port });
} catch (error) {
  process.send({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

process.on('message', (message) => {
  if (message === 'close') void stop(0);
});
process.on('disconnect', () => void stop(0));
