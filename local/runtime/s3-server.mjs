// The S3 stand-in (s3rver) in a process of its own, forked by local/runtime/stand-ins.ts.
//
// Why a process: s3rver signs ListObjectsV2 continuation tokens with DES, which Node 20's
// OpenSSL 3 only offers with --openssl-legacy-provider; the flag must be given when a process
// starts, so the runtime starts this one with it, whatever flags its own process got.
//
// Protocol (IPC): argv[2] = JSON { directory, buckets, notify }; sends { ready: true, port } once
// listening, or { error } on failure; with `notify`, sends { created: { bucket, key, size, etag,
// eventName } } for every object created (S3's event notifications); the message 'close' stops
// the server and exits. If the runtime goes away (IPC disconnects) this process exits too:
// nothing is left listening.
//
// Every bucket lets a page on loopback POST to it (CORS): the local console's browser sends its
// presigned upload forms straight here, as it sends them to S3 on AWS.
import S3rver from 's3rver';

const { directory, buckets, notify } = JSON.parse(process.argv[2] ?? '{}');

// s3rver allows one wildcard per origin: any port of the loopback address.
const LOOPBACK_CORS = `<CORSConfiguration>
  <CORSRule>
    <AllowedOrigin>http://127.0.0.1:*</AllowedOrigin>
    <AllowedMethod>POST</AllowedMethod>
    <AllowedMethod>GET</AllowedMethod>
    <AllowedHeader>*</AllowedHeader>
    <ExposeHeader>ETag</ExposeHeader>
    <MaxAgeSeconds>600</MaxAgeSeconds>
  </CORSRule>
</CORSConfiguration>`;

const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory,
  silent: true,
  // Signatures are checked: every local client signs with s3rver's own pair, S3RVER/S3RVER.
  configureBuckets: buckets.map((name) => ({ name, configs: [LOOPBACK_CORS] })),
});

if (notify) {
  server.on('event', (event) => {
    for (const record of event.Records ?? []) {
      if (!String(record.eventName).startsWith('ObjectCreated:')) continue;
      const { bucket, object } = record.s3;
      process.send?.({
        created: {
          bucket: bucket.name,
          // As stored: s3rver does not URL-encode the key as S3's notifications do.
          key: String(object.key),
          size: object.size ?? 0,
          etag: object.eTag ?? '',
          eventName: record.eventName,
        },
      });
    }
  });
}

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
